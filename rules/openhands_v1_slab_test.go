package rules_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/replay/replaytest"
	"github.com/loopbreak/loopbreak/rules"
	"github.com/loopbreak/loopbreak/rules/detect"
)

// TestV1EventsSlabbed holds the V1 engine's events, handed out from
// slabs (rules' v1Slab), to events allocated each on its own: random V1
// logs of up to ~1,000 events, under the default configuration and with
// every rule on, replayed with slabs of 256, of 3 (refilled every third
// event) and of 1, report the firings of a replay allocating each. A
// slot handed out twice, while the detector or the artifacts still hold
// the event it was, changes them.
func TestV1EventsSlabbed(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 24))
	var logs [][2]string
	for trial := range 30 {
		logs = append(logs,
			[2]string{fmt.Sprintf("v1-%d.jsonl", trial), string(replaytest.V1Log(rng, 5+rng.IntN(600)))},
			[2]string{fmt.Sprintf("v1-alternating-%d.jsonl", trial), v1Alternating(rng, 1+rng.IntN(80))})
	}
	was := rules.V1Slab(0)
	defer rules.V1Slab(was)
	fired := 0
	for _, cfg := range []*rules.Config{rules.Default(), allOn(t)} {
		for _, log := range logs {
			eps, err := replay.Read(bytes.NewReader([]byte(log[1])), log[0], "x", replay.Options{Format: replay.FormatAuto, Outputs: true})
			if err != nil {
				t.Fatalf("%s: %v", log[0], err)
			}
			for i, ep := range eps {
				var want []rules.Firing
				rules.V1Slab(0)
				rules.Run(ep, cfg, nil, func(f rules.Firing) { want = append(want, f) })
				for _, n := range []int{256, 3, 1} {
					var got []rules.Firing
					rules.V1Slab(n)
					rules.Run(ep, cfg, nil, func(f rules.Firing) { got = append(got, f) })
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%s: episode %d, slabs of %d: %d firings, allocated each: %d\n%s", log[0], i, n, len(got), len(want), firstDiff(got, want))
					}
				}
				for _, f := range want {
					if f.Rule.Origin == rules.OriginOpenHandsV1 {
						fired++
					}
				}
			}
		}
	}
	if fired == 0 {
		t.Fatal("no V1 check fired: the test holds nothing")
	}
}

// TestV1EventAsLiteral holds the V1 engine's event, which leaves a
// string of Sym 0 unset in its new slot, to the event as first built,
// every string looked up: every event of random V1 logs (sources, ids,
// tools and errors set and not), in slabs and allocated each.
func TestV1EventAsLiteral(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 24))
	was := rules.V1Slab(0)
	defer rules.V1Slab(was)
	var set, unset [5]int
	for trial := range 20 {
		log := replaytest.V1Log(rng, 5+rng.IntN(400))
		eps, err := replay.Read(bytes.NewReader(log), fmt.Sprintf("v1-%d.jsonl", trial), "x", replay.Options{Format: replay.FormatAuto, Outputs: true})
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		for _, ep := range eps {
			evs := ep.V1Events(0)
			for i := range evs {
				ev := &evs[i]
				want := detect.OpenHandsV1Event{Class: detect.V1Class(ev.Class), Source: ep.HistoryStr(ev.Source), Key: ep.HistoryStr(ev.Key),
					ID: ep.HistoryStr(ev.ID), Tool: ep.HistoryStr(ev.Tool), Error: ep.HistoryStr(ev.Error)}
				for _, n := range []int{0, 3} {
					rules.V1Slab(n)
					if got := rules.V1EventOf(ep, ev); got != want {
						t.Fatalf("trial %d, event %d (slabs of %d): %+v, want %+v", trial, i, n, got, want)
					}
				}
				for k, s := range []replay.Sym{ev.Source, ev.Key, ev.ID, ev.Tool, ev.Error} {
					if s != 0 {
						set[k]++
					} else {
						unset[k]++
					}
				}
			}
		}
	}
	for k := range set {
		if set[k] == 0 {
			t.Errorf("no event sets string %d (unset %d): the test holds nothing of it", k, unset[k])
		}
	}
}
