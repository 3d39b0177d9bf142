package detect

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/loopbreak/loopbreak/replay/replaytest"
)

func TestFuzzyRepeat(t *testing.T) {
	type fire struct {
		step, matched int
		sim           float64
	}
	tests := []struct {
		name  string
		cfg   FuzzyConfig
		steps []Step
		want  []fire
	}{
		{"exactly at 0.90 fires", DefaultFuzzyConfig(), []Step{
			{N: 1, Action: "aaaa", Output: "aaaaaaaaaa"},
			{N: 2, Kind: KindMessage, Output: "aaaaaaaaab"}, // LCS 9, lengths 10+10: 20·9 >= 9·20
		}, []fire{{2, 1, 0.9}}},
		{"just below 0.90", DefaultFuzzyConfig(), []Step{
			{N: 1, Output: "aaaaaaaaaa"},
			{N: 2, Output: "aaaaaaaabb"}, // 16/20
		}, nil},
		{"odd total needs the ceiling; a firing output is not kept", DefaultFuzzyConfig(), []Step{
			{N: 1, Output: "abcdefghij"},
			{N: 2, Output: "abcdefghi"}, // LCS 9: 20·9=180 >= 9·19=171 → 0.9474
			{N: 3, Output: "abcdefgh"},  // vs 1 only: 16/18 (vs 2 it would be 16/17)
		}, []fire{{2, 1, 0.9474}}},
		{"latest wins a tie among those kept", DefaultFuzzyConfig(), []Step{
			{N: 1, Output: "abcdefghij"}, {N: 2, Output: "abcdefghik"}, {N: 3, Output: "abcdefghij"},
		}, []fire{{2, 1, 0.9}, {3, 1, 1}}},
		{"best match beats the latest", DefaultFuzzyConfig(), []Step{
			{N: 1, Output: "aaaaaaaaaa"}, {N: 2, Output: "xxxxxxxxxx"}, {N: 3, Output: "aaaaaaaaab"},
			{N: 4, Output: "aaaaaaaaaa"},
		}, []fire{{3, 1, 0.9}, {4, 1, 1}}},
		{"the best of several, latest of equals", DefaultFuzzyConfig(), []Step{
			{N: 1, Output: "aaaaaaaaaa"}, {N: 2, Output: "aaaaaaaaaa"}, // 2 fires, not kept
			{N: 3, Output: "bbbbbbbbbb"}, {N: 4, Output: "bbbbbbbbbbbbbbbbbbbb"}, {N: 5, Output: "aaaaaaaaab"},
		}, []fire{{2, 1, 1}, {5, 1, 0.9}}},
		{"window 2 forgets step 1", FuzzyConfig{Threshold: 0.9, Window: 2}, []Step{
			{N: 1, Output: "xyzxyzxyzx"}, {N: 2, Output: "0000000000"}, {N: 3, Output: "1111111111"}, {N: 4, Output: "xyzxyzxyzx"},
		}, nil},
		{"window 3 remembers step 1", FuzzyConfig{Threshold: 0.9, Window: 3}, []Step{
			{N: 1, Output: "xyzxyzxyzx"}, {N: 2, Output: "0000000000"}, {N: 3, Output: "1111111111"}, {N: 4, Output: "xyzxyzxyzx"},
		}, []fire{{4, 1, 1}}},
		{"firings do not use the window", FuzzyConfig{Threshold: 0.9, Window: 2}, []Step{
			{N: 1, Output: "xyzxyzxyzx"}, {N: 2, Output: "0000000000"}, {N: 3, Output: "0000000000"}, {N: 4, Output: "0000000000"},
			{N: 5, Output: "xyzxyzxyzx"},
		}, []fire{{3, 2, 1}, {4, 2, 1}, {5, 1, 1}}},
		{"empty outputs never fire and are never kept", FuzzyConfig{Threshold: 0.9, Window: 2}, []Step{
			{N: 1, Output: "xyzxyzxyzx"}, {N: 2, Kind: KindMessage}, {N: 3, Kind: KindCondensation}, {N: 4, Action: "ls"},
			{N: 5, Output: "0000000000"}, {N: 6, Output: "xyzxyzxyzx"},
		}, []fire{{6, 1, 1}}},
		{"threshold 0 fires on any two outputs, never on empty", FuzzyConfig{Threshold: 0, Window: 5}, []Step{
			{N: 1, Output: "ab"}, {N: 2}, {N: 3, Output: "cd"},
		}, []fire{{3, 1, 0}}},
		{"outputs only: the action is not compared", DefaultFuzzyConfig(), []Step{
			{N: 1, Action: "ab", Output: "cd"}, {N: 2, Action: "xy", Output: "cd"},
			{N: 3, Action: "ab", Output: "zz"},
		}, []fire{{2, 1, 1}}},
		{"rounded to 4 decimals", FuzzyConfig{Threshold: 0.5, Window: 5}, []Step{
			{N: 1, Output: "abcdefg"}, {N: 2, Output: "abcdefx"}, // 12/14
		}, []fire{{2, 1, 0.8571}}},
		{"exact in 4 decimals", FuzzyConfig{Threshold: 0.5, Window: 5}, []Step{
			// LCS 15 over 16+16: 30/32 = 0.9375.
			{N: 1, Output: strings.Repeat("a", 16)}, {N: 2, Output: strings.Repeat("a", 15) + "b"},
		}, []fire{{2, 1, 0.9375}}},
		{"code points, not bytes", DefaultFuzzyConfig(), []Step{
			{N: 1, Output: "日本語日本語日本語日"}, {N: 2, Output: "日本語日本語日本語X"}, // 9 of 10+10
		}, []fire{{2, 1, 0.9}}},
		{"threshold 0.95 above and below", FuzzyConfig{Threshold: 0.95, Window: 5}, []Step{
			{N: 1, Output: strings.Repeat("a", 20)},
			{N: 2, Output: strings.Repeat("a", 19) + "b"},  // 38/40 = 0.95
			{N: 3, Output: strings.Repeat("a", 18) + "bb"}, // vs 1 only: 36/40
		}, []fire{{2, 1, 0.95}}},
		{"threshold 1 needs equal outputs", FuzzyConfig{Threshold: 1, Window: 5}, []Step{
			{N: 1, Output: "ab"}, {N: 2, Output: "abc"}, {N: 3, Output: "ab"},
		}, []fire{{3, 1, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := NewFuzzyRepeat(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			var got []fire
			for _, s := range tt.steps {
				for _, f := range d.Step(s) {
					if f.Rule != "fuzzy_repeat" || f.Kind != KindLoop || f.Origin != OriginGeneric || f.Step != s.N {
						t.Errorf("firing %+v at step %d", f, s.N)
					}
					got = append(got, fire{f.Step, f.MatchedStep, f.Similarity})
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSafetyGuardDetectLoop translates Ralph's tests/test_loop_detection.py
// (mikeyobrien/ralph-orchestrator at 2c49ef9) case for case: each output is
// one step; want is detect_loop's answer for each. Failure counting and
// the safety check are not detect_loop's and are left out of the cases
// that mix them in.
func TestSafetyGuardDetectLoop(t *testing.T) {
	tests := []struct {
		name    string
		outputs []string
		want    []bool
	}{
		{"test_loop_detected_identical_outputs", []string{
			"Checking the database for user information...", "Checking the database for user information..."},
			[]bool{false, true}},
		{"test_loop_detected_similar_outputs", []string{
			"I'm checking the database for user information now.", "I'm checking the database for user information here."},
			[]bool{false, true}},
		{"test_no_loop_different_outputs", []string{
			"Step 1: Creating the configuration file", "Step 2: Installing dependencies from requirements.txt",
			"Step 3: Running the test suite", "Step 4: Building the documentation", "Step 5: Deploying to production server"},
			[]bool{false, false, false, false, false}},
		{"test_loop_detection_window_size", []string{
			"Starting database connection and initializing schema", "Parsing configuration from YAML file successfully",
			"Downloading dependencies from remote repository", "Compiling TypeScript source files to JavaScript",
			"Running integration tests against staging server", "Deploying application to production cluster now",
			"Starting database connection and initializing schema"},
			[]bool{false, false, false, false, false, false, false}},
		{"test_loop_detection_empty_output", []string{"", ""}, []bool{false, false}},
		{"test_loop_detection_short_outputs", []string{"Done", "Done"}, []bool{false, true}},
		{"test_loop_threshold_boundary", []string{
			"Processing data from the input source now", "Computing results from the output target here"},
			[]bool{false, false}},
		{"test_loop_detection_with_numbers", []string{"Iteration 1: Processing batch", "Iteration 2: Processing batch"},
			[]bool{false, true}},
		{"test_no_loop_with_substantively_different_outputs", []string{
			"Step 1: Reading configuration file", "Step 2: Connecting to database", "Step 3: Executing query and fetching results"},
			[]bool{false, false, false}},
		{"test_loop_detection_multiline", []string{
			"Starting task...\nWorking on step 1\nWorking on step 2\nTask complete.",
			"Starting task...\nWorking on step 1\nWorking on step 2\nTask complete."},
			[]bool{false, true}},
		{"test_consecutive_failures_independent", []string{"Test output", "Test output"}, []bool{false, true}},
		// Ralph asserts nothing of these two outputs (a ratio of 0.875).
		{"test_safety_check_passes_with_loop_detection", []string{"Output 1", "Output 2"}, []bool{false, false}},
		{"test_loop_detection_after_max_iterations", []string{"Final output"}, []bool{false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, _ := NewFuzzyRepeat(DefaultFuzzyConfig())
			for i, out := range tt.outputs {
				if got := len(d.Step(Step{N: i + 1, Output: out})) > 0; got != tt.want[i] {
					t.Errorf("output %d (%q): detect_loop %v, want %v", i+1, out, got, tt.want[i])
				}
			}
		})
	}
	t.Run("test_reset_clears_loop_history", func(t *testing.T) {
		d, _ := NewFuzzyRepeat(DefaultFuzzyConfig())
		d.Step(Step{N: 1, Output: "Repeating output pattern"})
		if d.Kept() != 1 {
			t.Errorf("%d outputs kept, want 1", d.Kept())
		}
		d.Reset()
		if d.Kept() != 0 {
			t.Errorf("%d outputs kept after reset, want 0", d.Kept())
		}
		if fs := d.Step(Step{N: 2, Output: "Repeating output pattern"}); len(fs) != 0 {
			t.Errorf("fired after reset: %+v", fs)
		}
	})
}

func TestFuzzyConfigValidate(t *testing.T) {
	for _, c := range []FuzzyConfig{{Threshold: 1.1, Window: 5}, {Threshold: -0.1, Window: 5}, {Threshold: 0.9, Window: 0}} {
		if _, err := NewFuzzyRepeat(c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

// TestFuzzyRepeatProperty replays random traces against a naive detector
// built on the O(n·m) table, each detector made from the buffers the
// previous one released.
func TestFuzzyRepeatProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alpha := []rune("abé ")
	for it := range 200 {
		cfg := FuzzyConfig{Threshold: []float64{0.9, 0.75, 0.5, 0.97}[it%4], Window: 1 + r.IntN(5)}
		d, err := NewFuzzyRepeat(cfg)
		if err != nil {
			t.Fatal(err)
		}
		frac := map[float64][2]int{0.9: {9, 10}, 0.75: {3, 4}, 0.5: {1, 2}, 0.97: {97, 100}}[cfg.Threshold]
		num, den := frac[0], frac[1]
		type kept struct {
			n     int
			runes []rune
		}
		var texts []kept
		base := randomRunes(r, alpha, r.IntN(150))
		for n := 1; n <= 12; n++ {
			var txt []rune
			if r.IntN(3) == 0 {
				txt = randomRunes(r, alpha, r.IntN(150))
			} else {
				txt = mutate(r, base, alpha, r.IntN(8))
			}
			// Naive: best over the outputs kept, latest on a tie; an
			// empty output or one that fires is not kept.
			wantStep, wantNum, wantDen := 0, 0, 1
			for k := len(texts) - 1; k >= 0 && len(txt) > 0; k-- {
				l, tot := naiveLCS(txt, texts[k].runes), len(txt)+len(texts[k].runes)
				if 2*den*l < num*tot {
					continue
				}
				if wantStep == 0 || 2*l*wantDen > wantNum*tot {
					wantStep, wantNum, wantDen = texts[k].n, 2*l, tot
				}
			}
			if len(txt) > 0 && wantStep == 0 {
				texts = append(texts, kept{n, txt})
				if len(texts) > cfg.Window {
					texts = texts[1:]
				}
			}
			fs := d.Step(Step{N: n, Output: string(txt)})
			switch {
			case wantStep == 0 && len(fs) != 0:
				t.Fatalf("step %d fired %+v, want none", n, fs)
			case wantStep != 0 && (len(fs) != 1 || fs[0].MatchedStep != wantStep || fs[0].Similarity != round4(int64(wantNum), int64(wantDen))):
				t.Fatalf("step %d fired %+v, want matched %d at %d/%d", n, fs, wantStep, wantNum, wantDen)
			}
		}
		// The next detector reuses this one's buffers: nothing of its
		// texts may leak into the next trace.
		d.Release()
	}
}

// benchTrace is a 500-step trace of 10 KB log-like outputs: most steps are
// new text over a shared vocabulary (so the code point histograms do not
// tell them apart), about a third repeat the previous output with a few
// numbers changed.
func benchTrace() []Step {
	r := rand.New(rand.NewPCG(5, 6))
	words := strings.Fields("the a request handler failed retry connection timeout user auth token " +
		"database query returned rows file not found permission denied build test passed compile error " +
		"module import config value missing null pointer index out of range warning deprecated")
	gen := func() string {
		var b strings.Builder
		for b.Len() < 10_000 {
			fmt.Fprintf(&b, "2026-11-23T12:%02d:%02d.%03dZ INFO [%s] ", r.IntN(60), r.IntN(60), r.IntN(1000), words[r.IntN(len(words))])
			for range 6 + r.IntN(8) {
				b.WriteString(words[r.IntN(len(words))])
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "id=%d\n", r.IntN(100000))
		}
		return b.String()
	}
	steps := make([]Step, 500)
	prev := gen()
	for i := range steps {
		out := prev
		if r.IntN(3) == 0 {
			bs := []byte(prev)
			for range 20 {
				if k := r.IntN(len(bs)); bs[k] >= '0' && bs[k] <= '9' {
					bs[k] = byte('0' + r.IntN(10))
				}
			}
			out = string(bs)
		} else {
			out = gen()
		}
		steps[i] = Step{N: i + 1, Action: `bash {"command":"make test"}`, Output: out}
		prev = out
	}
	return steps
}

func BenchmarkFuzzyRepeat500x10KB(b *testing.B) {
	steps := benchTrace()
	var size int64
	for _, s := range steps {
		size += int64(len(s.Action) + len(s.Output))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	fired := 0
	for b.Loop() {
		d, _ := NewFuzzyRepeat(DefaultFuzzyConfig())
		fired = 0
		for _, s := range steps {
			fired += len(d.Step(s))
		}
	}
	b.ReportMetric(float64(fired), "firings")
	b.ReportMetric(float64(len(steps))*float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}

// TestFuzzyNeed64 holds need's 64-bit path to its big.Int path, the
// definition, over thresholds written with up to 18 decimals.
func TestFuzzyNeed64(t *testing.T) {
	for _, th := range []float64{0, 0.9, 0.95, 1, 0.123456789012345678, 0.5, 0.3333, 0.999999999999} {
		d, err := NewFuzzyRepeat(FuzzyConfig{Threshold: th, Window: 5})
		if err != nil {
			t.Fatal(err)
		}
		if !d.fits64 {
			t.Fatalf("threshold %v does not take the 64-bit path", th)
		}
		for _, total := range []int{1, 2, 3, 19, 20, 21, 999, 1 << 20, 1<<31 - 1} {
			got := d.need(total)
			d.fits64 = false
			want := d.need(total)
			d.fits64 = true
			if got != want {
				t.Errorf("threshold %v, total %d: need = %d, big.Int gives %d", th, total, got, want)
			}
		}
	}
}

// TestFuzzyWithin holds within, the length test without a division, to
// need, on both paths, over lengths around the boundary.
func TestFuzzyWithin(t *testing.T) {
	for _, th := range []float64{0, 0.9, 0.95, 1, 0.123456789012345678, 0.5, 0.3333, 0.999999999999, 0.1234567890123456789e-3} {
		d, err := NewFuzzyRepeat(FuzzyConfig{Threshold: th, Window: 5})
		if err != nil {
			t.Fatal(err)
		}
		for _, total := range []int{1, 2, 3, 19, 20, 21, 999, 2000, 1 << 20, 1<<31 - 1, 1<<32 - 1, 1 << 32, 1<<32 + 1, 1 << 40} {
			need := d.need(total)
			for _, m := range []int{0, 1, need - 2, need - 1, need, need + 1, total / 2, total} {
				if m < 0 {
					continue
				}
				// The three paths: the inlined products (when small), the
				// 128-bit ones, big.Int.
				for _, p := range []struct {
					smallBelow uint64
					fits       bool
				}{{d.smallBelow, d.fits64}, {0, d.fits64}, {0, false}} {
					small, fits := d.smallBelow, d.fits64
					d.smallBelow, d.fits64 = p.smallBelow, p.fits
					if got, want := d.within(total, m), need <= m; got != want {
						t.Errorf("threshold %v, total %d, m %d, small below %d, 64-bit %v: within = %v, need %d", th, total, m, p.smallBelow, p.fits, got, need)
					}
					d.smallBelow, d.fits64 = small, fits
				}
			}
		}
	}
}

// TestFuzzyCountRange holds countRange, the length test solved for the
// other output's count, to within itself: inside the range exactly when
// within passes, for every count up to three times c+10 at small c and
// around both ends and c at large c, for thresholds whose fractions fit
// the exact path and for those that do not (then every count).
func TestFuzzyCountRange(t *testing.T) {
	for _, th := range []float64{0, 0.9, 0.95, 1, 0.5, 0.3333, 0.123456789, 0.999999999, 0.123456789012345678, 0.1234567890123456789e-3} {
		d, err := NewFuzzyRepeat(FuzzyConfig{Threshold: th, Window: 5})
		if err != nil {
			t.Fatal(err)
		}
		check := func(c, n int) {
			lo, hi := d.countRange(c)
			in := lo <= n && n <= hi
			pass := d.within(c+n, min(c, n))
			if pass && !in || in && !pass && d.smallBelow != 0 && uint64(c) < 1<<31 {
				t.Fatalf("threshold %v, counts %d and %d: range [%d, %d], within %v", th, c, n, lo, hi, pass)
			}
		}
		for c := 1; c <= 300; c++ {
			for n := 1; n <= 3*c+10; n++ {
				check(c, n)
			}
		}
		for _, c := range []int{1000, 4095, 65537, 1<<31 - 1, 1 << 31, 1 << 40} {
			lo, hi := d.countRange(c)
			for _, n := range []int{1, lo - 2, lo - 1, lo, lo + 1, lo + 2, c, hi - 2, hi - 1, hi, hi + 1, hi + 2, 1 << 45} {
				if n >= 1 && n < 1<<50 {
					check(c, n)
				}
			}
		}
	}
}

// logText is n bytes of log-like lines over a small vocabulary.
func logText(r *rand.Rand, n int) string {
	words := strings.Fields("the a request handler failed retry connection timeout user auth token " +
		"database query returned rows file not found permission denied build test passed compile error " +
		"module import config value missing null pointer index out of range warning deprecated")
	var b strings.Builder
	for b.Len() < n {
		fmt.Fprintf(&b, "2026-11-23T12:%02d:%02d.%03dZ INFO [%s] ", r.IntN(60), r.IntN(60), r.IntN(1000), words[r.IntN(len(words))])
		for range 6 + r.IntN(8) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "id=%d\n", r.IntN(100000))
	}
	return b.String()[:n]
}

// fuzzyPairs are the shapes of issue 25's fuzzy_repeat benchmark: a 1 MB
// output kept, then the next one: the same with 0.5% of its bytes
// changed (a loop: fires), its lines shuffled, or new text.
func fuzzyPairs() map[string][2]string {
	r := rand.New(rand.NewPCG(7, 8))
	const size = 1 << 20
	a := logText(r, size)
	near := []byte(a)
	for range size / 200 {
		near[r.IntN(len(near))] = "abcdefghijklmnopqrstuvwxyz0123456789 "[r.IntN(37)]
	}
	lines := strings.SplitAfter(a, "\n")
	r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	return map[string][2]string{
		"near-duplicate": {a, string(near)},
		"shuffled-lines": {a, strings.Join(lines, "")},
		"random-text":    {a, logText(r, size)},
	}
}

// BenchmarkFuzzyRepeat1MB times one step: a 1 MB output compared with
// the 1 MB output kept (issue 25: ≤ 100 ms a step).
func BenchmarkFuzzyRepeat1MB(b *testing.B) {
	pairs := fuzzyPairs()
	for _, name := range []string{"near-duplicate", "shuffled-lines", "random-text"} {
		p := pairs[name]
		b.Run(name, func(b *testing.B) {
			fired := 0
			var cpu time.Duration
			for range b.N {
				b.StopTimer()
				d, _ := NewFuzzyRepeat(DefaultFuzzyConfig())
				d.Step(Step{N: 1, Output: p[0]})
				before := replaytest.ProcessCPU()
				b.StartTimer()
				fired = len(d.Step(Step{N: 2, Output: p[1]}))
				b.StopTimer()
				cpu += replaytest.ProcessCPU() - before
				b.StartTimer()
			}
			b.ReportMetric(float64(fired), "fired")
			// Wall time on a shared machine counts the waits; CPU time is
			// the step's cost.
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkFuzzyRepeatChain1MB is issue 25's measurement: 10 steps of
// 1 MB outputs, each the previous with 0.5% of its bytes changed (it cost
// 17.6 s). Each step fires, so only the first output is kept, and the
// later steps are compared with it, further and further away.
func BenchmarkFuzzyRepeatChain1MB(b *testing.B) {
	r := rand.New(rand.NewPCG(11, 12))
	const size = 1 << 20
	outs := []string{logText(r, size)}
	for len(outs) < 10 {
		next := []byte(outs[len(outs)-1])
		for range size / 200 {
			next[r.IntN(len(next))] = "abcdefghijklmnopqrstuvwxyz0123456789 "[r.IntN(37)]
		}
		outs = append(outs, string(next))
	}
	fired := 0
	var cpu time.Duration
	for range b.N {
		before := replaytest.ProcessCPU()
		d, _ := NewFuzzyRepeat(DefaultFuzzyConfig())
		fired = 0
		for i, out := range outs {
			fired += len(d.Step(Step{N: i + 1, Output: out}))
		}
		cpu += replaytest.ProcessCPU() - before
	}
	b.ReportMetric(float64(fired), "firings")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N)/float64(len(outs)), "cpu-ms/step")
}

// FuzzDecodeRunes holds decodeRunes to ranging over the string.
func FuzzDecodeRunes(f *testing.F) {
	for _, s := range []string{"", "abc", "0123456789abcdefgh", "héllo wörld, 12345678", "\xff\xfe12345678\xed\xa0\x80abcdefgh€", "abcdefg\xe2\x82"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want []rune
		for _, r := range s {
			want = append(want, r)
		}
		got := make([]rune, len(s))
		got = got[:decodeRunes(got, s)]
		if !slices.Equal(got, want) {
			t.Fatalf("decodeRunes(%q) = %q, want %q", s, got, want)
		}
	})
}

// TestReusedDetectorsStartAfresh: a FuzzyRepeat released and a
// SignatureRepeat reset (as the rules reuse them from one episode to the
// next) fire on a sequence of steps exactly as new detectors do.
func TestReusedDetectorsStartAfresh(t *testing.T) {
	outs := []string{"You are in a maze.", "You are in a maze!", "It is dark.", "You are in a maze.", "You are in a maze.", "You are in a maze."}
	fuzzy := func(d *FuzzyRepeat) (fs []FuzzyFiring) {
		for i, o := range outs {
			fs = append(fs, d.Step(Step{N: i + 1, Output: o})...)
		}
		return fs
	}
	sig := func(d *SignatureRepeat) (fs []SignatureFiring) {
		for i, o := range outs {
			fs = append(fs, d.Step(Step{N: i + 1, Action: "look", Output: o})...)
		}
		return fs
	}
	fd, err := NewFuzzyRepeat(DefaultFuzzyConfig())
	if err != nil {
		t.Fatal(err)
	}
	sd, err := NewSignatureRepeat(DefaultSignatureConfig())
	if err != nil {
		t.Fatal(err)
	}
	wantF, wantS := fuzzy(fd), sig(sd)
	if len(wantF) == 0 || len(wantS) == 0 {
		t.Fatalf("fuzzy %v signature %v: the sequence must fire both", wantF, wantS)
	}
	fd.Release()
	sd.Reset()
	if got := fuzzy(fd); !reflect.DeepEqual(got, wantF) {
		t.Errorf("fuzzy after Release: %v, want %v", got, wantF)
	}
	if got := sig(sd); !reflect.DeepEqual(got, wantS) {
		t.Errorf("signature after Reset: %v, want %v", got, wantS)
	}
}

// TestHistogramSet holds histogram.set to a count by a map, and bound to
// the sum of the smaller counts, over texts of ASCII and other code points
// (set reuses one histogram, so what a text left must not leak into the
// next); the texts' lengths cross set's four-at-a-time boundary.
func TestHistogramSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 1))
	alphabet := []rune{'a', 'b', ' ', '\n', 0, 127, 128, 'é', '€', 0x10FFFF, '\uFFFD'}
	text := func() []rune {
		rs := make([]rune, rng.IntN(3*setScanFrom)) // set's two ways
		ascii := rng.IntN(2) == 0                   // most texts all ASCII: set's fast path
		for i := range rs {
			if ascii {
				rs[i] = rune(rng.IntN(128))
			} else {
				rs[i] = alphabet[rng.IntN(len(alphabet))]
			}
		}
		return rs
	}
	var h, o histogram
	for range 3000 {
		checkHistogram(t, &h, &o, text(), text(), (*histogram).set)
	}
}

// TestHistogramSetString is TestHistogramSet for setString, over texts of
// few and of many ASCII code points (empty clears the counts one by one or
// whole; setString lists them as it counts or after), one histogram
// reused.
func TestHistogramSetString(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 2))
	alphabet := []rune{'a', 'b', ' ', '\n', 0, 127, 128, 'é', '€', 0x10FFFF, '\uFFFD'}
	text := func() []rune {
		rs := make([]rune, rng.IntN(2*setStringScanFrom)) // setString's two ways
		kinds := 1 + rng.IntN(128)                        // distinct ASCII code points
		ascii := rng.IntN(2) == 0
		for i := range rs {
			if ascii {
				rs[i] = rune(rng.IntN(kinds))
			} else {
				rs[i] = alphabet[rng.IntN(len(alphabet))]
			}
		}
		return rs
	}
	setString := func(h *histogram, rs []rune) { h.setString(string(rs)) }
	// setSymbols over an ASCII text's bytes (lcsBytes's), over runes.
	setSymbolsOf := func(h *histogram, rs []rune) {
		if slices.ContainsFunc(rs, func(r rune) bool { return r >= utf8.RuneSelf }) {
			setSymbols(h, rs)
		} else {
			setSymbols(h, []byte(string(rs)))
		}
	}
	var h, o histogram
	for range 3000 {
		checkHistogram(t, &h, &o, text(), text(), setString)
		checkHistogram(t, &h, &o, text(), text(), setSymbolsOf)
	}
}

// FuzzHistogramSet is TestHistogramSet over any two texts, as
// fuzzy_repeat decodes them.
func FuzzHistogramSet(f *testing.F) {
	f.Add("kitten", "sitting")
	f.Add(strings.Repeat("Error: héllo\xff at auth.ts:45 ", 4), "Error\n")
	var h, o histogram
	f.Fuzz(func(t *testing.T, a, b string) {
		checkHistogram(t, &h, &o, []rune(a), []rune(b), (*histogram).set)
	})
}

// checkHistogram sets h to a and o to b and holds them to counts by a
// map, and h.bound(o) to the sum of the smaller counts.
func checkHistogram(t *testing.T, h, o *histogram, a, b []rune, set func(*histogram, []rune)) {
	t.Helper()
	count := func(rs []rune) map[rune]int {
		m := map[rune]int{}
		for _, r := range rs {
			m[r]++
		}
		return m
	}
	set(h, a)
	set(o, b)
	want := count(a)
	got := map[rune]int{}
	for _, c := range h.present {
		if _, dup := got[rune(c)]; dup {
			t.Fatalf("set(%q): %q listed twice in present", string(a), c)
		}
		got[rune(c)] = int(h.ascii[c])
	}
	for r, n := range h.other {
		if n != 0 {
			got[r] = int(n)
		}
	}
	for c, n := range h.ascii {
		if n != 0 && !slices.Contains(h.present, uint8(c)) {
			t.Fatalf("set(%q): %q counted but not listed", string(a), rune(c))
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("set(%q) = %v, want %v", string(a), got, want)
	}
	wb, shared := count(b), 0
	for r, n := range want {
		shared += min(n, wb[r])
	}
	if g := h.bound(o); g != shared {
		t.Fatalf("bound(%q, %q) = %d, want %d", string(a), string(b), g, shared)
	}
}

// benchOutput is a kilobyte and more of an agent's ASCII output, cut to
// each length the output benchmarks measure.
var benchOutput = strings.Repeat("Error: TypeError - Cannot read property 'id' of null at auth.ts:45\n    buffer error token ", 12)

// BenchmarkHistogramSet counts the code points of an agent's ASCII output
// (a short one and a kilobyte), as fuzzy_repeat does once for each output
// it compares.
func BenchmarkHistogramSet(b *testing.B) {
	for _, n := range []int{40, 1024} {
		rs := []rune(benchOutput[:n])
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var h histogram
			b.SetBytes(int64(len(rs)))
			for b.Loop() {
				h.set(rs)
			}
		})
	}
}

// BenchmarkHistogramSetString counts the bytes of an agent's ASCII output
// as fuzzy_repeat counts each output it compares (setString): a short one,
// one of a few lines and a kilobyte.
func BenchmarkHistogramSetString(b *testing.B) {
	for _, n := range []int{40, 80, 120, 1024} {
		s := benchOutput[:n]
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var h histogram
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				h.setString(s)
			}
		})
	}
}

// BenchmarkCountRunes counts the code points of an agent's ASCII output,
// as fuzzy_repeat counts every step's (countRunes): a short one, the
// median of a generated steps log (66 bytes), a few lines and a kilobyte.
func BenchmarkCountRunes(b *testing.B) {
	for _, n := range []int{40, 66, 120, 1024} {
		s := benchOutput[:n]
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				countRunes(s)
			}
		})
	}
}
