package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/analyze/partial"
)

// bigAnalyzeParts writes n analyze parts of perPart episodes each, the
// parts' logs interleaved (part k holds logs k-1, k-1+n, ...), every
// episode the one of a real part with its episode id made unique
// ("<id>-<log>"). It returns the parts and the bytes of episodes written.
// The parts are written as they are made: the test holds none of them.
func bigAnalyzeParts(t *testing.T, n, perPart int) ([]string, int64) {
	t.Helper()
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "template.json")
	if code, _, errOut := run(t, "", "", "analyze", "--shard", "1/1", "--partial", "-o", tmpl, filepath.Join(episodesDir, "2025-06-09T20-04-36")); code != 0 {
		t.Fatalf("template: exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(tmpl)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Totals   json.RawMessage   `json:"totals"`
		Episodes []partial.Episode `json:"episodes"`
	}
	if err := json.Unmarshal(doc["body"], &body); err != nil || len(body.Episodes) != 1 {
		t.Fatalf("template body: %v, %d episodes", err, len(body.Episodes))
	}
	ep := body.Episodes[0]
	var id struct {
		EpisodeID string `json:"episode_id"`
	}
	json.Unmarshal(ep.JSON, &id)
	idField := []byte(fmt.Sprintf(`"episode_id":%q`, id.EpisodeID))
	if !bytes.Contains(ep.JSON, idField) {
		t.Fatalf("template episode has no %s", idField)
	}
	text, _ := json.Marshal(ep.Text)
	var paths []string
	var total int64
	for k := 1; k <= n; k++ {
		p := filepath.Join(dir, fmt.Sprintf("part-%d.json", k))
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(f)
		fmt.Fprintf(w, `{"kind":%s,"schema_version":%s,"command":%s,"args":%s,"settings":%s,"config":%s,"shard":{"k":%d,"n":%d},"inputs":{"logs":%d,"digest":"sha256:x"},"body":{"totals":%s,"episodes":[`,
			doc["kind"], doc["schema_version"], doc["command"], doc["args"], doc["settings"], doc["config"], k, n, n*perPart, body.Totals)
		for i := range perPart {
			log := k - 1 + i*n
			if i > 0 {
				w.WriteString(",")
			}
			js := bytes.Replace(ep.JSON, idField, []byte(fmt.Sprintf(`"episode_id":"%s-%d"`, id.EpisodeID, log)), 1)
			m, _ := fmt.Fprintf(w, `{"log":%d,"json":%s,"text":%s}`, log, js, text)
			total += int64(m)
		}
		w.WriteString(`],"errors":[]}}` + "\n")
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths, total
}

// heapWatch is an output that discards what it is given and, every few
// MB, samples the live heap (after a collection).
type heapWatch struct {
	written, next int64
	max           uint64
}

func (w *heapWatch) Write(b []byte) (int, error) {
	w.written += int64(len(b))
	if w.written >= w.next {
		w.next = w.written + 4<<20
		w.max = max(w.max, liveHeap())
	}
	return len(b), nil
}

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestMergeAnalyzeMemoryBounded merges analyze parts of about 50 MB of
// episodes and holds the live heap, sampled while the merge prints, well
// under that: the merge keeps one episode per part, not the parts'
// episodes (it held them all, and more, before it streamed).
func TestMergeAnalyzeMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 50 MB of parts")
	}
	parts, total := bigAnalyzeParts(t, 3, 2000)
	for _, format := range []string{"jsonl", "text"} {
		ios, _, _, errOut := Test()
		w := &heapWatch{}
		ios.Out = w
		base := liveHeap()
		if err := mergeRun(&MergeOptions{IO: ios, Paths: parts, Format: format, Color: "never"}); err != nil {
			t.Fatalf("--format %s: %v (%s)", format, err, errOut)
		}
		grew := int64(w.max) - int64(base)
		t.Logf("--format %s: %d MB of episodes, %d MB printed, live heap grew by at most %.1f MB", format, total>>20, w.written>>20, float64(grew)/(1<<20))
		if w.written < 8<<20 {
			t.Fatalf("--format %s: printed %d bytes, too few to watch the heap", format, w.written)
		}
		if grew > total/5 {
			t.Errorf("--format %s: the live heap grew by %d bytes while printing %d bytes of episodes: the merge holds the episodes", format, grew, total)
		}
	}
}

// TestMergeBadAnalyzePart cuts a real analyze part short at every length
// and changes single bytes of it: the merge never panics, and either
// prints what it would print anyway or fails (exit 2) naming the part,
// with nothing on standard output.
func TestMergeBadAnalyzePart(t *testing.T) {
	dir := t.TempDir()
	var logs []string // small ones, all in shard 2/2 (their keys are equal)
	for _, l := range []string{"2025-06-09T20-04-36", "2025-11-05T14-20-07", "2025-11-10T21-05-00", "2025-11-08T16-45-12", "test_smoke"} {
		logs = append(logs, filepath.Join(episodesDir, l))
	}
	var good []string
	for _, f := range []string{"text", "json"} {
		for k := 1; k <= 2; k++ {
			p := filepath.Join(dir, fmt.Sprintf("%s-%d.json", f, k))
			if code, _, errOut := run(t, "", "", append([]string{"analyze", "--detail", "--format", f, "--shard", fmt.Sprintf("%d/2", k), "--partial", "-o", p}, logs...)...); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			good = append(good, p)
		}
	}
	bad := filepath.Join(dir, "bad.json")
	try := func(first string, data []byte, mustFail bool, what string) {
		t.Helper()
		if err := os.WriteFile(bad, data, 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := run(t, "", "", "merge", "--color", "never", first, bad)
		switch {
		case code == 0 && !mustFail:
		case code != ExitError || out != "" || !strings.HasPrefix(errOut, "loopbreak: ") || !strings.Contains(errOut, bad) || strings.Count(errOut, "\n") != 1:
			t.Fatalf("%s: exit %d, %d bytes on stdout, stderr %q; want exit 2, no output, one line naming %s", what, code, len(out), errOut, bad)
		}
	}
	for i := 0; i < len(good); i += 2 {
		data, err := os.ReadFile(good[i+1])
		if err != nil {
			t.Fatal(err)
		}
		step := max(1, len(data)/120)
		for n := 0; n < len(data)-1; n++ {
			if n%step != 0 && n < len(data)-60 {
				continue
			}
			try(good[i], data[:n], true, fmt.Sprintf("%s cut at byte %d of %d", good[i+1], n, len(data)))
		}
		for n := 0; n < len(data); n += max(1, len(data)/30) {
			for _, c := range []byte("x\"{}[],:0 ") {
				b := bytes.Clone(data)
				b[n] = c
				try(good[i], b, false, fmt.Sprintf("%s with byte %d (%q) made %q", good[i+1], n, data[n], c))
			}
		}
	}
	// Episodes out of log order: refused.
	data, _ := os.ReadFile(good[3])
	var doc map[string]json.RawMessage
	json.Unmarshal(data, &doc)
	var body partial.AnalyzeBody
	json.Unmarshal(doc["body"], &body)
	if len(body.Episodes) < 2 {
		t.Fatalf("shard 2/2 has %d episodes", len(body.Episodes))
	}
	body.Episodes[0], body.Episodes[1] = body.Episodes[1], body.Episodes[0]
	doc["body"], _ = json.Marshal(body)
	swapped, _ := json.Marshal(doc)
	try(good[2], swapped, true, "episodes out of order")
	_, _, errOut := run(t, "", "", "merge", good[2], bad)
	if !strings.Contains(errOut, "a part lists its episodes in log order") {
		t.Errorf("episodes out of order: %q", errOut)
	}
}

// TestMergeAnalyzeMemberOrder: a part's members may come in any order, as
// JSON allows: the totals before the episodes (as shards wrote them before
// they streamed), or the body before the header (keys sorted): the merge
// prints the same.
func TestMergeAnalyzeMemberOrder(t *testing.T) {
	dir := t.TempDir()
	corpus := []string{"--include-tests", episodesDir}
	for _, f := range []string{"text", "json"} {
		var parts []string
		for k := 1; k <= 3; k++ {
			p := filepath.Join(dir, fmt.Sprintf("%s-%d.json", f, k))
			if code, _, errOut := run(t, "", "", append([]string{"analyze", "--detail", "--format", f, "--shard", fmt.Sprintf("%d/3", k), "--partial", "-o", p}, corpus...)...); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			parts = append(parts, p)
		}
		_, want, _ := run(t, "", "", append([]string{"merge"}, parts...)...)
		if want == "" {
			t.Fatal("the merge printed nothing")
		}
		for _, layout := range []string{"totals first", "keys sorted"} {
			var moved []string
			for _, p := range parts {
				data, _ := os.ReadFile(p)
				var doc map[string]json.RawMessage
				if err := json.Unmarshal(data, &doc); err != nil {
					t.Fatal(err)
				}
				if layout == "totals first" {
					var body partial.AnalyzeBody
					if err := json.Unmarshal(doc["body"], &body); err != nil {
						t.Fatal(err)
					}
					doc["body"], _ = json.Marshal(body)
				}
				// A map marshals its keys sorted: "body" before "command".
				data, _ = json.Marshal(doc)
				if layout == "keys sorted" && !bytes.HasPrefix(data, []byte(`{"args":`)) {
					t.Fatalf("%.40s", data)
				}
				m := filepath.Join(dir, strings.ReplaceAll(layout, " ", "-")+"-"+filepath.Base(p))
				os.WriteFile(m, data, 0o644)
				moved = append(moved, m)
			}
			code, got, errOut := run(t, "", "", append([]string{"merge"}, moved...)...)
			if code != 0 || got != want {
				t.Errorf("%s parts, %s: exit %d, %s; output equal: %v", f, layout, code, errOut, got == want)
			}
		}
	}
}

// TestAnalyzePartialStdout: a part written to standard output is the one
// -o writes, with or without a temporary directory to stage it in, and a
// shard that fails (--strict on an unreadable log) prints nothing.
func TestAnalyzePartialStdout(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "part.json")
	args := []string{"analyze", "--detail", "--shard", "1/2", "--partial", "--include-tests", episodesDir}
	if code, _, errOut := run(t, "", "", append(args, "-o", p)...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want, _ := os.ReadFile(p)
	for _, tmp := range []string{dir, filepath.Join(dir, "missing")} {
		t.Setenv("TMPDIR", tmp)
		code, got, errOut := run(t, "", "", args...)
		if code != 0 || got != string(want) {
			t.Errorf("TMPDIR=%s: exit %d, %s; the part equals -o's: %v", tmp, code, errOut, got == string(want))
		}
	}
	t.Setenv("TMPDIR", dir)
	corpus := shardCorpus(t)
	code, got, _ := run(t, "", "", append([]string{"analyze", "--strict", "--partial"}, corpus...)...)
	if code == 0 || got != "" {
		t.Errorf("--strict over an unreadable log: exit %d, %d bytes printed", code, len(got))
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "loopbreak-output-*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}
