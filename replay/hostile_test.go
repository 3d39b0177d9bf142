package replay

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileLog is a committed ZorkGPT log, read as bytes.
func hostileLog(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "episodes", "2025-06-09T20-04-36", "episode_log.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A corrupt deflate stream after a valid gzip header is a file error
// naming the decoder's reason, not "no loop-break events … (empty)".
func TestCorruptDeflateIsNamed(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(hostileLog(t))
	zw.Close()
	good := buf.Bytes()
	bad := append(append(append([]byte{}, good[:10]...), bytes.Repeat([]byte{0xff, 0xff, 0xff, 0xfe}, 20)...), good[len(good)-8:]...)
	path := writeTemp(t, "episode_log.jsonl.gz", bad)
	eps, err := ReadFile(path, nil, Options{})
	if err == nil || !strings.Contains(err.Error(), "flate: corrupt input") || errors.Is(err, ErrNoEvents) || len(eps) != 0 {
		t.Fatalf("ReadFile: %d episodes, %v; want the flate error, no episode", len(eps), err)
	}
}

// A gzip member whose checksum fails is fatal for its content: the
// episodes read from it are not used (they were once analysed, with only
// a problem counted).
func TestGzipBadChecksumDropsTheMember(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(hostileLog(t))
	zw.Close()
	bad := bytes.Clone(buf.Bytes())
	bad[len(bad)-8] ^= 0xff // the CRC-32 of the trailer
	path := writeTemp(t, "episode_log.jsonl.gz", bad)
	eps, err := ReadFile(path, nil, Options{})
	if err == nil || !strings.Contains(err.Error(), "gzip: invalid checksum") || len(eps) != 0 {
		t.Fatalf("ReadFile: %d episodes, %v; want the checksum error and none", len(eps), err)
	}
	n := 0
	_, err = StreamFile(context.Background(), path, nil, Options{}, func(*Episode) error { n++; return nil })
	if err == nil || n != 0 {
		t.Fatalf("StreamFile: %d episodes emitted, %v", n, err)
	}
}

// A raw NUL between JSON tokens makes the line invalid: skipped and
// counted, wherever it is (once, between "event_type" and its value, it
// hid the event and the line was passed over as irrelevant).
func TestRawNULIsAProblem(t *testing.T) {
	lines := bytes.Split(hostileLog(t), []byte("\n"))
	target := -1
	for i, l := range lines {
		if bytes.Contains(l, []byte(`"event_type": "turn_completed"`)) {
			target = i
			break
		}
	}
	if target < 0 {
		t.Fatal("no turn_completed line")
	}
	for _, c := range []struct{ name, old, new string }{
		{"before the colon", `"event_type": "turn`, "\"event_type\"\x00: \"turn"},
		{"after the colon", `"event_type": "turn`, "\"event_type\":\x00 \"turn"},
		{"after the brace", `{`, "{\x00"},
	} {
		cp := make([][]byte, len(lines))
		copy(cp, lines)
		cp[target] = bytes.Replace(lines[target], []byte(c.old), []byte(c.new), 1)
		eps, err := Read(bytes.NewReader(bytes.Join(cp, []byte("\n"))), "log.jsonl", "d", Options{})
		if err != nil || len(eps) != 1 {
			t.Fatalf("%s: %d episodes, %v", c.name, len(eps), err)
		}
		if eps[0].Diag.Skipped != 1 {
			t.Errorf("%s: %d lines skipped, want 1", c.name, eps[0].Diag.Skipped)
		}
		rtWantProblem(t, eps[0].Diag, fmt.Sprintf("log.jsonl:%d: invalid JSON", target+1))
	}
}

// Text after a trajectory's closing ']' is a problem (a skipped line,
// counted), not ignored; the records before it are read.
func TestTrajectoryTrailingGarbage(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "testdata", "steps", "openhands", "trajectory.json"))
	if err != nil {
		t.Fatal(err)
	}
	good, err := ReadFile(writeTemp(t, "trajectory.json", doc), nil, Options{Format: FormatAuto})
	if err != nil || len(good) != 1 || good[0].Diag.Skipped != 0 {
		t.Fatalf("the trajectory itself: %v", err)
	}
	for _, tail := range []string{"\n{\"garbage\": 1}\n", "\x00", " ]", "\n\nnot json"} {
		path := writeTemp(t, "trajectory.json", append(bytes.Clone(doc), tail...))
		eps, err := ReadFile(path, nil, Options{Format: FormatAuto})
		if err != nil || len(eps) != 1 {
			t.Fatalf("%q: %d episodes, %v", tail, len(eps), err)
		}
		if eps[0].Diag.Skipped != 1 || len(eps[0].Turns) != len(good[0].Turns) {
			t.Errorf("%q: %d skipped, %d turns; want 1 and %d", tail, eps[0].Diag.Skipped, len(eps[0].Turns), len(good[0].Turns))
		}
		rtWantProblem(t, eps[0].Diag, "text after the JSON array's closing ]")
		all := append(bytes.Clone(doc), tail...)
		at := len(all) - len(bytes.TrimLeft(all[bytes.LastIndexByte(doc, ']')+1:], " \t\r\n"))
		want := fmt.Sprintf("trajectory.json:%d: ", bytes.Count(all[:at], []byte("\n"))+1)
		if !strings.Contains(eps[0].Diag.Problems[0], want) {
			t.Errorf("%q: problem %q, want it at %q", tail, eps[0].Diag.Problems[0], want)
		}
	}
}

// Any integer a JSON number holds exactly (|n| <= 2^53) is a step number:
// 2^31 and 10^12 are read; beyond 2^53 the step is out of range, not
// "not an integer".
func TestStepNumberRange(t *testing.T) {
	for _, c := range []struct {
		step    string
		want    int
		problem string
	}{
		{"2147483648", 1 << 31, ""},
		{"1000000000000", 1e12, ""},
		{"1e12", 1e12, ""},
		{"9007199254740992", 1 << 53, ""},
		{`"4294967296"`, 1 << 32, ""},
		{"9007199254740993", 0, "step 9007199254740993 is out of range (valid: 0 to 2^53)"},
		{"1e300", 0, "step 1e300 is out of range (valid: 0 to 2^53)"},
		{"99999999999999999999999", 0, "step 99999999999999999999999 is out of range (valid: 0 to 2^53)"},
		{"-1", 0, "step -1 is out of range (valid: 0 to 2^53)"},
		{"1.5", 0, "step 1.5 is not an integer"},
	} {
		log := fmt.Sprintf(`{"step": %s, "action": "run_tests", "output": "x"}`+"\n", c.step)
		eps, err := Read(strings.NewReader(log), "s.jsonl", "d", Options{Format: FormatSteps})
		if c.problem != "" {
			if err == nil || !strings.Contains(err.Error(), "s.jsonl:1: "+c.problem) {
				t.Errorf("step %s: %v, want %q", c.step, err, c.problem)
			}
			continue
		}
		if err != nil || len(eps) != 1 || len(eps[0].Turns) != 1 || eps[0].Turns[0].N != c.want {
			t.Errorf("step %s: %v %v, want step %d", c.step, eps, err, c.want)
		}
	}
}
