package replay

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/replay/replaytest"
)

// pipe is an io.Reader that is not a file: what standard input is to
// readFile when it is a pipe, read 64 KiB at most at a time.
type pipe struct{ r io.Reader }

func (p *pipe) Read(b []byte) (int, error) { return p.r.Read(b[:min(len(b), 64<<10)]) }

// turnsTaken reads data from a pipe (ReadFile "-") with a stepper that
// notes each turn it is given (readTaken), and wants one episode.
func turnsTaken(t *testing.T, data []byte) (eps []*Episode, took []string) {
	t.Helper()
	eps, took, err := readTaken("-", &pipe{bytes.NewReader(data)})
	if err != nil || len(eps) != 1 {
		t.Fatalf("%d episodes, %v", len(eps), err)
	}
	return eps, took
}

// readTaken is ReadFile(path, r) with a stepper that notes each turn it is
// given (its step, action and output): the turns stepped while the input
// was read, as wholeTurns notes a whole read's.
func readTaken(path string, r io.Reader) (eps []*Episode, took []string, err error) {
	eps, err = ReadFile(path, r, Options{Format: FormatAuto, Stepper: func(*Episode) TurnStepper {
		return stepFunc(func(ep *Episode, i int) {
			tr := ep.Turns[i]
			took = append(took, fmt.Sprintf("%d %q %q", tr.N, ep.Str(tr.Action), ep.Output(tr.N)))
		})
	}})
	return eps, took, err
}

// wholeTurns is each turn of a session read whole, as turnsTaken notes it.
func wholeTurns(t *testing.T, data []byte) (*Episode, []string) {
	t.Helper()
	whole, err := Read(bytes.NewReader(data), "-", "stdin", Options{Format: FormatAuto, Outputs: true})
	if err != nil || len(whole) != 1 {
		t.Fatalf("read whole: %d episodes, %v", len(whole), err)
	}
	ep := whole[0]
	var turns []string
	for _, tr := range ep.Turns {
		turns = append(turns, fmt.Sprintf("%d %q %q", tr.N, ep.Str(tr.Action), ep.Output(tr.N)))
	}
	return ep, turns
}

// TestGeminiPipeSpooled: a Gemini CLI recording or session document read
// from a pipe is replayed as it is read, as from a file: its turns are
// handed over with the rows and outputs a whole read gives them. One whose
// later record takes back a message handed over ("$set" of the messages,
// a message written again past the window) is read again from the spool
// and the rest of the pipe, and comes out as a whole read does.
func TestGeminiPipeSpooled(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	rng := rand.New(rand.NewPCG(24, 1))
	session, err := os.ReadFile(filepath.Join("..", "testdata", "steps", "gemini-cli", "session.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Many MB, so that a record half-way through is read well before the
	// pipe's end (the reader reads 1 MiB ahead).
	plain := replaytest.GeminiLog(rng, 12000, false, false, false)
	for _, c := range []struct {
		name string
		data []byte
		back bool // a later record takes back a message handed over
	}{
		{"plain.jsonl", plain, false},
		{"session.json", session, false},
		{"replaced.jsonl", insertHalfway(plain, `{"$set":{"messages":[{"id":"z","timestamp":"2025-11-12T14:00:00.000Z","type":"gemini","content":"Starting over."}]}}`+"\n"), true},
		{"rewound.jsonl", rewindHalf(t, plain), true},
		{"rewritten.jsonl", rewriteFirst(t, plain), true},
	} {
		want, wantTurns := wholeTurns(t, c.data)
		eps, took := turnsTaken(t, c.data)
		if len(took) == 0 {
			t.Errorf("%s: no turn handed over as the pipe was read", c.name)
		}
		if !c.back {
			if eps[0].Stepped == nil || !reflect.DeepEqual(took, wantTurns) {
				t.Errorf("%s: replayed as read %v; %d turns stepped, want %d as read whole", c.name, eps[0].Stepped != nil, len(took), len(wantTurns))
			}
			continue
		}
		// Read again whole: the same episode as a whole read, but for the
		// outputs, which a read with a stepper does not keep.
		got := eps[0]
		if got.Stepped != nil {
			t.Errorf("%s: not read again whole", c.name)
		}
		got.Outputs, want.Outputs = nil, nil
		if !reflect.DeepEqual(got.Turns, want.Turns) || !reflect.DeepEqual(got.Steps, want.Steps) || !reflect.DeepEqual(got.Diag, want.Diag) {
			t.Errorf("%s: read again from the spool: %d turns, %+v; read whole: %d turns, %+v", c.name, len(got.Turns), got.Diag, len(want.Turns), want.Diag)
		}
	}
}

// insertHalfway is data with rec inserted between its records half-way.
func insertHalfway(data []byte, rec string) []byte {
	lines := strings.SplitAfter(string(data), "\n")
	half := len(lines) / 2
	return []byte(strings.Join(lines[:half], "") + rec + strings.Join(lines[half:], ""))
}

// rewriteFirst is data with its first gemini message written again
// half-way, past the window: a message handed over changed.
func rewriteFirst(t *testing.T, data []byte) []byte {
	t.Helper()
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if strings.Contains(line, `"type":"gemini"`) {
			return insertHalfway(data, strings.Replace(line, `"content":`, `"content":"rewritten",  "x":`, 1))
		}
	}
	t.Fatal("no gemini message")
	return nil
}

// rewindHalf is data with a "$rewindTo" half-way to a user message a
// quarter through it: the messages handed over after it taken back.
func rewindHalf(t *testing.T, data []byte) []byte {
	t.Helper()
	lines := strings.SplitAfter(string(data), "\n")
	for _, line := range lines[len(lines)/4:] {
		if strings.HasPrefix(line, `{"id":"u`) {
			id := line[len(`{"id":"`):]
			id = id[:strings.IndexByte(id, '"')]
			return insertHalfway(data, fmt.Sprintf(`{"$rewindTo":%q}`+"\n", id))
		}
	}
	t.Fatal("no user message")
	return nil
}

// TestGeminiPipeSpoolLeftBehind: the spool of a pipe is gone once the
// read ends, whether the replay as read held or the input was read again;
// where no spool can be made (TMPDIR missing), the session is held to its
// end as before and read all the same.
func TestGeminiPipeSpoolLeftBehind(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 10))
	plain := replaytest.GeminiLog(rng, 500, false, false, false)
	for _, data := range [][]byte{plain, rewindHalf(t, plain), []byte(`{"step":1,"action":"ls","output":"x"}` + "\n")} {
		tmp := t.TempDir()
		t.Setenv("TMPDIR", tmp)
		if _, err := ReadFile("-", &pipe{bytes.NewReader(data)}, Options{Format: FormatAuto, Stepper: func(*Episode) TurnStepper {
			return stepFunc(func(*Episode, int) {})
		}}); err != nil {
			t.Fatal(err)
		}
		if left, _ := os.ReadDir(tmp); len(left) > 0 {
			t.Errorf("left in TMPDIR: %v", left)
		}
		if open := openSpools(t); len(open) > 0 {
			t.Errorf("spools still open: %v", open)
		}
	}
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	eps, took := turnsTaken(t, plain)
	if eps[0].Stepped != nil || len(took) != 0 {
		t.Errorf("without a spool: replayed as read %v, %d turns stepped while read", eps[0].Stepped != nil, len(took))
	}
}

// openSpools names the spool files this process holds open (Linux's
// /proc; none known elsewhere).
func openSpools(t *testing.T) []string {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil
	}
	var open []string
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.Contains(target, "loopbreak-spill-") {
			open = append(open, target)
		}
	}
	return open
}
