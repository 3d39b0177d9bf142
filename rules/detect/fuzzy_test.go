package detect

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
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
			{N: 1, Action: "aaaa", Output: "aaaaaa"},
			{N: 2, Kind: KindMessage, Output: "aaaaaaaaab"}, // LCS 9, lengths 10+10: 20·9 >= 9·20
		}, []fire{{2, 1, 0.9}}},
		{"just below 0.90", DefaultFuzzyConfig(), []Step{
			{N: 1, Output: "aaaaaaaaaa"},
			{N: 2, Output: "aaaaaaaabb"}, // 16/20
		}, nil},
		{"odd total needs the ceiling", DefaultFuzzyConfig(), []Step{
			{N: 1, Output: "abcdefghij"},
			{N: 2, Output: "abcdefghi"}, // LCS 9: 20·9=180 >= 9·19=171 → 0.9474
			{N: 3, Output: "abcdefgh"},  // vs 2: 16/17=0.9412; vs 1: 16/18
		}, []fire{{2, 1, 0.9474}, {3, 2, 0.9412}}},
		{"latest wins a tie", DefaultFuzzyConfig(), []Step{
			{N: 1, Output: "abcdefghij"}, {N: 2, Output: "abcdefghij"}, {N: 3, Output: "abcdefghij"},
		}, []fire{{2, 1, 1}, {3, 2, 1}}},
		{"best match beats the latest", DefaultFuzzyConfig(), []Step{
			{N: 1, Output: "aaaaaaaaaa"}, {N: 2, Output: "aaaaaaaaab"}, {N: 3, Output: "aaaaaaaaaa"},
		}, []fire{{2, 1, 0.9}, {3, 1, 1}}},
		{"window 2 forgets step 1", FuzzyConfig{Threshold: 0.9, Window: 2}, []Step{
			{N: 1, Output: "xyzxyzxyzx"}, {N: 2, Output: "0000000000"}, {N: 3, Output: "1111111111"}, {N: 4, Output: "xyzxyzxyzx"},
		}, nil},
		{"window 3 remembers step 1", FuzzyConfig{Threshold: 0.9, Window: 3}, []Step{
			{N: 1, Output: "xyzxyzxyzx"}, {N: 2, Output: "0000000000"}, {N: 3, Output: "1111111111"}, {N: 4, Output: "xyzxyzxyzx"},
		}, []fire{{4, 1, 1}}},
		{"two empty texts", DefaultFuzzyConfig(), []Step{
			{N: 7, Kind: KindMessage}, {N: 9, Kind: KindCondensation},
		}, []fire{{9, 7, 1}}},
		{"empty and non-empty", DefaultFuzzyConfig(), []Step{{N: 1}, {N: 2, Output: "x"}}, nil},
		{"raw action and output, no separator", DefaultFuzzyConfig(), []Step{
			{N: 1, Action: "ab", Output: "cd"}, {N: 2, Action: "abc", Output: "d"},
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
			{N: 3, Output: strings.Repeat("a", 18) + "bb"}, // vs 2: LCS 19, 38/40; vs 1: 36/40
		}, []fire{{2, 1, 0.95}, {3, 2, 0.95}}},
		{"threshold 1 needs equal texts", FuzzyConfig{Threshold: 1, Window: 5}, []Step{
			{N: 1, Output: "ab"}, {N: 2, Output: "abc"}, {N: 3, Output: "ab"},
		}, []fire{{3, 1, 1}}},
		{"threshold 0 always fires", FuzzyConfig{Threshold: 0, Window: 5}, []Step{
			{N: 1, Output: "ab"}, {N: 2, Output: "cd"},
		}, []fire{{2, 1, 0}}},
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
		var texts [][]rune
		base := randomRunes(r, alpha, r.IntN(150))
		for n := 1; n <= 12; n++ {
			var txt []rune
			if r.IntN(3) == 0 {
				txt = randomRunes(r, alpha, r.IntN(150))
			} else {
				txt = mutate(r, base, alpha, r.IntN(8))
			}
			// Naive: best over the window, latest on a tie.
			wantStep, wantNum, wantDen := 0, 0, 1
			for k := len(texts) - 1; k >= 0 && k >= len(texts)-cfg.Window; k-- {
				l, tot := naiveLCS(txt, texts[k]), len(txt)+len(texts[k])
				sn, sd := 2*l, tot
				if tot == 0 {
					sn, sd = 1, 1
				}
				if 2*den*l < num*tot && tot > 0 {
					continue
				}
				if wantStep == 0 || sn*wantDen > wantNum*sd {
					wantStep, wantNum, wantDen = k+1, sn, sd
				}
			}
			texts = append(texts, txt)
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
