package replay

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
)

// ---- helpers shared by the replay tests (prefixed rt to keep clear of
// other test files in the package) ----

// rtLine builds one log line the way the Python writer does: timestamp,
// level, message, event_type (when et != ""), then the pairs in order, with
// json.dumps separators.
func rtLine(et string, kv ...any) string {
	var b strings.Builder
	b.WriteString(`{"timestamp": "2025-11-03T12:38:58.114428", "level": "INFO", "message": "m"`)
	if et != "" {
		b.WriteString(`, "event_type": `)
		b.Write(rtJSON(et))
	}
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString(", ")
		b.Write(rtJSON(kv[i].(string)))
		b.WriteString(": ")
		if raw, ok := kv[i+1].(rtRaw); ok {
			b.WriteString(string(raw))
		} else {
			b.Write(rtJSON(kv[i+1]))
		}
	}
	b.WriteString("}")
	return b.String()
}

// rtRaw is a value written as is (NaN, nested objects, invalid JSON).
type rtRaw string

func rtJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// rtTurn logs one ordinary name-keyed turn: final_action_selection and
// turn_completed.
func rtTurn(id string, n int, action string, score float64, loc string, conf float64) string {
	fas := rtLine("final_action_selection", "episode_id", id, "turn", n, "agent_action", action, "critic_confidence", conf)
	tc := rtLine("turn_completed", "episode_id", id, "turn", n, "action", action, "score", score, "location", loc, "confidence", conf)
	return fas + "\n" + tc + "\n"
}

func rtRead(t testing.TB, input string, opts Options) []*Episode {
	t.Helper()
	eps, err := Read(strings.NewReader(input), "log.jsonl", "default-ep", opts)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return eps
}

// rtOne reads input that must hold exactly one episode.
func rtOne(t testing.TB, input string) *Episode {
	t.Helper()
	eps := rtRead(t, input, Options{})
	if len(eps) != 1 {
		t.Fatalf("got %d episodes (%v), want 1", len(eps), rtIDs(eps))
	}
	return eps[0]
}

func rtIDs(eps []*Episode) []string {
	var ids []string
	for _, e := range eps {
		ids = append(ids, e.ID)
	}
	return ids
}

func rtGzip(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// rtNoise is an irrelevant line of about n bytes (a knowledge-base dump).
func rtNoise(n int) string {
	body := strings.Repeat("The Dam Lobby is north of the dam. ", n/35+1)[:n]
	return rtLine("knowledge_base_update", "episode_id", "E", "turn", 1, "content", body)
}

func rtWantProblem(t testing.TB, d Diagnostics, want string) {
	t.Helper()
	for _, p := range d.Problems {
		if strings.Contains(p, want) {
			return
		}
	}
	t.Errorf("no problem containing %q in %q", want, d.Problems)
}

func rtWantNote(t testing.TB, d Diagnostics, want string) {
	t.Helper()
	for _, p := range d.Notes {
		if strings.Contains(p, want) {
			return
		}
	}
	t.Errorf("no note containing %q in %q", want, d.Notes)
}

// ---- line reading ----

// Lines far above bufio.Scanner's 64 KiB and the 1 MiB read buffer are read
// whole, both irrelevant noise and relevant lines carrying a huge field, and
// line numbers after them stay right.
func TestReadLongLines(t *testing.T) {
	sizes := []int{64<<10 + 1, 1<<20 - 1, 1 << 20, 1<<20 + 1, 5 << 20}
	if !testing.Short() {
		sizes = append(sizes, 20<<20)
	}
	for _, n := range sizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			big := strings.Repeat("x", n)
			// the relevant field comes after the huge one
			hugeTC := `{"timestamp": "t", "level": "INFO", "message": "` + big + `", "event_type": "turn_completed", "episode_id": "E", "turn": 2, "action": "wait", "score": 5, "location": "Dam", "confidence": 0.5}`
			in := rtTurn("E", 1, "north", 0, "Dam", 0.9) +
				rtNoise(n) + "\n" +
				hugeTC + "\n" +
				"not json\n" +
				rtTurn("E", 3, "south", 5, "Dam Lobby", 0.7)
			ep := rtOne(t, in)
			if ep.RecordedTurns() != 3 || len(ep.Turns) != 3 {
				t.Fatalf("turns %d (%d rows), want 3", ep.RecordedTurns(), len(ep.Turns))
			}
			if tr := ep.Row(ep.Turn(2)); tr.Filled || tr.Score != 5 || tr.Action != "wait" {
				t.Errorf("turn 2 = %+v", tr)
			}
			if ep.Diag.Skipped != 1 {
				t.Errorf("skipped %d, want 1", ep.Diag.Skipped)
			}
			rtWantProblem(t, ep.Diag, "log.jsonl:5: not a JSON object")
			if ep.Diag.Lines != 7 {
				t.Errorf("lines %d, want 7", ep.Diag.Lines)
			}
		})
	}
}

// A line over MaxLineBytes is skipped as a problem, whether it fits the
// read buffer or spans several fills; reading goes on after it.
func TestReadMaxLineBytes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		max, n   int
		wantSkip bool
	}{
		{"small over", 1000, 5000, true},
		{"spans buffers", 3 << 20, 5 << 20, true},
		{"over after a full buffer", 1<<20 + 10, 1<<20 + 500, true},
		{"under", 1 << 20, 4000, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := rtTurn("E", 1, "north", 0, "Dam", 0.9) + rtNoise(tc.n) + "\n" + rtTurn("E", 2, "north", 0, "Dam", 0.9)
			eps := rtRead(t, in, Options{MaxLineBytes: tc.max})
			ep := eps[0]
			if ep.RecordedTurns() != 2 {
				t.Errorf("turns %d, want 2", ep.RecordedTurns())
			}
			if got := ep.Diag.Skipped == 1; got != tc.wantSkip {
				t.Errorf("skipped %d, want skip %v (%q)", ep.Diag.Skipped, tc.wantSkip, ep.Diag.Problems)
			}
			if tc.wantSkip {
				rtWantProblem(t, ep.Diag, fmt.Sprintf("log.jsonl:3: line longer than %d bytes", tc.max))
			}
			if ep.Diag.Lines != 5 {
				t.Errorf("lines %d, want 5", ep.Diag.Lines)
			}
			_, err := Read(strings.NewReader(in), "log.jsonl", "d", Options{MaxLineBytes: tc.max, Strict: true})
			var le *LineError
			if tc.wantSkip != errors.As(err, &le) {
				t.Errorf("strict: err %v", err)
			} else if tc.wantSkip && le.Line != 3 {
				t.Errorf("strict: line %d, want 3", le.Line)
			}
		})
	}
}

// MaxLineBytes bounds a line's content; its line end does not count.
func TestReadMaxLineBytesExact(t *testing.T) {
	line := rtLine("turn_completed", "turn", 1, "score", 0, "location", "Dam")
	for _, in := range []string{line + "\n", line + "\r\n", line} {
		eps := rtRead(t, in, Options{MaxLineBytes: len(line)})
		if ep := eps[0]; ep.RecordedTurns() != 1 || ep.Diag.Skipped != 0 {
			t.Errorf("%q with MaxLineBytes = its length: turns %d, skipped %d %q; want the line used",
				in[len(in)-2:], ep.RecordedTurns(), ep.Diag.Skipped, ep.Diag.Problems)
		}
	}
}

func TestReadFinalLine(t *testing.T) {
	head := rtTurn("E", 1, "north", 0, "Dam", 0.9)
	full := rtLine("turn_completed", "episode_id", "E", "turn", 2, "action", "s", "score", 7, "location", "Dam")
	t.Run("valid without newline is used", func(t *testing.T) {
		ep := rtOne(t, head+full)
		if ep.RecordedTurns() != 2 || ep.FinalScore() != 7 || ep.Diag.Skipped != 0 {
			t.Errorf("turns %d score %v skipped %d", ep.RecordedTurns(), ep.FinalScore(), ep.Diag.Skipped)
		}
	})
	t.Run("valid with CRLF and no newline", func(t *testing.T) {
		ep := rtOne(t, head+full+"\r")
		if ep.RecordedTurns() != 2 || ep.Diag.Skipped != 0 {
			t.Errorf("turns %d skipped %d", ep.RecordedTurns(), ep.Diag.Skipped)
		}
	})
	for _, cut := range []int{1, 10, len(full) / 2, len(full) - 1} {
		t.Run(fmt.Sprintf("truncated at %d", cut), func(t *testing.T) {
			ep := rtOne(t, head+full[:cut])
			if ep.RecordedTurns() != 1 || ep.Diag.Skipped != 1 {
				t.Errorf("turns %d skipped %d, want 1 and 1", ep.RecordedTurns(), ep.Diag.Skipped)
			}
			rtWantProblem(t, ep.Diag, "log.jsonl:3: truncated final line")
			_, err := Read(strings.NewReader(head+full[:cut]), "log.jsonl", "d", Options{Strict: true})
			var le *LineError
			if !errors.As(err, &le) || le.Line != 3 || !strings.Contains(le.Reason, "truncated final line") {
				t.Errorf("strict: %v", err)
			}
		})
	}
	t.Run("a cut line in the middle is not JSON", func(t *testing.T) {
		ep := rtOne(t, head+full[:20]+"\n"+rtTurn("E", 2, "n", 1, "Dam", 0.5))
		rtWantProblem(t, ep.Diag, "log.jsonl:3: not a JSON object")
		if ep.RecordedTurns() != 2 {
			t.Errorf("turns %d", ep.RecordedTurns())
		}
	})
}

// A crashed run's last line cut just after a nested object's closing brace
// ends in '}' and is still reported as a truncated final line.
func TestReadTruncatedFinalLineEndingInBrace(t *testing.T) {
	head := rtTurn("E", 1, "north", 0, "Dam", 0.9)
	cut := `{"timestamp": "t", "event_type": "turn_completed", "turn": 2, "extras": {"component": "orchestrator"}`
	ep := rtOne(t, head+cut)
	if ep.Diag.Skipped != 1 {
		t.Fatalf("skipped %d, want 1", ep.Diag.Skipped)
	}
	rtWantProblem(t, ep.Diag, "log.jsonl:3: truncated final line")
}

func TestReadLineEndsAndBlankLines(t *testing.T) {
	lf := rtTurn("E", 1, "north", 0, "Dam", 0.9) + rtTurn("E", 2, "south", 5, "Dam Lobby", 0.8)
	crlf := strings.ReplaceAll(lf, "\n", "\r\n")
	blank := "\n\n   \n\t\r\n" + strings.ReplaceAll(lf, "\n", "\n\n \n")
	for name, in := range map[string]string{"LF": lf, "CRLF": crlf, "blank lines": blank, "BOM": "\ufeff" + lf} {
		t.Run(name, func(t *testing.T) {
			ep := rtOne(t, in)
			if ep.RecordedTurns() != 2 || ep.Diag.Skipped != 0 || ep.Diag.Lines != 4 {
				t.Fatalf("turns %d skipped %d lines %d, problems %q", ep.RecordedTurns(), ep.Diag.Skipped, ep.Diag.Lines, ep.Diag.Problems)
			}
			if tr := ep.Row(ep.Turn(2)); tr.Action != "south" || tr.LocEnd != "dam lobby" || tr.Score != 5 {
				t.Errorf("turn 2 = %+v", tr)
			}
		})
	}
	// Blank lines count for line numbers in problems.
	ep := rtOne(t, "\n\r\n"+rtTurn("E", 1, "n", 0, "Dam", 1)+"\n[1]\n")
	rtWantProblem(t, ep.Diag, "log.jsonl:6: not a JSON object")
}

// An empty input, or one without a loop-break event, is a file error
// naming the file (issue 9 item 5), not an episode of 0 turns; its
// unreadable lines are in the message.
func TestReadNoEvents(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "no loop-break events in x (empty)"},
		{"\n\r\n  \n", "no loop-break events in x (empty)"},
		{`{"level": "INFO", "message": "hello"}` + "\n" + rtLine("zork_response", "turn", 1) + "\n",
			"no loop-break events in x (2 lines, none a ZorkGPT event the rules use)"},
		{"not json\n" + rtLine("turn_completed", "score", 1) + "\n",
			"no loop-break events in x (2 lines, 2 unreadable; first: x:1: not a JSON object)"},
	} {
		for _, strict := range []bool{false, true} {
			eps, err := Read(strings.NewReader(tc.in), "x", "d", Options{Strict: strict})
			var ne *NoEventsError
			var le *LineError
			if strict && errors.As(err, &le) && strings.Contains(tc.want, "unreadable") {
				continue // Strict stops at the first unreadable line
			}
			if len(eps) != 0 || !errors.Is(err, ErrNoEvents) {
				t.Errorf("%q strict=%v: %d episodes, err %v; want ErrNoEvents", tc.in, strict, len(eps), err)
			} else if errors.As(err, &ne) && !strict && err.Error() != tc.want {
				t.Errorf("%q: %q, want %q", tc.in, err, tc.want)
			}
		}
	}
	// One event the rules use is enough: an episode of 0 turns.
	eps, err := Read(strings.NewReader(rtLine("episode_initialized", "episode_id", "E", "turn", 0)+"\n"), "x", "d", Options{})
	if err != nil || len(eps) != 1 || len(eps[0].Turns) != 0 {
		t.Errorf("init only: %v, %d episodes", err, len(eps))
	}
}

// Reading byte by byte (a slow pipe) gives the same episodes.
func TestReadSmallReads(t *testing.T) {
	in := rtTurn("E", 1, "north", 0, "Dam", 0.9) + rtNoise(3<<20) + "\n" + rtTurn("E", 2, "n", 3, "Dam", 0.1)
	for name, r := range map[string]io.Reader{
		"one byte":  iotest.OneByteReader(strings.NewReader(in)),
		"half":      iotest.HalfReader(strings.NewReader(in)),
		"data+EOF":  iotest.DataErrReader(strings.NewReader(in)),
		"gzip half": iotest.HalfReader(bytes.NewReader(rtGzip(t, []byte(in)))),
	} {
		eps, err := Read(r, "x", "d", Options{Strict: true})
		if err != nil || len(eps) != 1 || eps[0].RecordedTurns() != 2 || eps[0].FinalScore() != 3 {
			t.Errorf("%s: err %v, %d episodes", name, err, len(eps))
		}
	}
}

// An I/O error ends reading: what was read is kept, the error is a problem
// (an error only in Strict mode).
func TestReadIOError(t *testing.T) {
	in := rtTurn("E", 1, "north", 0, "Dam", 0.9) + rtTurn("E", 2, "n", 3, "Dam", 0.1)
	boom := errors.New("disk on fire")
	r := io.MultiReader(strings.NewReader(in), iotest.ErrReader(boom))
	eps, err := Read(r, "x", "d", Options{})
	if err != nil {
		t.Fatalf("err %v", err)
	}
	if eps[0].RecordedTurns() != 2 || eps[0].Diag.Skipped != 1 {
		t.Errorf("turns %d skipped %d", eps[0].RecordedTurns(), eps[0].Diag.Skipped)
	}
	rtWantProblem(t, eps[0].Diag, "x:5: disk on fire")
	r = io.MultiReader(strings.NewReader(in), iotest.ErrReader(boom))
	eps, err = Read(r, "x", "d", Options{Strict: true})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") || len(eps) != 1 {
		t.Errorf("strict: %v, %d episodes", err, len(eps))
	}
}

// ---- gzip ----

func TestReadGzip(t *testing.T) {
	plain := rtTurn("E", 1, "north", 0, "Dam", 0.9) + rtNoise(2<<20) + "\n" + rtTurn("E", 2, "n", 3, "Dam", 0.1)
	z := rtGzip(t, []byte(plain))
	a := rtOne(t, plain)
	b := rtOne(t, string(z))
	if a.RecordedTurns() != 2 || b.RecordedTurns() != 2 || a.FinalScore() != b.FinalScore() || b.Diag.Lines != a.Diag.Lines {
		t.Errorf("plain %d/%v/%d, gzip %d/%v/%d", a.RecordedTurns(), a.FinalScore(), a.Diag.Lines, b.RecordedTurns(), b.FinalScore(), b.Diag.Lines)
	}
	// concatenated gzip members (logrotate appends) read as one stream
	two := append(rtGzip(t, []byte(rtTurn("E", 1, "n", 0, "Dam", 1))), rtGzip(t, []byte(rtTurn("E", 2, "n", 4, "Dam", 1)))...)
	if ep := rtOne(t, string(two)); ep.RecordedTurns() != 2 || ep.FinalScore() != 4 {
		t.Errorf("multistream: turns %d score %v", ep.RecordedTurns(), ep.FinalScore())
	}
}

// A truncated gzip stream keeps what was read and reports a problem.
func TestReadTruncatedGzip(t *testing.T) {
	var plain strings.Builder
	for n := 1; n <= 200; n++ {
		plain.WriteString(rtTurn("E", n, "north", float64(n), "Dam", 0.5))
	}
	z := rtGzip(t, []byte(plain.String()))
	cut := z[:len(z)*2/3]
	eps, err := Read(bytes.NewReader(cut), "ep.jsonl.gz", "d", Options{})
	if err != nil {
		t.Fatalf("err %v", err)
	}
	if len(eps) != 1 {
		t.Fatalf("%d episodes", len(eps))
	}
	ep := eps[0]
	if n := ep.RecordedTurns(); n < 50 || n >= 200 {
		t.Errorf("recorded %d turns from two thirds of the stream", n)
	}
	if ep.Diag.Skipped < 1 {
		t.Errorf("skipped %d", ep.Diag.Skipped)
	}
	rtWantProblem(t, ep.Diag, "truncated compressed file")
	rtWantProblem(t, ep.Diag, "ep.jsonl.gz:")
	_, err = Read(bytes.NewReader(cut), "ep.jsonl.gz", "d", Options{Strict: true})
	var le *LineError
	if !errors.As(err, &le) || le.File != "ep.jsonl.gz" {
		t.Errorf("strict: %v", err)
	}
	// cut inside the trailer (CRC and size): every line is there
	ep = rtOne(t, string(z[:len(z)-3]))
	if ep.RecordedTurns() != 200 {
		t.Errorf("trailer cut: %d turns", ep.RecordedTurns())
	}
	rtWantProblem(t, ep.Diag, "truncated compressed file")
}

// A gzip stream whose checksum fails is a file error: its lines are not
// trusted, so no episode is read from them (issue 23).
func TestReadCorruptGzip(t *testing.T) {
	z := rtGzip(t, []byte(rtTurn("E", 1, "north", 0, "Dam", 0.9)))
	z[len(z)-6] ^= 0xff // CRC
	eps, err := Read(bytes.NewReader(z), "x.gz", "d", Options{})
	var le *LineError
	if !errors.As(err, &le) || le.File != "x.gz" || !strings.Contains(err.Error(), "invalid checksum") {
		t.Fatalf("err %v", err)
	}
	if len(eps) != 0 {
		t.Fatalf("%d episodes from a corrupt member", len(eps))
	}
}

// Input starting with the gzip magic bytes but without a valid gzip header
// cannot be read at all: it is a file error naming the file (reported and
// skipped by the commands, as rg does), not an empty episode.
func TestReadBadGzipHeader(t *testing.T) {
	// A comment flag with the header cut in its comment (FuzzRead).
	cutComment := "\x1f\x8b\b0000000"
	for _, in := range []string{"\x1f\x8b", "\x1f\x8b\x08\x00\x00", cutComment, "\x1f\x8bnot gzip at all\n" + rtTurn("E", 1, "n", 0, "Dam", 1)} {
		eps, err := Read(strings.NewReader(in), "x.gz", "d", Options{})
		if err == nil || !strings.HasPrefix(err.Error(), "x.gz: not a readable gzip stream") || len(eps) != 0 {
			t.Errorf("%q: %d episodes, error %v; want none and a file error naming x.gz", in, len(eps), err)
		}
		// compress/gzip's error values, whichever decoder reads.
		if !errors.Is(err, gzip.ErrHeader) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%q: %v is neither gzip.ErrHeader nor io.ErrUnexpectedEOF", in, err)
		}
	}
}

// ---- files, stdin, ids ----

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	epDir := filepath.Join(dir, "2025-11-03T12:38:53")
	if err := os.MkdirAll(epDir, 0o755); err != nil {
		t.Fatal(err)
	}
	content := rtTurn("", 1, "n", 0, "Dam", 1)
	content = strings.ReplaceAll(content, `"episode_id": "", `, "")
	plain := filepath.Join(epDir, "episode_log.jsonl")
	gz := filepath.Join(epDir, "episode_log.jsonl.gz")
	other := filepath.Join(dir, "old-global.log")
	os.WriteFile(plain, []byte(content), 0o644)
	os.WriteFile(gz, rtGzip(t, []byte(content)), 0o644)
	os.WriteFile(other, []byte(content), 0o644)
	for path, wantID := range map[string]string{plain: "2025-11-03T12:38:53", gz: "2025-11-03T12:38:53", other: "old-global"} {
		eps, err := ReadFile(path, nil, Options{Strict: true})
		if err != nil || len(eps) != 1 {
			t.Fatalf("%s: %v, %d episodes", path, err, len(eps))
		}
		if eps[0].ID != wantID || eps[0].Source != path || eps[0].RecordedTurns() != 1 {
			t.Errorf("%s: id %q source %q turns %d", path, eps[0].ID, eps[0].Source, eps[0].RecordedTurns())
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.jsonl"), nil, Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestReadStdin(t *testing.T) {
	noID := strings.ReplaceAll(rtTurn("", 1, "n", 0, "Dam", 1), `"episode_id": "", `, "")
	eps, err := ReadFile("-", strings.NewReader(noID+"junk\n"), Options{})
	if err != nil || len(eps) != 1 {
		t.Fatalf("%v, %d episodes", err, len(eps))
	}
	if eps[0].ID != "stdin" || eps[0].Source != "-" {
		t.Errorf("id %q source %q", eps[0].ID, eps[0].Source)
	}
	rtWantProblem(t, eps[0].Diag, "-:3: not a JSON object")
	// gzip on stdin is detected too
	eps, err = ReadFile("-", bytes.NewReader(rtGzip(t, []byte(rtTurn("E", 1, "n", 0, "Dam", 1)))), Options{})
	if err != nil || len(eps) != 1 || eps[0].ID != "E" {
		t.Errorf("gzip stdin: %v %v", err, rtIDs(eps))
	}
}

func TestDefaultEpisodeID(t *testing.T) {
	for path, want := range map[string]string{
		"-": "stdin",
		"game_files/episodes/2025-11-03T12:38:53/episode_log.jsonl":    "2025-11-03T12:38:53",
		"game_files/episodes/2025-11-03T12:38:53/episode_log.jsonl.gz": "2025-11-03T12:38:53",
		"/abs/2025-11-04T09:35:24/episode_log.jsonl":                   "2025-11-04T09:35:24",
		"episode_log.jsonl":     "episode_log",
		"/episode_log.jsonl":    "episode_log",
		"logs/zorkgpt.log":      "zorkgpt",
		"logs/zorkgpt.jsonl.gz": "zorkgpt",
		"logs/run.json":         "run",
		"logs/run.txt":          "run.txt",
	} {
		if got := DefaultEpisodeID(path); got != want {
			t.Errorf("DefaultEpisodeID(%q) = %q, want %q", path, got, want)
		}
	}
}

// A file named only by an extension still gets an episode id.
func TestDefaultEpisodeIDNeverEmpty(t *testing.T) {
	for _, path := range []string{".jsonl", "./.jsonl", ".gz", "logs/.jsonl.gz"} {
		if got := DefaultEpisodeID(path); got == "" {
			t.Errorf("DefaultEpisodeID(%q) is empty", path)
		}
	}
}

// ---- diagnostics and strict mode ----

func TestReadDiagnostics(t *testing.T) {
	var b strings.Builder
	b.WriteString(rtTurn("E", 1, "n", 0, "Dam", 1)) // lines 1-2
	for i := 0; i < 12; i++ {                       // lines 3-14
		b.WriteString("garbage\n")
	}
	b.WriteString(`{"event_type": "turn_completed", "turn": 2, "score": }` + "\n") // 15: invalid JSON
	b.WriteString(`{"event_type": "zork_response", "turn": 2, "bad": }` + "\n")    // 16: irrelevant, not decoded
	b.WriteString(`{"level": "INFO", "message": "no event type"}` + "\n")          // 17
	b.WriteString(rtLine("turn_completed", "score", 1) + "\n")                     // 18: no turn number
	ep := rtOne(t, b.String())
	if ep.Diag.Lines != 18 {
		t.Errorf("lines %d, want 18", ep.Diag.Lines)
	}
	if ep.Diag.Skipped != 14 {
		t.Errorf("skipped %d, want 14", ep.Diag.Skipped)
	}
	if len(ep.Diag.Problems) != MaxProblems {
		t.Errorf("%d problems, want %d", len(ep.Diag.Problems), MaxProblems)
	}
	for i, p := range ep.Diag.Problems {
		if want := fmt.Sprintf("log.jsonl:%d: not a JSON object", i+3); p != want {
			t.Errorf("problem %d = %q, want %q", i, p, want)
		}
	}
	// Strict stops at the first one, with what was read so far.
	eps, err := Read(strings.NewReader(b.String()), "log.jsonl", "d", Options{Strict: true})
	var le *LineError
	if !errors.As(err, &le) {
		t.Fatalf("strict: %v", err)
	}
	if le.File != "log.jsonl" || le.Line != 3 || le.Reason != "not a JSON object" || le.Error() != "log.jsonl:3: not a JSON object" {
		t.Errorf("strict error %+v", *le)
	}
	if len(eps) != 1 || eps[0].RecordedTurns() != 1 {
		t.Errorf("strict: episodes read so far %v", rtIDs(eps))
	}
	// Strict with an invalid relevant line.
	in := rtTurn("E", 1, "n", 0, "Dam", 1) + `{"event_type": "turn_completed", "turn": 2, "score": }` + "\n"
	_, err = Read(strings.NewReader(in), "f", "d", Options{Strict: true})
	if !errors.As(err, &le) || le.Line != 3 || !strings.HasPrefix(le.Reason, "invalid JSON") {
		t.Errorf("strict invalid JSON: %v", err)
	}
	// Strict does not fail on irrelevant or event-less lines.
	in = rtTurn("E", 1, "n", 0, "Dam", 1) + `{"event_type": "zork_response", "x": }` + "\n{}\n" + `{"message": "hi"}` + "\n"
	if _, err := Read(strings.NewReader(in), "f", "d", Options{Strict: true}); err != nil {
		t.Errorf("strict on irrelevant lines: %v", err)
	}
}

// The pooled read buffers are safe under concurrent reads.
func TestReadConcurrent(t *testing.T) {
	in := rtTurn("E", 1, "n", 0, "Dam", 1) + rtNoise(1<<20+5) + "\n" + rtTurn("E", 2, "n", 1, "Dam", 1)
	z := rtGzip(t, []byte(in))
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var r io.Reader = strings.NewReader(in)
			if i%2 == 1 {
				r = bytes.NewReader(z)
			}
			eps, err := Read(r, "x", "d", Options{})
			if err != nil || len(eps) != 1 || eps[0].RecordedTurns() != 2 || eps[0].Diag.Lines != 5 {
				t.Errorf("reader %d: %v", i, err)
			}
		}(i)
	}
	wg.Wait()
}

// Generated fixtures: the two incidents read as documented.
func TestReadIncidentFixtures(t *testing.T) {
	for _, tc := range []struct {
		dir    string
		turns  int
		end    string
		scores map[int]float64
	}{
		{"2025-11-03T12-38-53", 341, EndMaxTurns, map[int]float64{105: 40, 200: 40, 340: 40}},
		{"2025-11-04T09-35-24", 273, EndMaxTurns, map[int]float64{21: 10, 89: 10, 103: 39, 148: 39, 149: 44, 250: 44}},
	} {
		path := filepath.Join("..", "testdata", "episodes", tc.dir, "episode_log.jsonl")
		eps, err := ReadFile(path, nil, Options{Strict: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(eps) != 1 {
			t.Fatalf("%s: %d episodes", tc.dir, len(eps))
		}
		ep := eps[0]
		if ep.RecordedTurns() != tc.turns || ep.RecordedEnd != tc.end || ep.Diag.Skipped != 0 || ep.Diag.Gaps != 0 {
			t.Errorf("%s: turns %d end %s skipped %d gaps %d", tc.dir, ep.RecordedTurns(), ep.RecordedEnd, ep.Diag.Skipped, ep.Diag.Gaps)
		}
		if ep.LocationKey != KeyRoomID {
			t.Errorf("%s: key %s", tc.dir, ep.LocationKey)
		}
		for n, s := range tc.scores {
			if got := ep.Turn(n).Score; got != s {
				t.Errorf("%s: score(%d) = %v, want %v", tc.dir, n, got, s)
			}
		}
		for i := range ep.Turns {
			tr := ep.Row(&ep.Turns[i])
			if tr.N != ep.Turns[0].N+i || !tr.HasAction || !tr.HasBase || tr.LocStart == "" || tr.LocEnd == "" {
				t.Fatalf("%s: row %d = %+v", tc.dir, i, tr)
			}
			if i > 0 && tr.LocStart != ep.Str(ep.Turns[i-1].LocEnd) {
				t.Fatalf("%s: turn %d starts at %s, previous ended at %s", tc.dir, tr.N, tr.LocStart, ep.Str(ep.Turns[i-1].LocEnd))
			}
		}
	}
}

// A turn_completed without a turn number is a skipped line, and so an error
// with Strict.
func TestStrictTurnCompletedWithoutTurn(t *testing.T) {
	in := rtTurn("E", 1, "n", 0, "Dam", 1) + rtLine("turn_completed", "score", 3, "location", "Dam") + "\n"
	eps, err := Read(strings.NewReader(in), "f", "d", Options{})
	if err != nil || eps[0].Diag.Skipped != 1 {
		t.Fatalf("lenient: %v, skipped %d", err, eps[0].Diag.Skipped)
	}
	_, err = Read(strings.NewReader(in), "f", "d", Options{Strict: true})
	var le *LineError
	if !errors.As(err, &le) || le.Line != 3 {
		t.Errorf("strict: err %v; want a *LineError at f:3 for the line counted as skipped", err)
	}
}

// rtPadded is a turn_completed line of exactly n bytes.
func rtPadded(n, turn int) string {
	head := `{"message": "`
	tail := fmt.Sprintf(`", "event_type": "turn_completed", "turn": %d, "score": %d, "location": "Dam"}`, turn, turn)
	return head + strings.Repeat("p", n-len(head)-len(tail)) + tail
}

// Lines whose length, with or without their line end, falls on the read
// buffer's size or the scanner's.
func TestReadBufferBoundaries(t *testing.T) {
	for _, n := range []int{64<<10 - 1, 64 << 10, 64<<10 + 1, 1<<20 - 2, 1<<20 - 1, 1 << 20, 1<<20 + 1, 2<<20 - 1, 2 << 20} {
		for _, end := range []string{"\n", "\r\n", ""} {
			line := rtPadded(n, 2)
			if len(line) != n {
				t.Fatalf("padded line %d bytes", len(line))
			}
			in := rtPadded(200, 1) + "\n" + line + end
			if end != "" {
				in += rtPadded(300, 3) + end
			}
			eps, err := Read(strings.NewReader(in), "f", "d", Options{Strict: true})
			if err != nil {
				t.Fatalf("n=%d end=%q: %v", n, end, err)
			}
			ep := eps[0]
			want := 3
			if end == "" {
				want = 2
			}
			if ep.RecordedTurns() != want || ep.Diag.Gaps != 0 || ep.Diag.Lines != want {
				t.Errorf("n=%d end=%q: turns %d gaps %d lines %d", n, end, ep.RecordedTurns(), ep.Diag.Gaps, ep.Diag.Lines)
			}
			if tr := ep.Turn(2); tr == nil || tr.Score != 2 {
				t.Errorf("n=%d end=%q: turn 2 %+v", n, end, tr)
			}
		}
	}
}

// ---- streaming ----

// Stream emits each episode once the file has moved on from it, so a file
// of many episodes holds a few at a time; what it emits equals Read's.
func TestStreamFinishesEpisodes(t *testing.T) {
	var in strings.Builder
	const n = 50
	for i := range n {
		id := fmt.Sprintf("E%02d", i)
		in.WriteString(rtTurn(id, 1, "n", 0, "Dam", 1) + rtTurn(id, 2, "s", float64(i), "Hall", 1))
	}
	want, err := Read(strings.NewReader(in.String()), "x", "d", Options{})
	if err != nil || len(want) != n {
		t.Fatalf("Read: %v, %d episodes", err, len(want))
	}
	var got []*Episode
	maxOpen := 0
	_, err = Stream(context.Background(), strings.NewReader(in.String()), "x", "d", Options{}, func(ep *Episode) error {
		got = append(got, ep)
		return nil
	})
	if err != nil || len(got) != n {
		t.Fatalf("Stream: %v, %d episodes", err, len(got))
	}
	for i := range got {
		if got[i].ID != want[i].ID || got[i].FinalScore() != want[i].FinalScore() || len(got[i].Turns) != 2 {
			t.Errorf("episode %d: %s final %v, want %s final %v", i, got[i].ID, got[i].FinalScore(), want[i].ID, want[i].FinalScore())
		}
	}
	// Bounded: the collector holds at most StreamOpenEpisodes+1 episodes.
	col := newCollector("x", "d")
	col.keepOpen = StreamOpenEpisodes
	col.emit = func(*Episode) error { return nil }
	for _, l := range strings.SplitAfter(in.String(), "\n") {
		col.line([]byte(strings.TrimSuffix(l, "\n")), 1, false)
		maxOpen = max(maxOpen, len(col.order), len(col.byID))
	}
	if maxOpen > StreamOpenEpisodes+2 {
		t.Errorf("%d episodes open at once, want at most %d", maxOpen, StreamOpenEpisodes+2)
	}
}

// Interleaved episodes within StreamOpenEpisodes stay one episode each.
func TestStreamInterleaved(t *testing.T) {
	in := rtTurn("A", 1, "n", 0, "Dam", 1) + rtTurn("B", 1, "n", 0, "Dam", 1) +
		rtTurn("A", 2, "n", 5, "Dam", 1) + rtTurn("B", 2, "n", 7, "Dam", 1)
	var got []string
	_, err := Stream(context.Background(), strings.NewReader(in), "x", "d", Options{}, func(ep *Episode) error {
		got = append(got, fmt.Sprintf("%s:%d:%v", ep.ID, ep.RecordedTurns(), ep.FinalScore()))
		return nil
	})
	if err != nil || strings.Join(got, " ") != "A:2:5 B:2:7" {
		t.Errorf("%v %v", err, got)
	}
}

// A file without loop-break events is a file error for Stream too, even
// when its lines name many episodes: none is emitted.
func TestStreamNoEvents(t *testing.T) {
	var in strings.Builder
	for i := range 30 {
		fmt.Fprintf(&in, `{"event_type": "zork_response", "episode_id": "E%d", "turn": 1}`+"\n", i)
	}
	n := 0
	_, err := Stream(context.Background(), strings.NewReader(in.String()), "x", "d", Options{}, func(*Episode) error { n++; return nil })
	if !errors.Is(err, ErrNoEvents) || n != 0 || err.Error() != "no loop-break events in x (30 lines, none a ZorkGPT event the rules use)" {
		t.Errorf("%d episodes, err %v", n, err)
	}
}

// emit's error stops reading and is returned.
func TestStreamEmitError(t *testing.T) {
	var in strings.Builder
	for i := range 20 {
		in.WriteString(rtTurn(fmt.Sprint("E", i), 1, "n", 0, "Dam", 1))
	}
	stop := errors.New("stop")
	calls := 0
	_, err := Stream(context.Background(), strings.NewReader(in.String()), "x", "d", Options{}, func(*Episode) error {
		calls++
		return stop
	})
	if err != stop || calls != 1 {
		t.Errorf("err %v after %d calls", err, calls)
	}
}

// The hash is SHA-256 of the bytes as stored (the gzip bytes for a gzip
// file), computed in the same read; a pipe is read once.
func TestStreamHash(t *testing.T) {
	plain := []byte(rtTurn("E", 1, "n", 0, "Dam", 1) + rtNoise(3<<20) + "\n")
	for name, data := range map[string][]byte{"plain": plain, "gzip": rtGzip(t, plain)} {
		sum := sha256.Sum256(data)
		want := "sha256:" + hex.EncodeToString(sum[:])
		st, err := Stream(context.Background(), iotest.HalfReader(bytes.NewReader(data)), "x", "d", Options{Hash: true}, func(*Episode) error { return nil })
		if err != nil || st.Hash != want || st.Bytes != int64(len(data)) {
			t.Errorf("%s: %v, hash %s bytes %d; want %s %d", name, err, st.Hash, st.Bytes, want, len(data))
		}
		if st, _ := Stream(context.Background(), bytes.NewReader(data), "x", "d", Options{}, func(*Episode) error { return nil }); st.Hash != "" {
			t.Errorf("%s: hash %q without Options.Hash", name, st.Hash)
		}
	}
}
