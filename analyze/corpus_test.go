package analyze

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/replay/replaytest"
	"github.com/loopbreak/loopbreak/rules"
)

// TestFilesOrderAndOutcomes runs the pool with more workers than files and
// unreadable files: emit sees input order, errors in their place, and one
// outcome per episode, equal to Analyze's.
func TestFilesOrderAndOutcomes(t *testing.T) {
	dir := t.TempDir()
	paths, err := replaytest.WriteCorpusCapped(dir, 8, 3, 0, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad", "episode_log.jsonl")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	os.WriteFile(bad, []byte{0x1f, 0x8b, 0, 0}, 0o644) // gzip magic, broken header
	files := append(paths[:4:4], filepath.Join(dir, "absent.jsonl"), bad)
	files = append(files, paths[4:]...)
	cfg := rules.Default()
	// With the walk's sizes the small files go to workers in batches
	// (fileBatches); the absent file and the broken one are batches alone.
	sizes := make([]int64, len(files))
	for i, f := range files {
		sizes[i] = -1
		if st, err := os.Stat(f); err == nil && i != 5 {
			sizes[i] = st.Size()
		}
	}
	for _, run := range []struct {
		workers int
		sizes   []int64
	}{{1, nil}, {3, nil}, {16, nil}, {1, sizes}, {2, sizes}, {16, sizes}} {
		workers, opts := run.workers, Options{Sizes: run.sizes}
		i := 0
		Files(context.Background(), files, nil, replay.Options{}, workers, cfg, opts, func(fr FileResult) bool {
			if fr.Path != files[i] || (fr.Err != nil) != (i == 4 || i == 5) || len(fr.Outcomes) != len(fr.Episodes) {
				t.Errorf("workers=%d, file %d: %s err=%v, %d outcomes for %d episodes", workers, i, fr.Path, fr.Err, len(fr.Outcomes), len(fr.Episodes))
			}
			for k, ep := range fr.Episodes {
				if want := Analyze(ep, cfg, Options{}); fr.Outcomes[k].EpisodeID != ep.ID || fr.Outcomes[k].Result != want.Result {
					t.Errorf("workers=%d: %s: outcome %+v, want %+v", workers, ep.ID, fr.Outcomes[k].Result, want.Result)
				}
			}
			i++
			return true
		})
		if i != len(files) {
			t.Errorf("workers=%d: emit called %d times for %d files", workers, i, len(files))
		}
		// Stopping early returns.
		n := 0
		Files(context.Background(), files, nil, replay.Options{}, workers, cfg, opts, func(FileResult) bool { n++; return n < 3 })
		if n != 3 {
			t.Errorf("workers=%d: emit called %d times after stopping at 3", workers, n)
		}
	}
}

// TestFileBatches: runs of small files add up to batchBytes and
// batchFiles at most; a file larger, or of unknown size, is alone.
func TestFileBatches(t *testing.T) {
	const small, big = 16 << 10, batchBytes + 1
	many := make([]int64, 2*batchFiles+1)
	for i := range many {
		many[i] = 1
	}
	for _, tc := range []struct {
		name  string
		n     int
		sizes []int64
		want  []int
	}{
		{"none", 0, nil, []int{0}},
		{"sizes unknown", 3, nil, []int{0, 1, 2, 3}},
		{"sizes short", 3, []int64{small}, []int{0, 1, 2, 3}},
		{"small together", 3, []int64{small, small, small}, []int{0, 3}},
		{"bytes bound", 3, []int64{batchBytes / 2, batchBytes / 2, 1}, []int{0, 2, 3}},
		{"exactly batchBytes", 2, []int64{batchBytes, 1}, []int{0, 1, 2}},
		{"large alone", 5, []int64{small, big, small, small, big}, []int{0, 1, 2, 4, 5}},
		{"unknown alone", 4, []int64{small, -1, small, small}, []int{0, 1, 2, 4}},
		{"empty files", 2, []int64{0, 0}, []int{0, 2}},
		{"files bound", len(many), many, []int{0, batchFiles, 2 * batchFiles, len(many)}},
	} {
		if got := fileBatches(tc.n, tc.sizes); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: fileBatches = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Files streams a file of many episodes in parts, in file order, with
// the hash and any error on each file's last part.
func TestFilesParts(t *testing.T) {
	dir := t.TempDir()
	var files []string
	want := []string{}
	for f, n := range []int{3, 200, 1} {
		var b strings.Builder
		for i := range n {
			id := fmt.Sprintf("F%d-E%03d", f, i)
			want = append(want, id)
			fmt.Fprintf(&b, `{"event_type": "turn_completed", "episode_id": %q, "turn": 1, "score": %d, "location": "Dam"}`+"\n", id, i)
		}
		p := filepath.Join(dir, fmt.Sprint(f), "episode_log.jsonl")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(b.String()), 0o644)
		files = append(files, p)
	}
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	files = append(files, empty)
	var got []string
	parts, lasts := 0, 0
	Files(context.Background(), files, nil, replay.Options{Hash: true}, 2, rules.Default(), Options{}, func(fr FileResult) bool {
		parts++
		for _, ep := range fr.Episodes {
			got = append(got, ep.ID)
		}
		if fr.Last {
			lasts++
			data, _ := os.ReadFile(fr.Path)
			sum := sha256.Sum256(data)
			if fr.Path == empty {
				if fr.Err == nil || fr.Hash != "" {
					t.Errorf("empty file: err %v, hash %q", fr.Err, fr.Hash)
				}
			} else if fr.Err != nil || fr.Hash != "sha256:"+hex.EncodeToString(sum[:]) {
				t.Errorf("%s: err %v, hash %q", fr.Path, fr.Err, fr.Hash)
			}
		} else if fr.Err != nil || fr.Hash != "" {
			t.Errorf("%s: a middle part with err %v, hash %q", fr.Path, fr.Err, fr.Hash)
		}
		return true
	})
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("episodes out of order:\n got %v\nwant %v", got, want)
	}
	if lasts != len(files) || parts <= len(files) {
		t.Errorf("%d parts, %d last: want more parts than files, one last each", parts, lasts)
	}
	// Strict: one part per file, hashed too.
	Files(context.Background(), files[:1], nil, replay.Options{Hash: true, Strict: true}, 2, rules.Default(), Options{}, func(fr FileResult) bool {
		data, _ := os.ReadFile(fr.Path)
		sum := sha256.Sum256(data)
		if !fr.Last || len(fr.Episodes) != 3 || fr.Hash != "sha256:"+hex.EncodeToString(sum[:]) {
			t.Errorf("strict: last %v, %d episodes, hash %q", fr.Last, len(fr.Episodes), fr.Hash)
		}
		return true
	})
	// Stopping early returns without reading on.
	n := 0
	Files(context.Background(), files, nil, replay.Options{}, 2, rules.Default(), Options{}, func(fr FileResult) bool {
		n++
		return false
	})
	if n != 1 {
		t.Errorf("emit called %d times after returning false", n)
	}
}

// TestFilesRenderLast: with RenderLast the workers reuse one firing list,
// and each episode renders the firings Analyze gives it (not a later
// episode's, written over them), in strict and streaming reads alike;
// the outcomes emit sees hold none.
func TestFilesRenderLast(t *testing.T) {
	dir := t.TempDir()
	paths, err := replaytest.WriteCorpusCapped(dir, 6, 3, 0, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	// The episodes again, in one file: a part of several episodes is
	// analysed whole before emit reads it.
	var all []byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, bytes.ReplaceAll(data, []byte(`"episode_id": "`), []byte(`"episode_id": "all-`))...)
	}
	allPath := filepath.Join(dir, "all.jsonl")
	if err := os.WriteFile(allPath, all, 0o644); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, allPath)
	cfg := rules.Default()
	// Not the penalty the generated runs logged: their live penalties
	// disagree with the replay's.
	if err := cfg.SetString("location_revisit_penalty=-0.3"); err != nil {
		t.Fatal(err)
	}
	render := func(o *Outcome, ep *replay.Episode) ([]byte, error) {
		var b strings.Builder
		for i := range o.Firings {
			f := &o.Firings[i]
			fmt.Fprintf(&b, "%s %d %s %s|", ep.ID, f.Turn, f.KindKey(), f.Location)
		}
		return []byte(b.String()), nil
	}
	// The live comparison outlives the rendering (emit reads it): its
	// firings are the outcome's own, not the reused list's.
	liveOf := func(o *Outcome) string {
		if o.Live == nil {
			return ""
		}
		var b strings.Builder
		for _, d := range o.Live.Disagreements {
			fmt.Fprintf(&b, "%d %s", d.Turn, d.Kind)
			if d.Replay != nil {
				fmt.Fprintf(&b, " %d %s %s %g", d.Replay.Turn, d.Replay.KindKey(), d.Replay.Location, d.Replay.Adjusted)
			}
			b.WriteString("|")
		}
		return b.String()
	}
	want, wantLive := map[string]string{}, map[string]string{}
	firings, replayed := 0, 0
	for _, p := range paths {
		eps, err := replay.ReadFile(p, nil, replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, ep := range eps {
			o := Analyze(ep, cfg, Options{KeepFirings: true})
			b, _ := render(o, ep)
			want[ep.Source+" "+ep.ID] = string(b)
			firings += len(o.Firings)
			wantLive[ep.Source+" "+ep.ID] = liveOf(o)
			if o.Live != nil {
				for _, d := range o.Live.Disagreements {
					if d.Replay != nil {
						replayed++
					}
				}
			}
		}
	}
	if firings == 0 || replayed == 0 {
		t.Fatalf("the corpus has %d firings to reuse, %d live disagreements naming one", firings, replayed)
	}
	for _, strict := range []bool{false, true} {
		for _, workers := range []int{1, 2} {
			opts := Options{KeepFirings: true, Render: render, RenderLast: true}
			seen := 0
			Files(context.Background(), paths, nil, replay.Options{Strict: strict}, workers, cfg, opts, func(fr FileResult) bool {
				for k, ep := range fr.Episodes {
					seen++
					if got := string(fr.Rendered[k]); got != want[ep.Source+" "+ep.ID] {
						t.Errorf("strict=%v workers=%d %s: rendered\n%s\nwant\n%s", strict, workers, ep.ID, got, want[ep.Source+" "+ep.ID])
					}
					if got := liveOf(fr.Outcomes[k]); got != wantLive[ep.Source+" "+ep.ID] {
						t.Errorf("strict=%v workers=%d %s: live disagreements\n%s\nwant\n%s", strict, workers, ep.ID, got, wantLive[ep.Source+" "+ep.ID])
					}
					if fr.Outcomes[k].Firings != nil {
						t.Errorf("strict=%v workers=%d %s: outcome keeps %d firings after rendering", strict, workers, ep.ID, len(fr.Outcomes[k].Firings))
					}
				}
				return true
			})
			// A strict read drops a file at its first problem (the
			// joined file has some).
			if !strict && seen != len(want) {
				t.Errorf("strict=%v workers=%d: %d episodes, want %d", strict, workers, seen, len(want))
			}
		}
	}
}

// The pool starts no more workers than there are files: each worker holds
// its own buffers, so -j 1000000 over 3 logs allocated a million of them.
func TestStreamInOrderWorkersCappedAtFiles(t *testing.T) {
	for _, c := range []struct{ n, workers, want int }{{3, 1000000, 3}, {3, 2, 2}, {0, 8, 0}, {5, 0, min(5, runtime.GOMAXPROCS(0))}} {
		var started atomic.Int32
		var got []int
		InOrder(c.n, c.workers, func() func(int) int {
			started.Add(1)
			return func(i int) int { return i }
		}, func(i int) bool { got = append(got, i); return true })
		if int(started.Load()) != c.want || len(got) != c.n {
			t.Errorf("%d items, %d workers: %d workers started, %d results; want %d, %d", c.n, c.workers, started.Load(), len(got), c.want, c.n)
		}
	}
}

// slowStepper stands for a slow rule (100 µs a turn) that cancels the
// run at its stop'th turn.
type slowStepper struct {
	n, stop int
	cancel  func()
}

func (s *slowStepper) Step(*replay.Turn, *rules.Env) {
	time.Sleep(100 * time.Microsecond)
	if s.n++; s.n == s.stop {
		s.cancel()
	}
}

// An analysis looks at its context while it replays: cancelled in the
// middle of a long episode (50,000 turns), Files stops within a few
// hundred turns and emits nothing after the cancel. Signals once waited
// for the episode's end (minutes for task attempts).
func TestFilesCancelledMidEpisode(t *testing.T) {
	var b strings.Builder
	for i := range 50000 {
		fmt.Fprintf(&b, `{"task_id": "t", "status": "blocked", "blockers": [], "completed_work": ["w%d"], "session_id": "s", "timestamp": "2025-11-14T08:00:00Z"}`+"\n", i)
	}
	path := filepath.Join(t.TempDir(), "attempts.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	st := &slowStepper{stop: 300, cancel: cancel}
	slow := &rules.Rule{Name: "slow", Enabled: func(*rules.Config) bool { return true },
		Applies: func(*replay.Episode, *rules.Config) bool { return true },
		New:     func(*rules.Config, *replay.Episode) rules.Stepper { return st }}
	emitted := 0
	Files(ctx, []string{path}, nil, replay.Options{Format: replay.FormatAuto}, 1, rules.Default(), Options{Rules: []*rules.Rule{slow}}, func(FileResult) bool {
		emitted++
		return true
	})
	if st.n > st.stop+256 {
		t.Errorf("%d turns replayed after a cancel at turn %d, want at most 256 more", st.n-st.stop, st.stop)
	}
	if emitted != 0 {
		t.Errorf("%d parts emitted after the cancel", emitted)
	}
}

// Episodes with long ids (agents write them) come in parts of about
// partIDBytes of ids, not partEpisodes episodes: a part holds each id
// several times (issue 23: 2,000 episodes with 500 KB ids took 2.2 GB).
func TestFilesPartsBoundedByIDBytes(t *testing.T) {
	const idLen, eps = 300 << 10, 12
	var log bytes.Buffer
	for e := range eps {
		id := fmt.Sprintf("%02d", e) + strings.Repeat("x", idLen)
		for turn := 1; turn <= 3; turn++ {
			fmt.Fprintf(&log, `{"event_type": "turn_completed", "episode_id": %q, "turn": %d, "action": "north", "score": 0, "location": "Room %d"}`+"\n", id, turn, turn)
		}
	}
	path := filepath.Join(t.TempDir(), "episode_log.jsonl")
	if err := os.WriteFile(path, log.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got := 0
	Files(context.Background(), []string{path}, nil, replay.Options{}, 2, rules.Default(), Options{}, func(fr FileResult) bool {
		held := 0
		for _, ep := range fr.Episodes {
			held += len(ep.ID)
		}
		if held > partIDBytes+idLen+2 {
			t.Errorf("a part of %d episodes holds %d bytes of ids", len(fr.Episodes), held)
		}
		got += len(fr.Episodes)
		return fr.Err == nil
	})
	if got != eps {
		t.Errorf("%d episodes of %d", got, eps)
	}
}

// TestFilesReplaysStepsWhileRead: Files replays a steps log as it reads
// it (rules.ReadReplay), keeping none of its outputs, and its outcome is
// the one Analyze makes of the log read whole; strict or not. A ZorkGPT
// log is read whole.
func TestFilesReplaysStepsWhileRead(t *testing.T) {
	files := []string{
		filepath.Join("..", "testdata", "steps", "agent.jsonl"),
		filepath.Join("..", "testdata", "steps", "gemini-cli", "session.json"),
		filepath.Join("..", "testdata", "agents", "codex", "sessions", "2026", "11", "20", "rollout-2026-11-20T11-00-00-0199a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl"),
		filepath.Join("..", "testdata", "steps", "openhands", "events.jsonl"),
		filepath.Join("..", "testdata", "openhands", "v1-stuck.jsonl"),
		filepath.Join("..", "testdata", "episodes", "2025-11-04T09-35-24", "episode_log.jsonl"),
	}
	stepped := []bool{true, true, true, true, true, false}
	cfg := rules.Default()
	for _, strict := range []bool{false, true} {
		read := replay.Options{Format: replay.FormatAuto, Outputs: true, Strict: strict}
		i := 0
		Files(context.Background(), files, nil, read, 2, cfg, Options{KeepFirings: true}, func(fr FileResult) bool {
			if fr.Err != nil || len(fr.Episodes) != 1 {
				t.Fatalf("%s: %d episodes, %v", fr.Path, len(fr.Episodes), fr.Err)
			}
			ep := fr.Episodes[0]
			if got := ep.Stepped != nil; got != stepped[i] || (got && ep.Outputs != nil) {
				t.Errorf("%s: replayed while read %v (want %v), outputs kept %v", fr.Path, got, stepped[i], ep.Outputs != nil)
			}
			whole, err := replay.ReadFile(fr.Path, nil, replay.Options{Format: replay.FormatAuto, Outputs: true})
			if err != nil {
				t.Fatal(err)
			}
			want := Analyze(whole[0], cfg, Options{KeepFirings: true})
			if got := fr.Outcomes[0]; len(want.Firings) == 0 || fmt.Sprint(got.Firings) != fmt.Sprint(want.Firings) || fmt.Sprint(got.Result) != fmt.Sprint(want.Result) {
				t.Errorf("%s: %d firings, %+v; read whole: %d, %+v", fr.Path, len(got.Firings), got.Result, len(want.Firings), want.Result)
			}
			i++
			return true
		})
		if i != len(files) {
			t.Fatalf("emitted %d files of %d", i, len(files))
		}
	}
}
