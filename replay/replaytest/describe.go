package replaytest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// fill decides everything about each turn except timestamps and noise.
func (p *episodePlan) fill(s *Scenario, rng *rand.Rand) {
	maxStuck, interval := s.liveConfig()
	scores := s.sortedScores()
	objAt := map[int]bool{}
	for _, o := range s.Objectives {
		objAt[o] = true
	}
	visited := map[string]bool{}
	usedVerbs := map[string][]string{} // room key -> recent actions
	var hist []int                     // loc_start ids, last 20
	lastChange, tracked := 0, 0
	lastObj := 0
	nObj := 0
	for i, st := range p.steps {
		visited[st.from.key] = true
		st.score = scoreAt(scores, st.n)
		if st.n > s.Turns { // the truncated turn
			st.score = scoreAt(scores, s.Turns)
		}
		if s.Ending == EndGameOver && st.n == s.Turns && !st.gap {
			st.to, st.kind, st.death = st.from, kVerb, true
		}
		p.describe(st, visited, usedVerbs, rng)
		visited[st.to.key] = true

		if objAt[st.n] {
			st.objective = objectiveTexts[nObj%len(objectiveTexts)]
			nObj++
			lastObj = st.n
		}

		// critic
		st.baseConf = math.Round((0.55+0.42*rng.Float64())*100) / 100
		st.criticScore = math.Round((0.3+0.65*rng.Float64())*100) / 100
		hist = append(hist, st.from.id)
		if len(hist) > 20 {
			hist = hist[1:]
		}
		if win := min(5, len(hist)-1); win >= 1 {
			for _, id := range hist[len(hist)-1-win : len(hist)-1] {
				if id == st.from.id {
					st.visits++
				}
			}
		}
		st.finalConf = st.baseConf
		if s.WithPenaltyEvents && st.visits > 0 {
			st.penalised = true
			adj := st.baseConf + -0.2*float64(st.visits)
			st.finalConf = max(0, min(1, adj))
		}
		canReject := !st.gap && !st.death && (s.NoRejectionsAfter <= 0 || st.n <= s.NoRejectionsAfter) && st.n <= s.Turns
		if canReject && s.RejectionRate > 0 && rng.Float64() < s.RejectionRate {
			k := 1
			if rng.Float64() < 0.3 {
				k = 2
			}
			override := rng.Float64() < 0.15
			if override {
				k--
			}
			for j := 0; j < k; j++ {
				a, dir := altAction(st, rng)
				st.rejections = append(st.rejections, rejection{
					action:        a,
					score:         math.Round((-0.9+1.05*rng.Float64())*100) / 100,
					justification: fmt.Sprintf(pick(rng, justifications), dir, st.from.name),
				})
			}
			if override {
				st.override = &rejection{
					action:        st.action,
					score:         math.Round((-0.5+0.6*rng.Float64())*100) / 100,
					justification: pick(rng, overrideReasons),
				}
				st.criticScore = st.override.score
			}
			st.finalConf = math.Round((0.5+0.45*rng.Float64())*100) / 100
		}
		st.reasoning = reasoning(s, st, rng)

		// live loop-break, rule 1 (objective progress on)
		if i == 0 {
			lastChange, tracked = 0, st.score
		} else if st.n <= s.Turns {
			stuck := st.n - lastChange
			if st.score != tracked {
				old := tracked
				lastChange, tracked = st.n, st.score
				if stuck > 0 {
					st.liveScoreChange, st.oldScore, st.stuckFor = true, old, stuck
				}
			} else if lastObj > 0 && st.n-lastObj <= 1 && stuck > 0 {
				lastChange = st.n
				st.liveObjReset, st.stuckFor = true, stuck
			}
			if st.n%interval == 0 && st.n-lastChange >= maxStuck && p.firstCheckPoint == 0 {
				p.firstCheckPoint = st.n
			}
		}
	}
	p.lastChange = lastChange
	p.objectives = nObj
}

// describe picks the action text and the game's reply.
func (p *episodePlan) describe(st *step, visited map[string]bool, used map[string][]string, rng *rand.Rand) {
	r := st.from
	switch st.kind {
	case kMove, kSelf:
		st.action = phraseDir(st.dir, rng)
		// brief mode: the full description only on a first visit
		if !visited[st.to.key] {
			st.response = st.to.name + "\n" + st.to.desc
			st.describes = true
		} else {
			st.response = st.to.name
		}
		return
	case kRefused:
		st.action = phraseDir(st.dir, rng)
		st.response = r.refusal(st.dir)
		return
	}
	if st.death {
		st.action, st.response = deathFor(r, st.score, st.n)
		return
	}
	recent := used[r.key]
	var v verb
	if st.camp && len(recent) > 0 && rng.Float64() < 0.55 {
		a := pick(rng, recent)
		v = findVerb(r, a)
	} else if len(r.verbs) > 0 && rng.Float64() < 0.65 {
		v = pick(rng, r.verbs)
	} else {
		v = pick(rng, genericVerbs)
	}
	st.action = v.action
	st.response = v.response
	if strings.HasPrefix(v.action, "take ") && v.response == "Taken." {
		if used["taken:"+v.action] != nil {
			st.response = "You already have that!"
		}
		used["taken:"+v.action] = []string{}
	}
	if v.action == "look" {
		st.response = r.name + "\n" + r.desc
		st.describes = true
	}
	if !contains(recent, v.action) {
		recent = append(recent, v.action)
		if len(recent) > 3 {
			recent = recent[1:]
		}
		used[r.key] = recent
	}
}

func findVerb(r *room, action string) verb {
	for _, v := range r.verbs {
		if v.action == action {
			return v
		}
	}
	for _, v := range genericVerbs {
		if v.action == action {
			return v
		}
	}
	return verb{action, "Nothing happens."}
}

func phraseDir(d string, rng *rand.Rand) string {
	x := rng.Float64()
	switch {
	case x < 0.6:
		return d
	case x < 0.83:
		if a, ok := dirAbbrev[d]; ok {
			return a
		}
		return d
	case x < 0.96:
		return "go " + d
	default:
		return strings.ToUpper(d[:1]) + d[1:]
	}
}

// altAction is an action the critic rejected before the final one: a
// direction the room lacks, or a repeated room action.
func altAction(st *step, rng *rand.Rand) (action, about string) {
	r := st.from
	if cd := r.closedDirs(); len(cd) > 0 && rng.Float64() < 0.6 {
		d := pick(rng, cd)
		return d, d
	}
	v := pick(rng, genericVerbs)
	if len(r.verbs) > 0 && rng.Float64() < 0.7 {
		v = pick(rng, r.verbs)
	}
	if v.action == st.action {
		return "wait", "wait"
	}
	return v.action, v.action
}

func deathFor(r *room, score, moves int) (string, string) {
	tail := fmt.Sprintf("\n\n    ****  You have died  ****\n\nYour score is %d (total of 350 points), in %d moves.\nThis gives you the rank of %s.", score, moves, rank(score))
	switch r.key {
	case "TROLL-ROOM":
		return "attack troll with sword", "The troll's mighty axe crashes down on your skull, and everything goes dark." + tail
	case "CANYON-VIEW":
		return "jump", "Nice view, lousy place to jump." + tail
	}
	return "wait", "Your lamp has run out of power.\nIt is now pitch black. You are likely to be eaten by a grue.\n\nOh, no! A lurking grue slithered into the room and devoured you!" + tail
}

func rank(score int) string {
	switch {
	case score >= 200:
		return "Adventurer"
	case score >= 100:
		return "Junior Adventurer"
	case score >= 50:
		return "Novice Adventurer"
	case score >= 25:
		return "Amateur Adventurer"
	}
	return "Beginner"
}

func reasoning(s *Scenario, st *step, rng *rand.Rand) string {
	var out string
	switch {
	case st.kind == kMove || st.kind == kSelf || st.kind == kRefused:
		out = fmt.Sprintf(pick(rng, moveReasons), st.dir, st.from.name)
	case st.camp && rng.Float64() < 0.5:
		out = fmt.Sprintf(pick(rng, stuckReasons), st.action, st.from.name)
	default:
		out = fmt.Sprintf(pick(rng, verbReasons), st.action, st.from.name)
	}
	if s.Quirks.NonASCII && rng.Float64() < 0.3 {
		out += pick(rng, nonASCIIBits) + "worth a try."
	}
	return out
}
