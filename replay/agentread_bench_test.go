package replay

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/replay/replaytest"
)

// BenchmarkAgentRecords measures the agents' JSONL readers alone: each
// line of a generated log (agentBenchLog's) handed to recordRaw, with no
// line reading and no step table.
func BenchmarkAgentRecords(b *testing.B) {
	dir := b.TempDir()
	for _, f := range []struct {
		name string
		new  func() rawStepReader
	}{
		{"claude-code", func() rawStepReader { return newClaudeCodeReader() }},
		{"codex", func() rawStepReader { return &codexReader{} }},
		{"gemini-jsonl", func() rawStepReader { return &geminiReader{} }},
		// With an episode: the events' keys are written and interned.
		{"openhands-v1", func() rawStepReader { o := &openHandsV1Reader{}; o.start(&Episode{}); return o }},
		// Replayed as read, as analyze reads a log: the keys written in
		// full (no string keyed), into the history's table.
		{"openhands-v1-streamed", func() rawStepReader { o := &openHandsV1Reader{}; o.start(&Episode{streamed: true}); return o }},
	} {
		b.Run(f.name, func(b *testing.B) {
			data := agentBenchLog(b, dir, strings.TrimSuffix(f.name, "-streamed"))
			lines := bytes.Split(data, []byte("\n"))
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			cpu0 := replaytest.ProcessCPU()
			for b.Loop() {
				r := f.new()
				for i, l := range lines {
					if len(l) > 0 {
						r.recordRaw(l, i+1)
					}
				}
				r.finish()
			}
			if cpu := replaytest.ProcessCPU() - cpu0; cpu > 0 {
				b.ReportMetric(float64(len(data))*float64(b.N)/1e6/cpu.Seconds(), "cpu-MB/s")
			}
		})
	}
}

// aiderHistory is an Aider chat history of about size bytes in the shape
// aider.go's comment shows (.ci/agentlogs.py has no Markdown format): a
// prompt, a reply of a few paragraphs and a SEARCH/REPLACE block, Aider's
// own "> " line, over and over.
func aiderHistory(size int) []byte {
	words := strings.Fields("def return import from self value error test assert path config result index")
	var b bytes.Buffer
	b.WriteString("# aider chat started at 2026-11-20 12:00:00\n\n> /usr/local/bin/aider --model sonnet\n> Aider v0.86.1\n\n")
	line := func(n, seed int) {
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[(seed*7+i*3)%len(words)])
		}
	}
	for r := 0; b.Len() < size; r++ {
		fmt.Fprintf(&b, "#### Fix the divide test, try %d.\n\n", r%7)
		for p := 0; p < 2+r%5; p++ {
			line(5+(r+p)%10, r+p)
			b.WriteString("\n\n")
		}
		b.WriteString("calc.py\n```python\n<<<<<<< SEARCH\n")
		for l := 0; l < 3+r%20; l++ {
			b.WriteString("    ")
			line(8, r+l)
			b.WriteByte('\n')
		}
		b.WriteString("=======\n    return a / b\n>>>>>>> REPLACE\n```\n\n> Applied edit to calc.py\n\n")
	}
	return b.Bytes()
}

// BenchmarkCanonV1 writes what an OpenHands V1 reader writes of each
// event of a fixture, with the record's index: an observation or action
// canonically (the event's key, its strings as they are), an action as
// its step's text, and the whole of every other event.
func BenchmarkCanonV1(b *testing.B) {
	data, err := os.ReadFile("../testdata/openhands/v1-stuck.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	type rec struct {
		v, obs, act rawValue
		ix          *valueIndex
	}
	var recs []rec
	for _, l := range bytes.Split(data, []byte("\n")) {
		ix := new(valueIndex)
		if end := validValueIx(l, 0, ix); end > 0 {
			v := rawValue(l[:end])
			recs = append(recs, rec{v, ix.get(v, "observation"), ix.get(v, "action"), ix})
		}
	}
	b.SetBytes(int64(len(data)))
	var w canonWriter
	for b.Loop() {
		for _, r := range recs {
			w.buf = w.buf[:0]
			switch {
			case r.obs != nil:
				r.ix.appendCanon(&w, r.obs, true, nil)
			case r.act != nil:
				r.ix.appendCanon(&w, r.act, true, nil)
				w.buf = w.buf[:0]
				r.ix.appendCanon(&w, r.act, false, openHandsVolatile)
			default:
				r.ix.appendCanon(&w, r.v, true, nil)
			}
		}
	}
}

// BenchmarkValidateRecords measures the validating pass alone
// (validValueIx, building the index) over each line of a generated log.
func BenchmarkValidateRecords(b *testing.B) {
	dir := b.TempDir()
	for _, name := range []string{"gemini-jsonl", "openhands-v1", "codex", "steps", "openhands-events"} {
		b.Run(name, func(b *testing.B) {
			data := agentBenchLog(b, dir, name)
			lines := bytes.Split(data, []byte("\n"))
			b.SetBytes(int64(len(data)))
			var ix valueIndex
			for b.Loop() {
				for _, l := range lines {
					if len(l) > 0 && validValueIx(l, 0, &ix) < 0 {
						b.Fatal("invalid line")
					}
				}
			}
		})
	}
}
