package rules

import (
	"github.com/loopbreak/loopbreak/replay"
)

// Camping is RULES.md section 5: repeated returns to one location.
var Camping = &Rule{
	Name:    "camping",
	Title:   "one location filling the recent window",
	Section: "RULES.md §5",
	Doc: "Over the last camping_window turn-start locations (at least camping_threshold of them), counts " +
		"each location; when the most frequent reaches camping_threshold the agent is camping there (on a " +
		"tie, the location that appears first in the window). Runs with enable_loop_detection and feeds " +
		"score_adjustment.",
	Params: []Param{
		intParam("camping_threshold", 5, "visits within the window that mean camping", bound(1), nil),
		intParam("camping_window", 10, "recent locations examined", bound(1), nil),
		floatParam("camping_return_penalty", -0.6, "added to the confidence of an action returning to the camped location", bound(-1), bound(0)),
	},
	Kinds: []Kind{
		{Name: "detection", Doc: "a location fills the window", Fields: []string{"location", "visits"}},
	},
	Enabled: func(c *Config) bool { return c.Bool("enable_loop_detection") },
	New: func(c *Config, ep *replay.Episode) Stepper {
		return &CampingState{threshold: c.Int("camping_threshold"), window: c.Int("camping_window"), hist: locHistory{max: historyLen}}
	},
}

// CampingState publishes this turn's detection to score_adjustment.
type CampingState struct {
	threshold, window int
	hist              locHistory
	Detected          bool
	Location          string
	Visits            int
}

func (c *CampingState) Step(t *replay.Turn, env *Env) {
	c.Detected = false
	if t.LocStart == "" {
		return
	}
	c.hist.push(t.LocStart)
	h := c.hist.buf
	w := min(c.window, len(h))
	if w < c.threshold {
		return
	}
	win := h[len(h)-w:]
	best, bestN := "", 0
	for i, l := range win {
		if indexOf(win[:i], l) >= 0 {
			continue // counted at its first appearance
		}
		n := 1
		for _, m := range win[i+1:] {
			if m == l {
				n++
			}
		}
		if n > bestN { // strict: ties keep the earlier location
			best, bestN = l, n
		}
	}
	if bestN >= c.threshold {
		c.Detected, c.Location, c.Visits = true, best, bestN
		env.Report(Firing{Turn: t.N, Rule: "camping", Kind: "detection", Location: best, Visits: bestN})
	}
}

func indexOf(s []string, x string) int {
	for i, v := range s {
		if v == x {
			return i
		}
	}
	return -1
}
