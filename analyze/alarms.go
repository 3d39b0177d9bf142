package analyze

import (
	"slices"
	"unsafe"

	"github.com/loopbreak/loopbreak/replay"
)

// What a false alarm is measured against (AlarmJudge).
const (
	BasisScore        = "score"         // steps with a score: the score rose after the firing
	BasisTaskProgress = "task_progress" // attempts: the task progressed after the firing
	BasisLabels       = "labels"        // labelled logs: the firing is outside every span judged stuck
)

// AlarmJudge returns the test of a false alarm for a loop firing at turn
// (step, attempt) n of ep, and what it is measured against; nil when the
// log cannot tell. A false alarm is a firing after which the agent was not
// stuck after all:
//   - a steps log with scores: a later step has a higher score than the
//     step that fired (RULES.md's false termination, per firing);
//   - an attempts log: a later attempt at the same task records completed
//     work the firing attempt did not have, or is done when it was not;
//   - a ZorkGPT log: the score rose after the firing turn, as for steps.
func AlarmJudge(ep *replay.Episode) (func(n int) bool, string) {
	switch {
	case ep.Format == replay.FormatAttempts:
		var progressed []bool
		return attemptsJudge(ep, &progressed), BasisTaskProgress
	case scoreJudged(ep):
		return scoreJudge(ep, scoreRose(ep.Turns)), BasisScore
	}
	return nil, ""
}

// scoreJudged says ep's firings are judged by its score (AlarmJudge).
func scoreJudged(ep *replay.Episode) bool {
	return ep.Format != replay.FormatAttempts && (ep.Format != replay.FormatSteps || ep.HasScore) && len(ep.Turns) > 0
}

// scoreJudge judges a firing at turn n by rose, ep's turns that a later
// turn's score is above (scoreRose), as they were when rose was made:
// one bit read, where the first peak after the turn was searched for
// (from a hint) and its score compared with the turn's, ~25
// instructions a question (a steps log judges each loop firing twice,
// for the outcome and the report's tally).
func scoreJudge(ep *replay.Episode, rose []uint64) func(n int) bool {
	first := ep.Turns[0].N
	return func(n int) bool {
		i := uint(n - first)
		w := i / 64
		return w < uint(len(rose)) && rose[w]&(1<<(i%64)) != 0
	}
}

// AlarmJudge is the package's AlarmJudge for o's episode ep, sharing
// what it computes with analyzeInto's: an attempts log's pass over every
// attempt (tasksProgressed) is made once for the outcome and the report's
// tables, not once each (a third of a 100 MB attempts log's analysis
// after its reading).
// A log judged by its score has its turns judged once too (scoreRose, a
// pass over every turn), where the outcome's judge and each of the
// report's outputs judged them again; they are judged anew should the
// episode have grown since.
func (o *Outcome) AlarmJudge(ep *replay.Episode) (func(n int) bool, string) {
	switch {
	case o == nil:
		return AlarmJudge(ep)
	case ep.Format == replay.FormatAttempts:
		return attemptsJudge(ep, &o.progressed), BasisTaskProgress
	case scoreJudged(ep):
		if o.rose == nil || o.roseTurns != len(ep.Turns) {
			o.rose, o.roseTurns = scoreRose(ep.Turns), len(ep.Turns)
		}
		return scoreJudge(ep, o.rose), BasisScore
	}
	return AlarmJudge(ep)
}

// attemptsJudge judges an attempts log's firings by *progressed, which
// it computes at the first question when nil.
func attemptsJudge(ep *replay.Episode, progressed *[]bool) func(n int) bool {
	return func(n int) bool {
		if *progressed == nil {
			*progressed = tasksProgressed(ep.NumAttempts(), ep.AttemptWork)
		}
		p := *progressed
		return n >= 1 && n <= len(p) && p[n-1]
	}
}

// scoreRose returns a bit a turn, set where a later turn's score is above
// the turn's: the score rose after it (a false alarm). One pass from the
// last turn keeps the highest score after the turn (as the first of the
// turns above every later one, the last turn first: a NaN score is never
// above another, nor another above it). A bit a turn, where a list of
// those peaks, searched at each question, was some 25 instructions a
// question; a table of the highest score after each turn would cost 8
// bytes a turn.
func scoreRose(turns []replay.Turn) []uint64 {
	if len(turns) == 0 {
		return nil
	}
	last := len(turns) - 1
	rose := make([]uint64, last/64+1)
	best := turns[last].Score
	for i := last - 1; i >= 0; i-- {
		if s := turns[i].Score; best > s {
			rose[uint(i)/64] |= 1 << (uint(i) % 64)
		} else if s > best {
			best = s
		}
	}
	return rose
}

// tasksProgressed says, for each attempt, whether a later attempt at its
// task records work it did not have, or is done when it was not. One pass
// from the end keeps, per task, the work recorded after the attempt and
// whether a later one is done: some later attempt has work the attempt
// lacks exactly when that union is not within the attempt's work.
//
// An autopilot repeats a few tasks, each with the same few lists of work
// attempt after attempt (an episode's lists are shared between its
// attempts), so a task is found among the few by comparing ids, not
// hashing them (laterOf), a list merged into a task's union just before
// is not merged again, and the answer for a list is kept while the union
// has not grown (laterTasks.beyond): a map's hash, insert and randomly
// seeded walk at every attempt were a sixth of an attempts log's
// instructions. The lists attempt returns are read as not changing
// afterwards, as an episode's do not (AttemptWork): a list is told from
// the last by its first element's address and its length.
func tasksProgressed(n int, attempt func(i int) (task, status string, work []string)) []bool {
	var t laterTasks
	out := make([]bool, n)
	for i := n - 1; i >= 0; i-- {
		task, status, work := attempt(i)
		l := t.laterOf(task)
		done := status == "done"
		p := l.done && !done
		if !p && len(l.work) > 0 {
			p = t.beyond(l, work)
		}
		out[i] = p
		l.merge(work)
		l.done = l.done || done
	}
	return out
}

// later is what the attempts after one at a task did (tasksProgressed).
type later struct {
	task string
	work []string            // the distinct works recorded after, in the order met
	set  map[string]struct{} // work's index, once work is longer than smallWork
	done bool                // an attempt after was done

	merged    []string // the list merged last: merging it again adds nothing
	hasMerged bool

	// The last answer of beyond: asked of list asked while work had
	// askedLen strings (work only grows, so the same length is the same
	// union).
	asked    []string
	askedLen int
	askedP   bool
	hasAsked bool
}

// smallWork bounds the works a later and an attempt compare by scanning
// (comparing is cheaper than hashing, up to 8 against 8).
const smallWork = 8

// has says w is among l's work.
func (l *later) has(w string) bool {
	if l.set != nil {
		_, ok := l.set[w]
		return ok
	}
	return slices.Contains(l.work, w)
}

// merge adds the works of list to l's union.
func (l *later) merge(list []string) {
	if len(list) == 0 || l.hasMerged && sameList(list, l.merged) {
		return
	}
	for _, w := range list {
		if l.has(w) {
			continue
		}
		l.work = append(l.work, w)
		if l.set != nil {
			l.set[w] = struct{}{}
		} else if len(l.work) > smallWork {
			l.set = make(map[string]struct{}, 2*len(l.work))
			for _, v := range l.work {
				l.set[v] = struct{}{}
			}
		}
	}
	l.merged, l.hasMerged = list, true
}

// sameList says a and b are the same list: the same length from the same
// address (an episode's lists are shared, never changed).
func sameList(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// laterTasks holds tasksProgressed's laters, one a task.
type laterTasks struct {
	laters []*later
	index  map[string]*later   // by task, once there are more than scanTasks
	mine   map[string]struct{} // reused: an attempt's work, when long
}

// scanTasks bounds the tasks laterOf finds by comparing ids.
const scanTasks = 8

// laterOf returns task's later, adding it when new.
func (t *laterTasks) laterOf(task string) *later {
	if t.index != nil {
		if l := t.index[task]; l != nil {
			return l
		}
	} else {
		// An episode's task ids are its interned strings: the same id
		// is at the same address, told without comparing bytes.
		for _, l := range t.laters {
			if len(l.task) == len(task) && unsafe.StringData(l.task) == unsafe.StringData(task) {
				return l
			}
		}
		for _, l := range t.laters {
			if l.task == task {
				return l
			}
		}
	}
	l := &later{task: task}
	t.laters = append(t.laters, l)
	if t.index != nil {
		t.index[task] = l
	} else if len(t.laters) > scanTasks {
		t.index = make(map[string]*later, 2*len(t.laters))
		for _, m := range t.laters {
			t.index[m.task] = m
		}
	}
	return l
}

// beyond says l's work is not within work: some later attempt has work
// the attempt lacks. l's work is not empty.
func (t *laterTasks) beyond(l *later, work []string) bool {
	if l.hasAsked && l.askedLen == len(l.work) && sameList(work, l.asked) {
		return l.askedP
	}
	// The union of distinct strings cannot fit in fewer.
	p := len(l.work) > len(work)
	if !p {
		if len(work) <= smallWork {
			for _, w := range l.work {
				if !slices.Contains(work, w) {
					p = true
					break
				}
			}
		} else {
			if t.mine == nil {
				t.mine = map[string]struct{}{}
			}
			clear(t.mine)
			for _, w := range work {
				t.mine[w] = struct{}{}
			}
			for _, w := range l.work {
				if _, ok := t.mine[w]; !ok {
					p = true
					break
				}
			}
		}
	}
	l.asked, l.askedLen, l.askedP, l.hasAsked = work, len(l.work), p, true
	return p
}

// isZorkGPTLog says ep was read from a ZorkGPT episode log.
func isZorkGPTLog(ep *replay.Episode) bool {
	return ep.Format == "" || ep.Format == replay.FormatZorkGPT
}
