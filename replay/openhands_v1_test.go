package replay

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/rules/detect"
)

// A V1 log (testdata/openhands/v1-stuck.jsonl, in the shape of the SDK's
// own fixture tests/sdk/conversation/goal/fixtures/events.jsonl): status
// updates, the system prompt, a user message, four ls-like calls and the
// stuck status.
func TestOpenHandsV1Events(t *testing.T) {
	eps, err := ReadFile("../testdata/openhands/v1-stuck.jsonl", nil, Options{Format: FormatAuto})
	if err != nil {
		t.Fatal(err)
	}
	ep := eps[0]
	if ep.Preset != PresetOpenHandsV1 || len(ep.Turns) != 4 {
		t.Fatalf("preset %s, %d steps", ep.Preset, len(ep.Turns))
	}
	var got []string
	for _, e := range ep.OpenHandsV1 {
		s := fmt.Sprintf("%d:%d", e.N, e.Class)
		if e.Artifact {
			s += "a"
		}
		if e.Ask {
			s += "?"
		}
		got = append(got, s)
	}
	// The run loop checks before each step: after the user message's
	// status update (before the first call), after each observation, and
	// before the stuck status.
	want := "1:0a 1:0 1:5 1:0a? 1:1 1:2? 2:1 2:2? 3:1 3:2? 4:1 4:2? 4:0a"
	if strings.Join(got, " ") != want {
		t.Errorf("events %q\nwant     %q", strings.Join(got, " "), want)
	}
	if len(ep.Live) != 1 || ep.Live[0].Kind != LiveOpenHandsV1Stuck || ep.Live[0].Turn != 4 {
		t.Errorf("live %+v", ep.Live)
	}
	for i := range ep.Steps {
		if c, ok := ep.ExitCode(i); !ok || c != 1 {
			t.Errorf("step %d: %+v, want exit code 1", i+1, ep.Steps[i])
		}
	}
}

// The V1 event store: conversations/<id>/events/event-<idx>-<id>.json, in
// idx order (00010 after 00009, 100000 after 99999).
func TestOpenHandsV1EventStore(t *testing.T) {
	data, err := os.ReadFile("../testdata/openhands/v1-nudge.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	dir := filepath.Join(t.TempDir(), "conversations", "c0ffee", "events")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	idx := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 99999, 100000}
	if len(lines) != len(idx) {
		t.Fatalf("%d lines", len(lines))
	}
	for i, l := range lines {
		name := fmt.Sprintf("event-%05d-%08x-0000-0000-0000-%012x.json", idx[i], i, i)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(l), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	eps, err := ReadFile(dir, nil, Options{Format: FormatAuto})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Read(bytes.NewReader(data), "x", "x", Options{Format: FormatAuto})
	if eps[0].ID != "c0ffee" || len(eps[0].Turns) != len(want[0].Turns) || len(eps[0].OpenHandsV1) != len(want[0].OpenHandsV1) {
		t.Errorf("%s: %d steps (want %d), %d events (want %d)", eps[0].ID, len(eps[0].Turns), len(want[0].Turns), len(eps[0].OpenHandsV1), len(want[0].OpenHandsV1))
	}
}

// FuzzReadOpenHandsV1: whatever the bytes, the V1 events belong to steps
// of the table, in order.
func FuzzReadOpenHandsV1(f *testing.F) {
	agentSeeds(f)
	for _, name := range []string{"v1-stuck.jsonl", "v1-nudge.jsonl"} {
		if data, err := os.ReadFile(filepath.Join("..", "testdata", "openhands", name)); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgentRead(t, data, Options{Format: FormatSteps, Preset: PresetOpenHandsV1})
		eps, err := Read(bytes.NewReader(data), "in.jsonl", "in", Options{Format: FormatSteps, Preset: PresetOpenHandsV1})
		if err != nil {
			return
		}
		for _, ep := range eps {
			first, last := int32(ep.Turns[0].N), int32(ep.Turns[len(ep.Turns)-1].N)
			prev := first
			for i, e := range ep.OpenHandsV1 {
				if e.N < prev || e.N > last {
					t.Fatalf("event %d at step %d: steps %d–%d, previous %d", i, e.N, first, last, prev)
				}
				prev = e.N
			}
		}
	})
}

// A conversation that branched (an event whose parent is not the event
// before it) is noted: the replay follows the log, not the active branch.
func TestOpenHandsV1Branched(t *testing.T) {
	log := `{"id":"a","source":"user","llm_message":{"role":"user","content":[{"type":"text","text":"go"}]},"parent_id":"__root__","kind":"MessageEvent"}
{"id":"b","source":"agent","llm_message":{"role":"assistant","content":[{"type":"text","text":"one"}]},"parent_id":"a","kind":"MessageEvent"}
{"id":"c","source":"agent","llm_message":{"role":"assistant","content":[{"type":"text","text":"other"}]},"parent_id":"a","kind":"MessageEvent"}
`
	eps, err := Read(strings.NewReader(log), "b.jsonl", "b", Options{Format: FormatAuto})
	if err != nil {
		t.Fatal(err)
	}
	if n := eps[0].Diag.Notes; len(n) != 1 || !strings.Contains(n[0], "branched conversation") {
		t.Errorf("notes %q", n)
	}
	eps, _ = Read(strings.NewReader(strings.Replace(log, `"text":"other"}]},"parent_id":"a"`, `"text":"other"}]},"parent_id":"b"`, 1)), "s.jsonl", "s", Options{Format: FormatAuto})
	if len(eps) != 1 || len(eps[0].Diag.Notes) != 0 {
		t.Errorf("a straight conversation noted: %v", eps[0].Diag.Notes)
	}
}

// BenchmarkV1ObsFields reads the fields of a fixture's observations a
// step takes (content, is_error, exit_code), with the record's index.
func BenchmarkV1ObsFields(b *testing.B) {
	data, err := os.ReadFile("../testdata/openhands/v1-stuck.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	o := &openHandsV1Reader{}
	var obs []rawValue
	var ixs []*valueIndex
	for _, l := range bytes.Split(data, []byte("\n")) {
		ix := new(valueIndex)
		if end := validValueIx(l, 0, ix); end > 0 {
			if v := ix.get(rawValue(l[:end]), "observation"); v.Kind() == '{' {
				obs, ixs = append(obs, v), append(ixs, ix)
			}
		}
	}
	for _, f := range []struct {
		name string
		read func(ix *valueIndex, v rawValue) rawValue
	}{
		{"obsFields", func(ix *valueIndex, v rawValue) rawValue { o.cur = ix; c, _, _ := o.obsFields(v); return c }},
		{"gets", func(ix *valueIndex, v rawValue) rawValue { // the reading before: a walk a field
			ix.get(v, "is_error")
			ix.get(v, "exit_code")
			return ix.get(v, "content")
		}},
	} {
		b.Run(f.name, func(b *testing.B) {
			n := 0
			for b.Loop() {
				for i, v := range obs {
					if f.read(ixs[i], v) != nil {
						n++
					}
				}
			}
			if n == 0 {
				b.Fatal("no content read")
			}
		})
	}
}

// FuzzV1UncomparedKeys holds the V1 detector to comparing no key but an
// action's or an observation's (keyCompared), reading no ID but an
// agent error's (idRead) and no source but a message's (sourceRead),
// which is why the reader writes no other: two
// detectors fed the same events, one with every event's key and ID and
// one with those of the other classes blanked, give the
// same check (and nudge) after each event, under small and default
// thresholds. Each pair of bytes is an event: its class, source, key,
// ID, tool and error from a few values, so that keys repeat.
func FuzzV1UncomparedKeys(f *testing.F) {
	f.Add([]byte{1, 0, 2, 0, 1, 0, 2, 0, 1, 0, 2, 0, 1, 0, 2, 0}, uint8(0))
	f.Add([]byte{5, 0x10, 5, 0x10, 5, 0x10, 5, 0x10, 6, 0, 5, 0x10}, uint8(1))
	f.Add([]byte{1, 1, 3, 1, 1, 1, 3, 1, 1, 1, 3, 1, 1, 1, 3, 1, 0, 2, 0, 2}, uint8(2))
	f.Fuzz(func(t *testing.T, seq []byte, small uint8) {
		cfg := detect.DefaultOpenHandsV1Config()
		if small%2 == 1 {
			cfg = detect.OpenHandsV1Config{ActionObservation: 2, ActionError: 1, Monologue: 1, AlternatingPattern: 3}
		}
		all, some := mustV1(t, cfg), mustV1(t, cfg)
		for i := 0; i+1 < len(seq) && i < 400; i += 2 {
			c, x := seq[i]%7, seq[i+1]
			e := detect.OpenHandsV1Event{Class: detect.V1Class(c), Source: []string{"agent", "user", "environment"}[x%3],
				Key: string('a' + rune(x>>2&3)), ID: string('0' + rune(i%5)), Tool: string('t' + rune(x>>4&1)), Error: string('e' + rune(x>>5&1))}
			blank := e
			if !keyCompared(OpenHandsV1Class(c)) {
				blank.Key = ""
			}
			if !idRead(OpenHandsV1Class(c)) {
				blank.ID = ""
			}
			if !sourceRead(OpenHandsV1Class(c)) {
				blank.Source = ""
			}
			all.Add(&e)
			some.Add(&blank)
			r1, n1 := all.Check()
			r2, n2 := some.Check()
			if r1 != r2 || n1 != n2 {
				t.Fatalf("event %d: %q %v with every key, %q %v without the uncompared ones", i/2, r1, n1, r2, n2)
			}
		}
	})
}

func mustV1(t *testing.T, cfg detect.OpenHandsV1Config) *detect.OpenHandsV1 {
	d, err := detect.NewOpenHandsV1(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// plainASCIIRef is plainASCII byte by byte.
func plainASCIIRef(b []byte) bool {
	for _, c := range b {
		if c > 0x7f || c == '\\' {
			return false
		}
	}
	return true
}

// TestPlainASCII holds plainASCII to the byte loop for every length up
// to 40 with each byte that matters (a backslash, bytes over 0x7f and
// those whose XOR with a backslash borrow or not) at every place, alone
// and after another.
func TestPlainASCII(t *testing.T) {
	for n := 0; n <= 40; n++ {
		b := bytes.Repeat([]byte{'a'}, n)
		if !plainASCII(b) {
			t.Fatalf("%q: not plain", b)
		}
		for i := 0; i < n; i++ {
			for _, c := range []byte{'\\', 0x7f, 0x80, 0x81, 0xdc, 0xdd, 0xff, 0x5d, 0x5b, 0x00, 0x01, '"'} {
				b[i] = c
				if got, want := plainASCII(b), plainASCIIRef(b); got != want {
					t.Fatalf("%q: %v, want %v", b, got, want)
				}
				if i > 0 {
					b[i-1] = 0x5d // a byte one above the backslash before it
					if got, want := plainASCII(b), plainASCIIRef(b); got != want {
						t.Fatalf("%q: %v, want %v", b, got, want)
					}
					b[i-1] = 'a'
				}
			}
			b[i] = 'a'
		}
	}
}

// FuzzPlainASCII holds plainASCII to the byte loop, and strView to Str.
func FuzzPlainASCII(f *testing.F) {
	f.Add([]byte(`00000000-0000-0000-0000-000000000001`))
	f.Add([]byte(`ObservationEvent\`))
	f.Add([]byte("caf\xc3\xa9 terminal"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := plainASCII(b), plainASCIIRef(b); got != want {
			t.Fatalf("%q: %v, want %v", b, got, want)
		}
		v := rawValue(strconv.Quote(string(b)))
		for _, v := range []rawValue{v, rawValue(`"` + string(b) + `"`)} {
			if validValue(v, 0) != len(v) {
				continue
			}
			s, ok := strView(v)
			ref, refOK := v.Str()
			if s != ref || ok != refOK {
				t.Fatalf("%q: strView %q %v, Str %q %v", v, s, ok, ref, refOK)
			}
		}
	})
}

// TestV1KindSource holds v1Kind and v1Source to strView, the reading
// they skip for a name written plainly: every kind and source the SDK
// writes, plainly and escaped, names near them, other values, none.
func TestV1KindSource(t *testing.T) {
	names := []string{"ActionEvent", "ObservationEvent", "MessageEvent", "ConversationStateUpdateEvent",
		"SystemPromptEvent", "AgentErrorEvent", "UserRejectObservation", "Condensation", "ConversationErrorEvent",
		"agent", "environment", "user", "Agent", "agent ", "", "ActionEven", "ActionEventt"}
	vals := []rawValue{nil, rawValue(`null`), rawValue(`1`), rawValue(`{}`), rawValue(`[]`), rawValue(`true`),
		rawValue(`"\u0041ctionEvent"`), rawValue(`"a\u0067ent"`), rawValue(`"agent\ud800"`),
		rawValue("\"agent\xff\""), rawValue("\"Action\xc3\xa9Event\""), rawValue(`"\"agent\""`)}
	for _, n := range names {
		vals = append(vals, rawValue(`"`+n+`"`))
		if n != "" {
			vals = append(vals, rawValue(`"\u00`+strconv.FormatInt(int64(n[0]), 16)+n[1:]+`"`))
		}
	}
	for _, v := range vals {
		want, wantOK := strView(v)
		if got, ok := v1Kind(v); got != want || ok != wantOK {
			t.Errorf("v1Kind(%s) = %q, %v; want %q, %v", v, got, ok, want, wantOK)
		}
		if got := v1Source(v); got != want {
			t.Errorf("v1Source(%s) = %q; want %q", v, got, want)
		}
	}
}
