package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// compact runs a line through the compactor in chunks of size n.
func compact(line []byte, n int) ([]byte, bool, *compactor) {
	c := &compactor{}
	for i := 0; i < len(line); i += n {
		c.feed(line[i:min(len(line), i+n)])
	}
	out, ok := c.end()
	return out, ok, c
}

// A compacted line decodes to the same event as the whole line, whatever
// the chunking, and drops what the turn model never reads.
func TestCompactorKeepsWhatTheModelReads(t *testing.T) {
	noise := strings.Repeat(`x \"y\" \\ {[`, 1000)
	for _, line := range append(append([]string{}, rtSeedLines[:19]...),
		`{"message": "`+noise+`", "event_type": "turn_completed", "nested": {"a": [1, {"b": "}"}], "turn": 99}, "turn": 3, "score": 1e2, "location": "Dam", "extras": {"turn": 4, "x": {"episode_id": "Z"}}, "episode_id": "E"}`,
		`{"extras": {"event_type": "room_description_captured", "turn": 2, "location_id": 79}, "extras": {"location_id": 80}, "message": "m"}`,
		`{"event_type": "turn_completed", "event_type": 5, "turn": 1, "t\u0075rn": 2, "extras": {"turn": 3}, "extras": {"score": 1}}`,
		`{"episode\u005fid": "E", "event_type": "llm_call", "turn": -0, "big": [`+strings.Repeat(`"]", `, 500)+`"end"]}`,
	) {
		want, err := decodeLine([]byte(line))
		if err != nil {
			t.Fatalf("%.80s: %v", line, err)
		}
		for _, n := range []int{1, 7, 64, len(line)} {
			out, ok, _ := compact([]byte(line), n)
			if !ok {
				t.Fatalf("chunks of %d: %.80s: not ok", n, line)
			}
			got, err := decodeLine(out)
			if err != nil {
				t.Fatalf("chunks of %d: compacted %s: %v", n, out, err)
			}
			if g, w := rtWire(got), rtWire(want); g != w {
				t.Errorf("chunks of %d: %.60s\n got %s\nwant %s", n, line, g, w)
			}
		}
	}
}

// rtWire prints the fields of a decoded line.
func rtWire(w *wireEvent) string {
	b, _ := json.Marshal(w)
	return string(b)
}

func TestCompactorBroken(t *testing.T) {
	for _, line := range []string{
		`[1, 2]`, `{"a": 1`, `{"a" 1}`, `{"a": "x}`, `{"a": 1} x`, `{"a": {"b": 1}`, `"x"`, ``, `{"turn": 1,`,
	} {
		if out, ok, _ := compact([]byte(line), 3); ok {
			t.Errorf("%q: compacted to %s, want broken", line, out)
		}
	}
	if out, ok, _ := compact([]byte("\xef\xbb\xbf  {\"turn\": 2} \r"), 5); !ok || string(out) != `{"turn": 2}` {
		t.Errorf("BOM and spaces: %s %v", out, ok)
	}
}

// Lines longer than the read buffer: relevant ones are read, the rest
// skipped without being held, and broken ones reported as short ones are.
func TestReadLongLinesCompacted(t *testing.T) {
	big := rtNoise(3 << 20)
	in := rtLine("turn_completed", "episode_id", "E", "turn", 1, "score", 5, "location", "Dam", "blob", big) + "\n" + // relevant, 3 MB
		rtLine("zork_response", "episode_id", "E", "turn", 1, "zork_response", big) + "\n" + // irrelevant
		`{"message": "` + big + `", "event_type": "turn_completed", "turn": 2, "score": 6` + "\n" + // cut
		`{"event_type": "turn_completed", "turn": 3, "location": "` + strings.Repeat("D", MaxFieldBytes+1) + `"}` + "\n" +
		rtLine("turn_completed", "turn", 4, "score", 7, "location", "Dam") + "\n" +
		`{"message": "` + big + `", "event_type": "turn_completed", "turn": 5, "score": 9, "location": "Dam"`
	eps := rtRead(t, in, Options{})
	ep := eps[0]
	if ep.ID != "E" || ep.RecordedTurns() != 4 || ep.Turn(1).Score != 5 || ep.Diag.Skipped != 3 || ep.Diag.Lines != 6 {
		t.Fatalf("%s: %d turns, skipped %d, lines %d, %q", ep.ID, ep.RecordedTurns(), ep.Diag.Skipped, ep.Diag.Lines, ep.Diag.Problems)
	}
	rtWantProblem(t, ep.Diag, "log.jsonl:3: not a JSON object")
	rtWantProblem(t, ep.Diag, fmt.Sprintf("log.jsonl:4: field \"location\" longer than %d bytes", MaxFieldBytes))
	rtWantProblem(t, ep.Diag, "log.jsonl:6: truncated final line (crashed run?)")
}

// BenchmarkLongIrrelevantLine reads a 64 MiB noise line: its allocations
// stay those of the read buffer, not the line (see -benchmem).
func BenchmarkLongIrrelevantLine(b *testing.B) {
	line := []byte(rtLine("knowledge_base_dump", "episode_id", "E", "turn", 1, "message2", rtNoise(64<<20)) + "\n" + rtTurn("E", 1, "n", 0, "Dam", 1))
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(line), "x", "d", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// A line repeating a kept key keeps one value per key, not one per
// repetition: it cannot make a long line expensive.
func TestCompactorDuplicateKeys(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"event_type": "turn_completed"`)
	for i := range 1000 {
		fmt.Fprintf(&b, `, "action": "%s%d"`, strings.Repeat("a", 1000), i)
	}
	b.WriteString(`, "turn": 1}`)
	out, ok, _ := compact([]byte(b.String()), 4096)
	if !ok || len(out) > 1100 || !strings.Contains(string(out), "a999") {
		t.Errorf("ok %v, %d bytes kept: want the last action only", ok, len(out))
	}
}
