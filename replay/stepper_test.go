package replay

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
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

// takenWhole is what a historyTaker takes stepping every turn of ep,
// read whole.
func takenWhole(ep *Episode) *historyTaker {
	h := &historyTaker{}
	for i := range ep.Turns {
		h.Step(ep, i)
	}
	return h
}

// mustHaveTaken fails t, naming what and the first difference, unless
// got took what want took.
func mustHaveTaken(t *testing.T, what string, got, want *historyTaker) {
	t.Helper()
	if reflect.DeepEqual(got.took, want.took) {
		return
	}
	for i := range min(len(got.took), len(want.took)) {
		if got.took[i] != want.took[i] {
			t.Fatalf("%s: at %d:\n got %s\nwant %s", what, i, got.took[i], want.took[i])
		}
	}
	t.Fatalf("%s: took %d, want %d", what, len(got.took), len(want.took))
}

func (h *historyTaker) Step(ep *Episode, i int) {
	t := &ep.Turns[i]
	h.took = append(h.took, fmt.Sprintf("turn %+v canonical %q output %q", ep.Row(t), ep.Str(ep.Steps[i].Canonical), ep.Output(t.N)))
	for ; h.next < len(ep.OpenHands) && int(ep.OpenHands[h.next].N) <= t.N; h.next++ {
		e := ep.OpenHands[h.next]
		h.took = append(h.took, fmt.Sprintf("v0 %d %d %v %v %d %q %q", e.N, e.Class, e.InHistory, e.Ask, e.Depth, ep.HistoryStr(e.Key), ep.HistoryStr(e.Text)))
	}
	for evs := ep.V1Events(h.next); len(evs) > 0 && int(evs[0].N) <= t.N; evs, h.next = evs[1:], h.next+1 {
		e := evs[0]
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
// is read gives each turn its row (its action), canonical call and output
// and the history events, strings and all, it has once read whole, also
// when the history's table and the actions' are made anew every few
// hundred bytes and the V1 events replayed are let go every few, and its
// keys are equal where the keys of the log read whole are (V1 writes them
// in full then, not keyed).
func TestHistoryTableRenewed(t *testing.T) {
	defer func(n, a, v int) { historyTable, actionTable, v1EventsKept = n, a, v }(historyTable, actionTable, v1EventsKept)
	rng := rand.New(rand.NewPCG(24, 3))
	renewed, actsRenewed, dropped := 0, 0, 0
	for trial := range 80 {
		data := replaytest.OpenHandsLog(rng, 10+rng.IntN(400))
		if trial%2 == 1 {
			data = replaytest.V1Log(rng, 10+rng.IntN(400))
			if trial%3 == 0 {
				data = replaytest.V1LogDistinct(rng, 10+rng.IntN(400))
			}
		}
		historyTable = []int{1, 300, 4096, 8 << 20}[trial%4]
		actionTable = []int{1, 200, 8 << 20}[trial%3]
		v1EventsKept = []int{0, 1, 7, 4096, 1 << 30}[trial%5]
		whole, err := Read(bytes.NewReader(data), "x.jsonl", "x", Options{Format: FormatAuto})
		if err != nil || len(whole) != 1 {
			t.Fatal(len(whole), err)
		}
		want := takenWhole(whole[0])
		got := &historyTaker{}
		var first, firstAct *byte // the tables' first chunks: another once a table is made anew
		read, err := Read(bytes.NewReader(data), "x.jsonl", "x", Options{Format: FormatAuto, Stepper: func(ep *Episode) TurnStepper {
			return stepFunc(func(ep *Episode, i int) {
				if len(ep.hist.chunks) > 0 && unsafe.SliceData(ep.hist.chunks[0]) != first {
					if first != nil {
						renewed++
					}
					first = unsafe.SliceData(ep.hist.chunks[0])
				}
				if len(ep.acts.chunks) > 0 && unsafe.SliceData(ep.acts.chunks[0]) != firstAct {
					if firstAct != nil {
						actsRenewed++
					}
					firstAct = unsafe.SliceData(ep.acts.chunks[0])
				}
				got.Step(ep, i)
			})
		}})
		if err != nil || len(read) != 1 || read[0].Stepped == nil || !read[0].streamed {
			t.Fatal(len(read), err)
		}
		dropped += read[0].V1Dropped
		mustHaveTaken(t, fmt.Sprintf("trial %d (table of %d bytes)", trial, historyTable), got, want)
	}
	t.Logf("the history's table was made anew %d times, the actions' %d; %d V1 events let go", renewed, actsRenewed, dropped)
	if renewed < 100 || actsRenewed < 100 || dropped < 1000 {
		t.Errorf("the history's table was made anew only %d times, the actions' %d; only %d V1 events let go", renewed, actsRenewed, dropped)
	}
}

// TestActionTableRenewed: every committed agent and steps log, and
// random ones, replayed as read (a Gemini CLI recording, Claude Code,
// Codex, Cline and SWE-agent sessions: their canonical calls too) gives
// each turn the row and canonical call it has once read whole, also
// when the actions' table is made anew at every turn or every few
// hundred bytes.
func TestActionTableRenewed(t *testing.T) {
	defer func(a int) { actionTable = a }(actionTable)
	files := replaytest.CommittedAgentLogs(filepath.Join("..", "testdata"))
	rng := rand.New(rand.NewPCG(24, 5))
	tmp := t.TempDir()
	for i := range 20 {
		path := filepath.Join(tmp, fmt.Sprintf("random-%d.jsonl", i))
		data := replaytest.StepsLog(rng, 1+rng.IntN(300), -1)
		if i%2 == 1 {
			path = filepath.Join(tmp, fmt.Sprintf("session-%d.jsonl", i))
			data = replaytest.GeminiLog(rng, 5+rng.IntN(300), false, false, false)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	stepped, canonicals, renewed := 0, 0, 0
	for _, f := range files {
		for _, bound := range []int{1, 200} {
			actionTable = bound
			whole, err := ReadFile(f, nil, Options{Format: FormatAuto})
			if err != nil {
				continue // not a log these read
			}
			takers := map[*Episode]*historyTaker{}
			read, err := ReadFile(f, nil, Options{Format: FormatAuto, Stepper: func(ep *Episode) TurnStepper {
				h := &historyTaker{}
				takers[ep] = h
				var first *byte
				return stepFunc(func(ep *Episode, i int) {
					if len(ep.acts.chunks) > 0 && unsafe.SliceData(ep.acts.chunks[0]) != first {
						renewed++
						first = unsafe.SliceData(ep.acts.chunks[0])
					}
					if c := ep.Steps[i].Canonical; c != 0 && ep.Str(c) != ep.Str(ep.Turns[i].Action) {
						canonicals++
					}
					h.Step(ep, i)
				})
			}})
			if err != nil || len(read) != len(whole) {
				t.Fatalf("%s: read whole: %d episodes; replayed as read: %d, %v", f, len(whole), len(read), err)
			}
			for k, ep := range read {
				got := takers[ep]
				if ep.Stepped == nil || got == nil {
					continue
				}
				stepped++
				mustHaveTaken(t, fmt.Sprintf("%s (table of %d bytes)", f, bound), got, takenWhole(whole[k]))
			}
		}
	}
	t.Logf("%d episodes replayed as read, %d canonical calls other than their actions, the table made anew %d times", stepped, canonicals, renewed)
	if stepped < 40 || canonicals < 20 || renewed < 1000 {
		t.Errorf("%d episodes replayed as read, %d canonical calls other than their actions, the table made anew %d times", stepped, canonicals, renewed)
	}
}

// TestActionTableRenewedBehind: turns added but not yet replayed when
// the actions' table is made anew (an OpenHands history's, replayed
// once an event of a later step is recorded) keep their action and
// canonical call; those replayed are let go.
func TestActionTableRenewedBehind(t *testing.T) {
	defer func(a int) { actionTable = a }(actionTable)
	actionTable = 1
	tab := newStepTable("x", "x.jsonl")
	var took, want []string
	tab.stepper = stepFunc(func(ep *Episode, i int) {
		took = append(took, ep.Str(ep.Turns[i].Action)+" "+ep.Str(ep.Steps[i].Canonical))
	})
	tab.mode, tab.ep.Stepped, tab.ep.streamed = stepBehind, tab.stepper, true
	for n := 1; n <= 50; n++ {
		if n%4 == 0 {
			tab.ep.OpenHandsV1 = append(tab.ep.OpenHandsV1, OpenHandsV1Event{N: int32(n)})
		}
		r := stepRecord{n: n, hasStep: true, hasAction: true, info: StepInfo{Kind: StepAction}, action: fmt.Sprintf("act %d", n), canonical: fmt.Sprintf("canon %d", n)}
		if reason := tab.add(r); reason != "" {
			t.Fatal(reason)
		}
		want = append(want, r.action+" "+r.canonical)
	}
	if tab.stepped != 47 {
		t.Fatalf("%d turns replayed before the end, want 47", tab.stepped)
	}
	tab.stepRest()
	if !reflect.DeepEqual(took, want) {
		t.Fatalf("took\n%q\nwant\n%q", took, want)
	}
	for i := range tab.ep.Turns[:tab.actsZeroed] {
		if tab.ep.Turns[i].Action != 0 || tab.ep.Steps[i].Canonical != 0 {
			t.Fatalf("turn %d of %d let go keeps its action", i, tab.actsZeroed)
		}
	}
	if tab.actsZeroed < 45 {
		t.Errorf("only %d turns let go", tab.actsZeroed)
	}
}

// TestV1SessionBytes: an OpenHands V1 session replayed as it is read
// holds its turn table and a bounded few of its actions, history strings
// and events, however many of its actions are distinct (an agent's calls
// with their arguments nearly all are): a table that kept every action
// held 16 MB of a 200 MB session, its events list 6.5 MB. The tables'
// bounds are lowered so that a small log crosses them many times.
func TestV1SessionBytes(t *testing.T) {
	defer func(n, a int) { historyTable, actionTable = n, a }(historyTable, actionTable)
	historyTable, actionTable = 64<<10, 64<<10
	rng := rand.New(rand.NewPCG(24, 6))
	path := filepath.Join(t.TempDir(), "v1.jsonl")
	if err := os.WriteFile(path, replaytest.V1LogDistinct(rng, 120_000), 0o644); err != nil {
		t.Fatal(err)
	}
	actions := 0 // bytes of the actions replayed
	opts := Options{Format: FormatAuto, Stepper: func(*Episode) TurnStepper {
		return stepFunc(func(ep *Episode, i int) { actions += len(ep.Str(ep.Turns[i].Action)) })
	}}
	if _, err := Read(strings.NewReader(`{"id":"e","source":"agent","kind":"MessageEvent"}`+"\n"), "x.jsonl", "x", opts); err != nil {
		t.Fatal(err) // a read first: what readers keep between reads is not counted
	}
	var eps []*Episode
	var err error
	held := int(heldBy(func() { eps, err = ReadFile(path, nil, opts) }))
	if err != nil || len(eps) != 1 || eps[0].Stepped == nil || eps[0].Preset != PresetOpenHandsV1 {
		t.Fatal(len(eps), err)
	}
	ep := eps[0]
	rows := cap(ep.Turns)*int(unsafe.Sizeof(Turn{})) + cap(ep.Steps)*int(unsafe.Sizeof(StepInfo{}))
	t.Logf("%d steps, %d V1 events (%d held), %d bytes of actions; %d bytes held, %d besides the rows", len(ep.Turns), ep.V1Dropped+len(ep.OpenHandsV1), len(ep.OpenHandsV1), actions, held, held-rows)
	if actions < 3<<20 {
		t.Fatalf("only %d bytes of actions: the log does not test the bound", actions)
	}
	if held-rows > 1<<20 {
		t.Errorf("%d bytes held besides the turn table's rows, want at most 1 MiB (the actions are %d bytes)", held-rows, actions)
	}
	runtime.KeepAlive(eps)
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

// TestGeminiHandedOverOnlyWhenRereadable: a Gemini CLI recording is
// replayed as it is read only from an input that can be read again should
// a later record take back a message handed over (then it is, and the
// episode comes read whole): a file, or a pipe ReadFile spools
// (TestGeminiPipeSpooled). Read of a bare io.Reader, which nothing reads
// again, holds it to its end. So is a session document.
func TestGeminiHandedOverOnlyWhenRereadable(t *testing.T) {
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
		{"reader.jsonl", replaytest.GeminiLog(rng, 300, false, false, false), false, false, false},
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
		t.Errorf("a session document from a reader: replayed as read %v, %v", err == nil && doc[0].Stepped != nil, err)
	}
}

// TestOutsQueue holds stepTable's queue of outputs (outs, outsHead,
// outsConsumed) to a plain slice used as a queue, over pushes and pops
// in runs that empty it, leave it half consumed and let it grow past
// keptOuts; a consumed slot must be cleared (a string let go). It fails
// when outsConsumed moves the queue off by one or keeps a slot.
func TestOutsQueue(t *testing.T) {
	var tab stepTable
	var ref []string
	n := 0
	push := func() {
		n++
		s := strconv.Itoa(n)
		tab.outs = append(tab.outs, s)
		ref = append(ref, s)
	}
	pop := func(k int) {
		for ; k > 0 && len(ref) > 0; k-- {
			got := tab.outs[tab.outsHead]
			tab.outs[tab.outsHead] = ""
			tab.outsHead++
			if got != ref[0] {
				t.Fatalf("popped %q, want %q", got, ref[0])
			}
			ref = ref[1:]
		}
		tab.outsConsumed()
		if tab.outsHead > len(tab.outs)/2 {
			t.Fatalf("%d of a queue of %d consumed and kept", tab.outsHead, len(tab.outs))
		}
		if got := tab.outs[tab.outsHead:]; !slices.Equal(got, ref) {
			t.Fatalf("queue %q, want %q", got, ref)
		}
		for i, s := range tab.outs[:tab.outsHead] {
			if s != "" {
				t.Fatalf("consumed slot %d holds %q", i, s)
			}
		}
		for i, s := range tab.outs[len(tab.outs):cap(tab.outs)] {
			if s != "" {
				t.Fatalf("slot %d past the queue holds %q", len(tab.outs)+i, s)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 3000 {
		switch {
		case round%500 == 0: // a lag: many queued, then all taken
			for range keptOuts + 10 {
				push()
			}
			pop(len(ref))
			if cap(tab.outs) > keptOuts {
				t.Fatalf("an emptied queue keeps capacity %d", cap(tab.outs))
			}
		default:
			for range rng.IntN(4) {
				push()
			}
			pop(rng.IntN(4))
		}
	}
}
