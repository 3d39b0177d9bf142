package report

// Words of the HTML timeline: its caption, the hover titles of rule runs
// and the room lanes that show oscillation and camping.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// timelineCaption says in words what the chart shows.
func timelineCaption(tl *Timeline, notes []string) string {
	o := tl.Outcome
	s := fmt.Sprintf("Turns %d to %d: the score ends at %s", tl.First, tl.Last, Num(o.FinalScore))
	if o.Story != nil && len(o.Story.StuckPeriods) > 0 {
		s += fmt.Sprintf(" after %d stuck periods", len(o.Story.StuckPeriods))
	}
	if tl.Cut != 0 {
		s += fmt.Sprintf("; the replay cuts at t=%d", tl.Cut)
		if tl.Progress != 0 {
			s += fmt.Sprintf(" and the score still rises after the cut, first at t=%d", tl.Progress)
		} else if o.FalseTermination {
			s += " and the recording still makes progress after the cut"
		}
	} else {
		s += "; the replay never cuts"
	}
	if tl.LiveStop != 0 {
		s += fmt.Sprintf("; the live run stopped at t=%d", tl.LiveStop)
	}
	if tl.Live != nil && !tl.Live.Agrees() {
		s += fmt.Sprintf("; %d live decisions differ from the replay's", len(tl.Live.Disagreements))
	}
	s += "."
	if len(notes) > 0 {
		s += " Summarised: " + strings.Join(notes, "; ") + "."
	}
	return s
}

// runsTitle describes a rule's runs: how many, and the largest.
func runsTitle(r *rules.Rule, runs []analyze.Run, firings int, ep *replay.Episode) string {
	t := fmt.Sprintf("%s: %d firings in %d runs", r.Name, firings, len(runs))
	runs = append([]analyze.Run(nil), runs...)
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].Firings > runs[j].Firings })
	var top []string
	for _, run := range runs[:min(len(runs), MaxTitledRuns)] {
		s := fmt.Sprintf("%s %s (%d", runPlace(run, ep), span2(run.From, run.To), run.Firings)
		if run.WouldReject > 0 {
			s += fmt.Sprintf(", %d would reject", run.WouldReject)
		}
		top = append(top, s+")")
	}
	if len(runs) > 1 {
		return t + "; largest: " + strings.Join(top, "; ")
	}
	return t + ": " + top[0]
}

// runPlace names where a run fired.
func runPlace(r analyze.Run, ep *replay.Episode) string {
	switch r.Rule {
	case rules.Oscillation:
		a, b, _ := strings.Cut(r.Key, "\x00")
		return "between " + ep.RoomName(a) + " and " + ep.RoomName(b)
	case rules.ActionNovelty:
		return "(repeated actions)"
	}
	return "at " + ep.RoomName(r.Key)
}

func span2(a, b int) string {
	if a == b {
		return fmt.Sprintf("t=%d", a)
	}
	return fmt.Sprintf("t=%d–%d", a, b)
}

// roomLanes groups turns by room: the laneCount most visited rooms get a
// lane of [from, to] turn segments; a gap in every lane is elsewhere (a
// lane for the other rooms would cost more bytes than it tells).
// Beyond MaxChartPoints segments in all lanes, turns are bucketed (per
// turns a step).
func roomLanes(tl *Timeline) (lanes [][][2]int, names []string, turns []int, per int) {
	count := map[string]int{}
	for _, l := range tl.Loc {
		if l != "" {
			count[l]++
		}
	}
	if len(count) == 0 {
		return nil, nil, nil, 1
	}
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if count[keys[i]] != count[keys[j]] {
			return count[keys[i]] > count[keys[j]]
		}
		return keys[i] < keys[j]
	})
	laneOf := map[string]int{}
	for k, key := range keys {
		if k < laneCount {
			laneOf[key] = k
			names = append(names, tl.ep.RoomName(key))
			turns = append(turns, count[key])
		} else {
			laneOf[key] = -1
		}
	}
	n := len(tl.Loc)
	per = 1
	for {
		lanes = make([][][2]int, len(names))
		total := 0
		for b := 0; b < n; b += per {
			seen := map[int]bool{}
			for i := b; i < min(b+per, n); i++ {
				if k, ok := laneOf[tl.Loc[i]]; ok && k >= 0 {
					seen[k] = true
				}
			}
			for k := range seen {
				segs := lanes[k]
				from, to := tl.First+b, tl.First+min(b+per, n)-1
				if m := len(segs); m > 0 && segs[m-1][1] == from-1 {
					segs[m-1][1] = to
				} else {
					segs = append(segs, [2]int{from, to})
					total++
				}
				lanes[k] = segs
			}
		}
		if total <= MaxChartPoints {
			return lanes, names, turns, per
		}
		per *= 2
	}
}
