package replay

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unsafe"

	"github.com/loopbreak/loopbreak/replay/replaytest"
)

// historyTaker takes an episode's turns and the OpenHands history events
// up to each, as the StuckDetectors' replays take them (rules: the
// events of steps up to the turn's, in order), and writes down what it
// took: the turn's row and output, each event with its strings spelled
// out.
type historyTaker struct {
	next int
	took []string
	keys map[string]int // a V1 key's first event: keys are compared by ==, and V1 writes them in full when replayed as read
}

func (h *historyTaker) Step(ep *Episode, i int) {
	t := &ep.Turns[i]
	h.took = append(h.took, fmt.Sprintf("turn %+v output %q", ep.Row(t), ep.Output(t.N)))
	for ; h.next < len(ep.OpenHands) && int(ep.OpenHands[h.next].N) <= t.N; h.next++ {
		e := ep.OpenHands[h.next]
		h.took = append(h.took, fmt.Sprintf("v0 %d %d %v %v %d %q %q", e.N, e.Class, e.InHistory, e.Ask, e.Depth, ep.HistoryStr(e.Key), ep.HistoryStr(e.Text)))
	}
	for ; h.next < len(ep.OpenHandsV1) && int(ep.OpenHandsV1[h.next].N) <= t.N; h.next++ {
		e := ep.OpenHandsV1[h.next]
		if h.keys == nil {
			h.keys = map[string]int{}
		}
		key, ok := h.keys[ep.HistoryStr(e.Key)]
		if !ok {
			key = h.next
			h.keys[ep.HistoryStr(e.Key)] = key
		}
		h.took = append(h.took, fmt.Sprintf("v1 %d %d %v %v %v %q key of event %d %q %q %q", e.N, e.Class, e.Ask, e.Artifact, e.Tree,
			ep.HistoryStr(e.Source), key, ep.HistoryStr(e.ID), ep.HistoryStr(e.Tool), ep.HistoryStr(e.Error)))
	}
}

// TestHistoryTableRenewed: an OpenHands log (V0 and V1) replayed as it
// is read gives each turn the output and the history events, strings
// and all, it has once read whole, also when the history's table is made
// anew every few hundred bytes, and its keys are equal where the keys of
// the log read whole are (V1 writes them in full then, not keyed).
func TestHistoryTableRenewed(t *testing.T) {
	defer func(n int) { historyTable = n }(historyTable)
	rng := rand.New(rand.NewPCG(24, 3))
	renewed := 0
	for trial := range 80 {
		data := replaytest.OpenHandsLog(rng, 10+rng.IntN(400))
		if trial%2 == 1 {
			data = replaytest.V1Log(rng, 10+rng.IntN(400))
		}
		historyTable = []int{1, 300, 4096, 8 << 20}[trial%4]
		whole, err := Read(bytes.NewReader(data), "x.jsonl", "x", Options{Format: FormatAuto})
		if err != nil || len(whole) != 1 {
			t.Fatal(len(whole), err)
		}
		want := &historyTaker{}
		for i := range whole[0].Turns {
			want.Step(whole[0], i)
		}
		got := &historyTaker{}
		var first *byte // the history table's first chunk: another once the table is made anew
		read, err := Read(bytes.NewReader(data), "x.jsonl", "x", Options{Format: FormatAuto, Stepper: func(ep *Episode) TurnStepper {
			return stepFunc(func(ep *Episode, i int) {
				if len(ep.hist.chunks) > 0 && unsafe.SliceData(ep.hist.chunks[0]) != first {
					if first != nil {
						renewed++
					}
					first = unsafe.SliceData(ep.hist.chunks[0])
				}
				got.Step(ep, i)
			})
		}})
		if err != nil || len(read) != 1 || read[0].Stepped == nil || !read[0].streamed {
			t.Fatal(len(read), err)
		}
		if !reflect.DeepEqual(got.took, want.took) {
			for i := range min(len(got.took), len(want.took)) {
				if got.took[i] != want.took[i] {
					t.Fatalf("trial %d (table of %d bytes): at %d:\n got %s\nwant %s", trial, historyTable, i, got.took[i], want.took[i])
				}
			}
			t.Fatalf("trial %d: took %d, want %d", trial, len(got.took), len(want.took))
		}
	}
	t.Logf("the history's table was made anew %d times", renewed)
	if renewed < 100 {
		t.Errorf("the history's table was made anew only %d times", renewed)
	}
}

type stepFunc func(ep *Episode, i int)

func (f stepFunc) Step(ep *Episode, i int) { f(ep, i) }

// TestStepTablePresized: a steps table past presizeAt turns read from a
// regular file is made at about the size the file's size says (within a
// few percent of its turns, not grown by append's quarters), and read as
// from a pipe, where nothing says the size.
func TestStepTablePresized(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 4))
	data := replaytest.StepsLog(rng, presizeAt*3/2, 1)
	path := filepath.Join(t.TempDir(), "steps.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	file, err := ReadFile(path, nil, Options{Format: FormatSteps})
	if err != nil {
		t.Fatal(err)
	}
	pipe, err := Read(bytes.NewReader(data), path, DefaultEpisodeID(path), Options{Format: FormatSteps})
	if err != nil {
		t.Fatal(err)
	}
	ep := file[0]
	if n := len(ep.Turns); n <= presizeAt || cap(ep.Turns) > n*115/100 || cap(ep.Steps) > n*115/100 {
		t.Errorf("%d turns in a table of %d (steps %d): not made at its size", n, cap(ep.Turns), cap(ep.Steps))
	}
	if !reflect.DeepEqual(spelledTable(ep), spelledTable(pipe[0])) {
		t.Error("the table read from the file differs from the one read from a pipe")
	}
}

func spelledTable(ep *Episode) []any {
	var rows []any
	for i := range ep.Turns {
		rows = append(rows, ep.Row(&ep.Turns[i]), ep.Output(ep.Turns[i].N), ep.Steps[i])
	}
	return rows
}

// TestGeminiHandedOverOnlyFromFiles: a Gemini CLI recording is replayed
// as it is read only from a file, which can be read again should a later
// record take back a message handed over (then it is, and the episode
// comes read whole); from a pipe it is held to its end. So is a session
// document.
func TestGeminiHandedOverOnlyFromFiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 5))
	dir := t.TempDir()
	nop := func(*Episode) TurnStepper { return stepFunc(func(*Episode, int) {}) }
	for _, c := range []struct {
		name     string
		data     []byte
		file     bool
		want     bool
		wantRead bool
	}{
		{"plain.jsonl", replaytest.GeminiLog(rng, 300, false, false, false), true, true, false},
		{"pipe.jsonl", replaytest.GeminiLog(rng, 300, false, false, false), false, false, false},
		{"replaced.jsonl", []byte(string(replaytest.GeminiLog(rng, 300, false, false, false)) + `{"$set":{"messages":[{"id":"z","timestamp":"2025-11-12T14:00:00.000Z","type":"gemini","content":"Starting over."}]}}` + "\n"), true, false, true},
	} {
		var eps []*Episode
		var err error
		if c.file {
			path := filepath.Join(dir, c.name)
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			eps, err = ReadFile(path, nil, Options{Format: FormatAuto, Stepper: nop})
		} else {
			eps, err = Read(bytes.NewReader(c.data), c.name, "x", Options{Format: FormatAuto, Stepper: nop})
		}
		if err != nil || len(eps) != 1 {
			t.Fatalf("%s: %d episodes, %v", c.name, len(eps), err)
		}
		if got := eps[0].Stepped != nil; got != c.want {
			t.Errorf("%s: replayed as read %v, want %v", c.name, got, c.want)
		}
		if c.wantRead && len(eps[0].Turns) != 1 {
			t.Errorf("%s: %d turns after the messages were replaced by one", c.name, len(eps[0].Turns))
		}
	}
	doc, err := ReadFile(filepath.Join("..", "testdata", "steps", "gemini-cli", "session.json"), nil, Options{Format: FormatAuto, Stepper: nop})
	if err != nil || doc[0].Stepped == nil {
		t.Errorf("a session document from a file: replayed as read %v, %v", err == nil && doc[0].Stepped != nil, err)
	}
	data, err := os.ReadFile(filepath.Join("..", "testdata", "steps", "gemini-cli", "session.json"))
	if err != nil {
		t.Fatal(err)
	}
	if doc, err := Read(bytes.NewReader(data), "session.json", "x", Options{Format: FormatAuto, Stepper: nop}); err != nil || doc[0].Stepped != nil {
		t.Errorf("a session document from a pipe: replayed as read %v, %v", err == nil && doc[0].Stepped != nil, err)
	}
}
