package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// An exit code is read exactly whatever its size: those of an int32 in
// the step's row, the rest beside the table; a step without one has none.
// Each is read through the steps mapping and the OpenHands preset, at
// steps after a gap and between steps without one.
func TestExitCodesExact(t *testing.T) {
	codes := []struct {
		text string
		want int
	}{
		{"0", 0},
		{"1", 1},
		{"-1", -1},
		{"124", 124},
		{"2147483647", math.MaxInt32},
		{"-2147483648", math.MinInt32},
		{"2147483648", math.MaxInt32 + 1},
		{"-2147483649", math.MinInt32 - 1},
		{"4294967295", 1<<32 - 1}, // a Windows -1 read unsigned
		{"3e9", 3_000_000_000},
		{"9007199254740992", 1 << 53},
		{"-9007199254740992", -1 << 53},
	}
	read := func(t *testing.T, opts Options, in string) *Episode {
		t.Helper()
		eps, err := Read(strings.NewReader(in), "log.jsonl", "ep", opts)
		if err != nil || len(eps) != 1 {
			t.Fatalf("read: %v (%d episodes)", err, len(eps))
		}
		return eps[0]
	}
	t.Run("steps", func(t *testing.T) {
		var b strings.Builder
		// Step 3n+1 has code n, 3n+2 none; 3n+3 is missing (a gap).
		for i, c := range codes {
			fmt.Fprintf(&b, `{"step": %d, "action": "run %d", "output": "out", "exit_code": %s}`+"\n", 3*i+1, i, c.text)
			fmt.Fprintf(&b, `{"step": %d, "action": "look", "output": "out"}`+"\n", 3*i+2)
		}
		ep := read(t, Options{Format: FormatSteps}, b.String())
		if len(ep.Steps) != 3*len(codes)-1 {
			t.Fatalf("%d steps, want %d", len(ep.Steps), 3*len(codes)-1)
		}
		for i, c := range codes {
			if got, ok := ep.ExitCode(3 * i); !ok || got != c.want {
				t.Errorf("exit_code %s read as %d (%v), want %d", c.text, got, ok, c.want)
			}
			for _, j := range []int{3*i + 1, 3*i + 2} {
				if got, ok := ep.ExitCode(j); ok {
					t.Errorf("step %d has exit code %d, want none", j+1, got)
				}
			}
		}
		if _, ok := ep.ExitCode(len(ep.Steps)); ok {
			t.Error("a step past the table has an exit code")
		}
	})
	t.Run("openhands", func(t *testing.T) {
		var b strings.Builder
		for i, c := range codes {
			fmt.Fprintf(&b, `{"id": %d, "source": "agent", "action": "run", "args": {"command": "make %d"}}`+"\n", 2*i+1, i)
			fmt.Fprintf(&b, `{"id": %d, "source": "user", "observation": "run", "cause": %d, "content": "done", "extras": {"command": "make %d", "metadata": {"exit_code": %s}}}`+"\n", 2*i+2, 2*i+1, i, c.text)
		}
		ep := read(t, Options{Format: FormatSteps, Preset: PresetOpenHands}, b.String())
		if len(ep.Steps) != len(codes) {
			t.Fatalf("%d steps, want %d", len(ep.Steps), len(codes))
		}
		for i, c := range codes {
			if got, ok := ep.ExitCode(i); !ok || got != c.want {
				t.Errorf("exit_code %s read as %d (%v), want %d", c.text, got, ok, c.want)
			}
		}
	})
}

// TestStepBytes: a steps session read from a file holds about 52 bytes a
// step once read: its Turn (32), its StepInfo (16) and its output's Sym
// (4), actions and outputs interned once, the table made at its size.
// Rows of 48 and 24 bytes held 76 a step (a 200 MB session peaked at
// 71 MB of RSS); this fails if a step costs more than 60 again.
func TestStepBytes(t *testing.T) {
	const n = 200_000
	var b bytes.Buffer
	for i := range n {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, `{"step": %d, "action": "run_tests", "output": "1 test failed", "error": true, "exit_code": 1, "score": %d}`+"\n", i+1, i/1000)
		case 1:
			fmt.Fprintf(&b, `{"step": %d, "action": "edit auth.py", "output": "edited", "location": "repo/auth"}`+"\n", i+1)
		case 2:
			fmt.Fprintf(&b, `{"step": %d, "kind": "message", "output": "thinking %d"}`+"\n", i+1, i%7)
		default:
			code := i % 3
			if i%1000 == 3 {
				code = 1 << 40 // past int32: beside the table
			}
			fmt.Fprintf(&b, `{"step": %d, "action": "run %d", "output": "ok", "exit_code": %d}`+"\n", i+1, i%5, code)
		}
	}
	path := filepath.Join(t.TempDir(), "steps.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := Options{Format: FormatSteps}
	// A read first, so that what readers keep between reads (buffers)
	// is not counted.
	if _, err := Read(strings.NewReader(`{"step": 1, "action": "a"}`+"\n"), "log.jsonl", "ep", opts); err != nil {
		t.Fatal(err)
	}
	var eps []*Episode
	var err error
	held := heldBy(func() { eps, err = ReadFile(path, nil, opts) })
	if err != nil {
		t.Fatal(err)
	}
	ep := eps[0]
	if len(ep.Turns) != n || len(ep.Steps) != n {
		t.Fatalf("%d turns, %d steps, want %d", len(ep.Turns), len(ep.Steps), n)
	}
	if c, ok := ep.ExitCode(3); !ok || c != 1<<40 {
		t.Fatalf("step 4's exit code %d (%v), want %d", c, ok, 1<<40)
	}
	per := float64(held) / n
	t.Logf("%.1f bytes a step (turns' capacity %d, steps' %d)", per, cap(ep.Turns), cap(ep.Steps))
	if per > 60 {
		t.Errorf("%.1f bytes a step, want at most 60 (a Turn of 32, a StepInfo of 16, an output's Sym of 4)", per)
	}
	runtime.KeepAlive(eps)
}

// Each step's location is its name key (FoldName) and RoomNames keeps a
// key's first display name, whether the location is the last one's (read
// again from stepTable.location's last) or not: locations repeating,
// changing, folding to one key (case, spaces), escaped (a string not
// interned, equal to the last), absent from some steps.
func TestStepLocationsAsFolded(t *testing.T) {
	locs := []string{`repo/auth`, `Repo/Auth`, ` repo/auth `, `repo\/auth`, `repo  auth`, `repo auth`, `src`, `SRC`, `caf\u00e9`, `Café`, ``}
	rnd := rand.New(rand.NewPCG(24, 2))
	var b strings.Builder
	var want []string // each step's location as written, "" for none
	for i := 1; i <= 2000; i++ {
		l := locs[rnd.IntN(len(locs))]
		if rnd.IntN(3) > 0 && i > 1 {
			l = want[len(want)-1] // most steps stay where the last was
		}
		want = append(want, l)
		if l == "" {
			fmt.Fprintf(&b, `{"step": %d, "action": "look", "output": "out"}`+"\n", i)
			continue
		}
		fmt.Fprintf(&b, `{"step": %d, "action": "look", "output": "out", "location": "%s"}`+"\n", i, l)
	}
	eps, err := Read(strings.NewReader(b.String()), "log.jsonl", "ep", Options{Format: FormatSteps})
	if err != nil || len(eps) != 1 {
		t.Fatalf("read: %v (%d episodes)", err, len(eps))
	}
	ep := eps[0]
	if len(ep.Turns) != len(want) {
		t.Fatalf("%d turns, want %d", len(ep.Turns), len(want))
	}
	names := map[string]string{}
	cur := ""
	for i, l := range want {
		start := cur
		if l != "" {
			var text string
			if err := json.Unmarshal([]byte(`"`+l+`"`), &text); err != nil {
				t.Fatal(err)
			}
			key := FoldName(text)
			if _, ok := names[key]; !ok {
				names[key] = strings.TrimSpace(text)
			}
			if i == 0 {
				start = key
			}
			cur = key
		}
		tr := ep.Turns[i]
		if got := ep.Str(tr.LocStart); got != start {
			t.Errorf("step %d starts at %q, want %q", i+1, got, start)
		}
		if got := ep.Str(tr.LocEnd); got != cur {
			t.Errorf("step %d ends at %q, want %q", i+1, got, cur)
		}
		if moved := i > 0 && cur != start; tr.Moved != moved {
			t.Errorf("step %d moved %v, want %v", i+1, tr.Moved, moved)
		}
	}
	if !reflect.DeepEqual(ep.RoomNames, names) {
		t.Errorf("RoomNames %q, want %q", ep.RoomNames, names)
	}
}

// TestStepTableLocation holds stepTable.location's test of the last
// location again (the same string by its pointer, or by ==) to a fold
// looked up anew: locations that share one string's bytes at lengths
// that differ (a pointer alone would take the shorter for the longer),
// the same text at another address, and texts that fold alike.
func TestStepTableLocation(t *testing.T) {
	base := "repo/auth/login  Repo/Auth"
	texts := []string{base[:9], base[:9], base[:6], base[:9], base, base[:9],
		string([]byte(base[:9])), "Repo/Auth", " repo/auth", base[17:], base[:9], base[:4], base[:4]}
	tab := newStepTable("e", "s")
	for i, s := range texts {
		got := tab.location(s)
		if want := tab.ep.syms.sym(FoldName(s)); got != want {
			t.Fatalf("%d: location(%q) = %d (%q), want %d (%q)", i, s, got, tab.ep.Str(got), want, tab.ep.Str(want))
		}
	}
}
