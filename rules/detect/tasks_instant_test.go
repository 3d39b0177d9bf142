package detect

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestInstantAsTime holds instants to time.Time: of every pair of times
// (nanoseconds and seconds apart, years apart, at the bounds of a
// Duration and of plain instants, in other zones, with a monotonic
// reading), before is Before and atLeast is Sub(...) >= w for windows of a
// nanosecond to the largest Duration, where both are plain; a time with a
// monotonic reading or out of bounds is not.
func TestInstantAsTime(t *testing.T) {
	base := time.Date(2026, 6, 16, 5, 0, 0, 500, time.UTC)
	zone := time.FixedZone("x", -7*3600)
	var times []time.Time
	for _, d := range []time.Duration{0, 1, -1, 999_999_999, 1_000_000_000, 1_000_000_001, -999_999_999, -1_000_000_001,
		time.Hour, time.Hour + 1, time.Hour - 1, -time.Hour, 100 * 365 * 24 * time.Hour, math.MaxInt64, math.MinInt64} {
		times = append(times, base.Add(d), base.Add(d).In(zone))
	}
	times = append(times, time.Time{}, time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC), time.Unix(maxInstantSec-1, 999_999_999), time.Unix(-maxInstantSec+1, 0),
		time.Unix(maxInstantSec, 0), time.Unix(-maxInstantSec, 0), time.Unix(math.MaxInt64, 0), time.Unix(math.MinInt64, 0))
	r := rand.New(rand.NewPCG(3, 24))
	for range 300 {
		times = append(times, base.Add(time.Duration(r.Int64N(4e9)-2e9)), time.Unix(r.Int64N(1<<40)-1<<39, r.Int64N(1e9)),
			time.Unix(r.Int64()>>r.IntN(64), r.Int64N(1e9)))
	}
	now := time.Now()
	windows := []time.Duration{1, 2, 999_999_999, time.Second, time.Second + 1, time.Hour, time.Hour + 1, 2*time.Hour - 1,
		100 * 365 * 24 * time.Hour, math.MaxInt64, math.MaxInt64 - 1}
	for range 20 {
		windows = append(windows, time.Duration(r.Int64N(1<<40)+1), time.Duration(r.Int64()>>r.IntN(63)|1))
	}
	for _, m := range []time.Time{now, now.Add(time.Hour)} {
		if _, plain := instantOf(m); plain {
			t.Fatalf("%v has a monotonic reading, instantOf says plain", m)
		}
	}
	n := 0
	for _, a := range times {
		ia, pa := instantOf(a)
		if pa != (a.Unix() > -maxInstantSec && a.Unix() < maxInstantSec) {
			t.Fatalf("instantOf(%v) plain %v", a, pa)
		}
		for _, b := range times {
			ib, pb := instantOf(b)
			if !pa || !pb {
				continue
			}
			n++
			if ia.before(ib) != a.Before(b) {
				t.Fatalf("%v before %v: instants %v, times %v", a, b, ia.before(ib), a.Before(b))
			}
			for _, w := range windows {
				if got, want := atLeast(ia, ib, w), a.Sub(b) >= w; got != want {
					t.Fatalf("%v - %v >= %v: instants %v, times %v (%v)", a, b, w, got, want, a.Sub(b))
				}
			}
		}
	}
	if n < 100000 {
		t.Fatalf("%d plain pairs compared", n)
	}
}

// TestTaskAttemptsInstants replays attempts nanoseconds around the
// window's edge, out of order, with and without a monotonic reading
// (which the detector compares by their time.Time), through the
// detector and the reference.
func TestTaskAttemptsInstants(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 24))
	base := time.Date(2026, 6, 16, 5, 0, 0, 0, time.UTC)
	mono := time.Now()
	for round := range 200 {
		w := time.Duration(1+r.IntN(3)) * time.Second
		if round%3 == 0 {
			w += time.Duration(r.IntN(1e9))
		}
		cfg := TaskConfig{MaxAttempts: 2 + r.IntN(3), AttemptWindow: w, EnableAutoUnblock: true,
			MaxAttemptsBeforeForceNext: 1 + r.IntN(6), AttemptsRecovery: r.IntN(2) == 0}
		d, err := NewTaskAttempts(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ref := &refDetector{cfg: cfg, tasks: map[string][]Attempt{}}
		at := time.Duration(0)
		for i := range 300 {
			at += time.Duration(r.IntN(3)) * w / 4
			if r.IntN(2) == 0 {
				at += time.Duration(r.IntN(5) - 2) // around an edge
			}
			if r.IntN(10) == 0 {
				at -= w
			}
			ts := base.Add(at)
			if round%4 == 3 && i > 100 {
				ts = mono.Add(at) // a monotonic reading from here on
			}
			a := Attempt{TaskID: []string{"A", "B"}[r.IntN(2)], Status: "blocked", Blockers: []string{"x"}, Timestamp: ts}
			loop, rec, n := ref.attempt(a)
			got, want := "", ""
			if fs := d.Attempt(a); len(fs) == 1 {
				got = fmt.Sprint(fs[0].LoopType, fs[0].Recommendation, fs[0].AttemptCount)
			}
			if loop != "" {
				want = fmt.Sprint(loop, rec, n)
			}
			if got != want {
				t.Fatalf("round %d attempt %d (%+v, %v): got %q, want %q", round, i+1, cfg, at, got, want)
			}
		}
	}
}
