package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

func TestReadWhole(t *testing.T) {
	for _, tc := range []struct {
		name, head             string
		whole, document, known bool
	}{
		{"json lines", `{"step": 1, "action": "a"}` + "\n", false, false, true},
		{"first line being written", `{"step": 1, "act`, false, false, false},
		{"a whole first line without its newline yet", `{"step": 1}`, false, false, false},
		{"pretty-printed object", "{\n  \"sessionId\": \"x\",\n", true, true, true},
		{"array", `[{"action": "run"`, true, true, true},
		{"gzip", "\x1f\x8b\x08\x00", true, false, true},
		{"zstd", "\x28\xb5\x2f\xfd", true, false, true},
		{"long first line", `{"k": "` + strings.Repeat("x", 5000), false, false, true},
		{"empty", "", false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			whole, doc, known := readWhole(strings.NewReader(tc.head))
			if whole != tc.whole || doc != tc.document || known != tc.known {
				t.Errorf("readWhole = %v, %v, %v; want %v, %v, %v", whole, doc, known, tc.whole, tc.document, tc.known)
			}
		})
	}
}

func TestLastLineEnd(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("y", 70<<10) // longer than the backwards scan's buffer
	for _, tc := range []struct {
		data      string
		from      int64
		end, line int64
	}{
		{"a\nb\nc", 0, 4, 2},
		{"a\nb\n", 0, 4, 2},
		{"a\nb\n", 4, 4, -1},
		{"abc", 0, 0, -1},
		{"a\n" + long, 0, 2, 0},
		{"a\n" + long + "\n", 0, int64(len(long)) + 3, 2},
		{"a\n" + long + "\npartial", 2, int64(len(long)) + 3, 2},
	} {
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		f, _ := os.Open(p)
		end, err := lastLineEnd(f, tc.from, int64(len(tc.data)))
		if err != nil || end != tc.end {
			t.Errorf("%.20q from %d: lastLineEnd = %d, %v; want %d", tc.data, tc.from, end, err, tc.end)
		}
		if tc.line >= 0 {
			if line, err := lineStartBefore(f, end); err != nil || line != tc.line {
				t.Errorf("%.20q: lineStartBefore(%d) = %d, %v; want %d", tc.data, end, line, err, tc.line)
			}
		}
		f.Close()
	}
}

// geminiSession is a Gemini CLI session document of n tool calls, the
// same command each time (tool_cycle stops at the sixth), pretty-printed
// as the CLI writes it.
func geminiSession(n int) []byte {
	var msgs []any
	for i := 1; i <= n; i++ {
		msgs = append(msgs, map[string]any{
			"id": fmt.Sprintf("m%d", i), "type": "gemini", "content": "",
			"toolCalls": []any{map[string]any{
				"id": fmt.Sprintf("c%d", i), "name": "run_shell_command", "args": map[string]any{"command": "make"},
				"result": []any{map[string]any{"functionResponse": map[string]any{"id": fmt.Sprintf("c%d", i),
					"name": "run_shell_command", "response": map[string]any{"output": "make: *** [all] Error 1"}}}},
				"status": "success",
			}},
		})
	}
	b, _ := json.MarshalIndent(map[string]any{"sessionId": "s1", "projectHash": "p", "messages": msgs}, "", "  ")
	return b
}

// collector gathers a Run's events.
type collector struct {
	mu     sync.Mutex
	events []Event
	keys   []string // firings, as "unit N rule/kind after_cut"
}

func (c *collector) emit(e Event) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.Kind == Firing {
		c.keys = append(c.keys, fmt.Sprintf("%s %d %s %v", e.Firing.Unit, e.Firing.Turn, e.Firing.KindKey(), e.AfterCut))
		e.Firing = nil // valid during the call only
	}
	c.events = append(c.events, e)
	return nil
}

func (c *collector) wait(t *testing.T, what string, cond func(c *collector) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c.mu.Lock()
		ok := cond(c)
		c.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			c.mu.Lock()
			defer c.mu.Unlock()
			t.Fatalf("waited 10s for %s; events %+v", what, c.events)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// analyzeKeys are analyze's firings of a file, as collector keys.
func analyzeKeys(t *testing.T, path string, cfg *rules.Config) []string {
	t.Helper()
	eps, err := replay.ReadFile(path, nil, replay.Options{Format: replay.FormatAuto})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, ep := range eps {
		o := analyze.Analyze(ep, cfg, analyze.Options{KeepFirings: true})
		for i := range o.Firings {
			f := &o.Firings[i]
			keys = append(keys, fmt.Sprintf("%s %d %s %v", f.Unit, f.Turn, f.KindKey(), o.AfterCut(f)))
		}
	}
	return keys
}

// TestRunDocumentRewritten: a session document rewritten whole (in
// place, as writeFileSync does, so a read may meet it cut short) is read
// again at each change and only its new firings reported: no restart, no
// revision, analyze's firings at the end. Cancelling the context ends the
// session with its summary and returns the cause.
func TestRunDocumentRewritten(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "session-1.json")
	if err := os.WriteFile(path, geminiSession(2), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := rules.Default()
	c := &collector{}
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, []string{path}, Options{Read: replay.Options{Format: replay.FormatAuto}, Config: cfg}, c.emit)
	}()
	for n := 3; n <= 9; n++ {
		time.Sleep(20 * time.Millisecond)
		data := geminiSession(n)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		// Two writes: a read between them meets an invalid document.
		f.Write(data[:len(data)/2])
		time.Sleep(2 * time.Millisecond)
		f.Write(data[len(data)/2:])
		f.Close()
	}
	want := analyzeKeys(t, path, cfg)
	c.wait(t, "every firing", func(c *collector) bool { return len(c.keys) >= len(want) })
	cancel(errors.New("test over"))
	select {
	case err := <-done:
		if err == nil || err.Error() != "test over" {
			t.Errorf("Run returned %v, want the cause", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	if strings.Join(c.keys, "\n") != strings.Join(want, "\n") {
		t.Errorf("firings:\n%s\nwant (analyze):\n%s", strings.Join(c.keys, "\n"), strings.Join(want, "\n"))
	}
	if !bytes.Contains([]byte(strings.Join(want, "\n")), []byte("step 6 tool_cycle/stop")) {
		t.Errorf("the session does not loop as meant: %v", want)
	}
	var ends int
	for _, e := range c.events {
		switch e.Kind {
		case Restart, Revised, Problem:
			t.Errorf("unexpected event %+v", e)
		case End:
			ends++
			if e.Reason != "interrupted" || e.Summary.Firings != len(want) || e.Summary.Unit != rules.UnitStep {
				t.Errorf("end %+v, summary %+v", e, e.Summary)
			}
		}
	}
	if ends != 1 {
		t.Errorf("%d end events, want 1", ends)
	}
}

// stepsLog is a steps log of n steps running the same command.
func stepsLog(n int, action string) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"step": %d, "kind": "action", "action": %q, "output": "1 failing"}`+"\n", i, action)
	}
	return b.Bytes()
}

// TestRunRewrittenInPlace: a log of lines written again from its start,
// in place and longer than before (as a truncation and a write between
// two looks would leave it), starts the session over, saying so, and
// reports the new content's firings; nothing is reported as revised.
func TestRunRewrittenInPlace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.jsonl")
	if err := os.WriteFile(path, stepsLog(7, "run a"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := rules.Default()
	first := analyzeKeys(t, path, cfg)
	c := &collector{}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, []string{path}, Options{Read: replay.Options{Format: replay.FormatAuto}, Config: cfg}, c.emit)
	}()
	c.wait(t, "the first content's firings", func(c *collector) bool { return len(c.keys) == len(first) })
	// Written over from its start, never shorter: only its first
	// bytes tell.
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(stepsLog(12, "run b"), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	second := analyzeKeys(t, path, cfg)
	c.wait(t, "the second content's firings", func(c *collector) bool { return len(c.keys) == len(first)+len(second) })
	cancel(errors.New("test over"))
	<-done
	if got := strings.Join(c.keys[len(first):], "\n"); got != strings.Join(second, "\n") {
		t.Errorf("after the rewrite:\n%s\nwant:\n%s", got, strings.Join(second, "\n"))
	}
	restarts := 0
	for _, e := range c.events {
		switch e.Kind {
		case Restart:
			restarts++
			if e.Reason != "rewritten from its start" && !strings.HasPrefix(e.Reason, "truncated") {
				t.Errorf("restart %q", e.Reason)
			}
		case Revised, Problem:
			t.Errorf("unexpected event %+v", e)
		}
	}
	if restarts != 1 {
		t.Errorf("%d restarts, want 1", restarts)
	}
}
