package replaytest

import (
	"fmt"
	"math/rand/v2"
)

type stepKind int

const (
	kVerb    stepKind = iota // a non-movement action; the agent stays
	kMove                    // a direction that changes the room
	kSelf                    // a direction whose exit leads back to the same room (maze)
	kRefused                 // a direction the game refuses; the agent stays
)

type rejection struct {
	action, justification string
	score                 float64
}

// step is one logical turn of the planned episode.
type step struct {
	n        int
	from, to *room
	kind     stepKind
	dir      string // canonical direction for kMove/kSelf/kRefused
	camp     bool
	gap      bool // played but not logged

	action, response string
	describes        bool // the response is a room description (room_description_captured)
	death            bool
	reasoning        string

	score     int
	objective string

	rejections []rejection
	override   *rejection // the final action, accepted by an override despite its low score

	criticScore, baseConf, finalConf float64
	visits                           int // RULES.md rule 3 revisit count (window 5)
	penalised                        bool

	// live loop-break events (rule 1)
	liveScoreChange bool
	oldScore        int
	liveObjReset    bool
	stuckFor        int
}

type episodePlan struct {
	steps      []*step // logical turns 1..Turns (+1 for EndTruncated)
	lastChange int     // rule 1 state after the last recorded turn
	// firstCheckPoint is the live system's first termination check point
	// under Scenario.liveConfig (0: none within the recorded turns).
	firstCheckPoint int
	objectives      int
}

// plan validates s and computes every turn: route, actions, replies,
// critic numbers, live loop-break events.
func plan(s *Scenario) (*episodePlan, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	if s.Ending == EndStuckTermination {
		s.LiveLoopBreak = true
	}
	n := s.Turns
	if s.Ending == EndTruncated {
		n++
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x726f757465)) // route stream
	w := &walker{s: s, rng: rng, cur: roomByKey["WEST-OF-HOUSE"]}
	for i, l := range s.Route {
		until := min(l.Until, n)
		var err error
		if l.Home != "" {
			err = w.camp(l, until)
		} else {
			err = w.walk(l, until)
		}
		if err != nil {
			return nil, fmt.Errorf("replaytest: %s: Route[%d]: %w", s.EpisodeID, i, err)
		}
	}
	if err := w.walk(Leg{}, n); err != nil {
		return nil, fmt.Errorf("replaytest: %s: %w", s.EpisodeID, err)
	}
	p := &episodePlan{steps: w.steps}
	arng := rand.New(rand.NewPCG(s.Seed, 0x616374696f6e)) // action stream
	p.fill(s, arng)
	if s.Ending == EndStuckTermination && p.firstCheckPoint != s.Turns {
		maxStuck, interval := s.liveConfig()
		return nil, fmt.Errorf("replaytest: %s: a live run with max_turns_stuck %d and stuck_check_interval %d terminates at turn %d, not at Turns %d",
			s.EpisodeID, maxStuck, interval, p.firstCheckPoint, s.Turns)
	}
	return p, nil
}

// walker builds the route turn by turn.
type walker struct {
	s     *Scenario
	rng   *rand.Rand
	cur   *room
	steps []*step
}

func (w *walker) next() int { return len(w.steps) + 1 }

func (w *walker) add(st *step) {
	st.n = w.next()
	st.from = w.cur
	if st.to == nil {
		st.to = w.cur
	}
	st.gap = w.s.inGap(st.n)
	w.steps = append(w.steps, st)
	w.cur = st.to
}

func (w *walker) moveTo(to *room, camp bool) {
	ds := w.cur.dirTo(to.key)
	kind := kMove
	if to == w.cur {
		kind = kSelf
	}
	w.add(&step{to: to, kind: kind, dir: pick(w.rng, ds), camp: camp})
}

// stay adds a turn without movement: an action, or (sometimes) a direction
// the game refuses.
func (w *walker) stay(camp bool, refuseRate float64) {
	if w.s.inGap(w.next()) {
		w.add(&step{kind: kVerb})
		return
	}
	if cd := w.cur.closedDirs(); len(cd) > 0 && w.rng.Float64() < refuseRate {
		w.add(&step{kind: kRefused, dir: pick(w.rng, cd), camp: camp})
		return
	}
	w.add(&step{kind: kVerb, camp: camp})
}

func roomSet(refs []string) (map[string]bool, error) {
	if refs == nil {
		return nil, nil
	}
	set := map[string]bool{}
	for _, ref := range refs {
		r, err := lookupRoom(ref)
		if err != nil {
			return nil, err
		}
		set[r.key] = true
	}
	return set, nil
}

// reverse adjacency for directed distances to a target
var incoming = func() map[string][]string {
	m := map[string][]string{}
	for _, r := range roomTable {
		for _, e := range r.exits {
			if e.to != r.key && !contains(m[e.to], r.key) {
				m[e.to] = append(m[e.to], r.key)
			}
		}
	}
	return m
}()

// distTo returns, for every room that can reach target inside allowed, the
// number of moves it needs.
func distTo(target *room, allowed map[string]bool) map[string]int {
	dist := map[string]int{target.key: 0}
	q := []string{target.key}
	for len(q) > 0 {
		k := q[0]
		q = q[1:]
		for _, src := range incoming[k] {
			if allowed != nil && !allowed[src] {
				continue
			}
			if _, ok := dist[src]; ok {
				continue
			}
			dist[src] = dist[k] + 1
			q = append(q, src)
		}
	}
	return dist
}

// pathTo returns the rooms after from on a shortest path to the nearest room
// for which goal is true (whole map).
func pathTo(from *room, goal func(*room) bool) []*room {
	if goal(from) {
		return nil
	}
	parent := map[string]*room{from.key: nil}
	q := []*room{from}
	for len(q) > 0 {
		r := q[0]
		q = q[1:]
		for _, e := range r.exits {
			nb := roomByKey[e.to]
			if _, ok := parent[nb.key]; ok {
				continue
			}
			parent[nb.key] = r
			if goal(nb) {
				var path []*room
				for x := nb; x != from; x = parent[x.key] {
					path = append(path, x)
				}
				for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
					path[i], path[j] = path[j], path[i]
				}
				return path
			}
			q = append(q, nb)
		}
	}
	return nil
}

func (w *walker) walk(l Leg, until int) error {
	allowed, err := roomSet(l.Rooms)
	if err != nil {
		return err
	}
	rate := l.MoveRate
	if rate == 0 {
		rate = 0.45
	}
	if allowed != nil && !allowed[w.cur.key] {
		path := pathTo(w.cur, func(r *room) bool { return allowed[r.key] })
		if path == nil {
			return fmt.Errorf("no way from %s into the leg's rooms", w.cur.name)
		}
		for i := 0; i < len(path); {
			if w.next() > until {
				return fmt.Errorf("leg ending at turn %d is too short to reach its rooms", until)
			}
			if w.s.inGap(w.next()) {
				w.stay(false, 0)
				continue
			}
			w.moveTo(path[i], false)
			i++
		}
	}
	var target *room
	var dist map[string]int
	if l.EndAt != "" {
		if target, err = lookupRoom(l.EndAt); err != nil {
			return err
		}
		if allowed != nil && !allowed[target.key] {
			return fmt.Errorf("EndAt %s is not among the leg's rooms", target.name)
		}
		dist = distTo(target, allowed)
		for t := w.next(); t <= until; t++ {
			if w.s.inGap(t) {
				return fmt.Errorf("leg with EndAt overlaps the gap at turn %d", t)
			}
		}
	}
	for w.next() <= until {
		t := w.next()
		left := until - t + 1 // turns left, this one included
		if target != nil {
			d, ok := dist[w.cur.key]
			if !ok || d > left {
				return fmt.Errorf("cannot reach %s from %s by turn %d", target.name, w.cur.name, until)
			}
			if d >= left-1 {
				if d == 0 {
					w.stay(false, 0.1)
					continue
				}
				var hops []*room
				for _, nb := range w.cur.neighbours() {
					if dd, ok := dist[nb.key]; ok && dd == d-1 && (allowed == nil || allowed[nb.key]) {
						hops = append(hops, nb)
					}
				}
				w.moveTo(pick(w.rng, hops), false)
				continue
			}
		}
		if w.s.inGap(t) || w.rng.Float64() >= rate {
			w.stay(false, 0)
			continue
		}
		var cands []exit
		for _, e := range w.cur.exits {
			if allowed != nil && !allowed[e.to] {
				continue
			}
			if dist != nil {
				if dd, ok := dist[e.to]; !ok || dd > left-1 {
					continue
				}
			}
			cands = append(cands, e)
		}
		if len(cands) == 0 || w.rng.Float64() < 0.12 {
			w.stay(false, 1)
			continue
		}
		e := pick(w.rng, cands)
		kind := kMove
		if e.to == w.cur.key {
			kind = kSelf
		}
		w.add(&step{to: roomByKey[e.to], kind: kind, dir: e.dir})
	}
	return nil
}

// camp makes a closed walk around l.Home hitting the Counts exactly.
func (w *walker) camp(l Leg, until int) error {
	home, err := lookupRoom(l.Home)
	if err != nil {
		return err
	}
	start := w.next()
	for t := start; t <= until; t++ {
		if w.s.inGap(t) {
			return fmt.Errorf("camp leg overlaps the gap at turn %d", t)
		}
	}
	for _, r := range pathTo(w.cur, func(r *room) bool { return r == home }) {
		if w.next() > until {
			return fmt.Errorf("leg ending at turn %d is too short to reach %s", until, home.name)
		}
		w.moveTo(r, true)
	}
	length := until - w.next() + 1

	counts := map[string]int{}
	for ref, c := range l.Counts {
		r, err := lookupRoom(ref)
		if err != nil {
			return err
		}
		counts[r.key] = c
	}
	inLeg := map[string]bool{home.key: true}
	if l.Rooms != nil {
		set, err := roomSet(l.Rooms)
		if err != nil {
			return err
		}
		for k := range set {
			inLeg[k] = true
		}
	}
	for k := range counts {
		inLeg[k] = true
	}
	// remaining turns per counted room
	soFar := map[string]int{}
	for _, st := range w.steps {
		if !st.gap {
			soFar[st.to.key]++
		}
	}
	need := map[string]int{}
	sumNeed := 0
	for k, c := range counts {
		need[k] = c - soFar[k]
		if need[k] < 0 {
			return fmt.Errorf("%s already has %d turns by turn %d, more than its count %d", roomByKey[k].name, soFar[k], w.next()-1, c)
		}
		sumNeed += need[k]
	}
	// active rooms: fillers, and counted rooms still needing turns; home always
	active := map[string]bool{home.key: true}
	for k := range inLeg {
		if c, counted := need[k]; !counted || c > 0 {
			active[k] = true
		}
	}
	// BFS tree from home over two-way exits between active rooms
	parent := map[string]string{home.key: ""}
	children := map[string][]string{}
	order := []string{home.key}
	for i := 0; i < len(order); i++ {
		u := roomByKey[order[i]]
		for _, nb := range u.neighbours() {
			if !active[nb.key] || len(nb.dirTo(u.key)) == 0 {
				continue
			}
			if _, seen := parent[nb.key]; seen {
				continue
			}
			parent[nb.key] = u.key
			children[u.key] = append(children[u.key], nb.key)
			order = append(order, nb.key)
		}
	}
	for k := range active {
		if _, ok := parent[k]; !ok {
			return fmt.Errorf("%s is not connected to %s by two-way exits inside the leg", roomByKey[k].name, home.name)
		}
	}
	minTurns := func(k string) int {
		m := len(children[k])
		if k != home.key {
			m++
		}
		return m
	}
	c := map[string]int{}
	var fillers []string
	fillMin := 0
	for _, k := range order {
		if v, counted := need[k]; counted {
			if v < minTurns(k) {
				return fmt.Errorf("%s needs at least %d more turns to be walked through, count leaves %d", roomByKey[k].name, minTurns(k), v)
			}
			c[k] = v
		} else {
			fillers = append(fillers, k)
			c[k] = minTurns(k)
			fillMin += c[k]
		}
	}
	spare := length - sumNeed - fillMin
	if spare < 0 || (spare > 0 && len(fillers) == 0) {
		return fmt.Errorf("camp counts need %d turns, turns %d..%d give %d", sumNeed+fillMin, w.next(), until, length)
	}
	if len(fillers) > 0 {
		weights := make([]float64, len(fillers))
		total := 0.0
		for i, k := range fillers {
			weights[i] = 0.2 + w.rng.Float64()
			if k == home.key {
				weights[i] += 2
			}
			total += weights[i]
		}
		for ; spare > 0; spare-- {
			x := w.rng.Float64() * total
			i := 0
			for ; i < len(fillers)-1 && x >= weights[i]; i++ {
				x -= weights[i]
			}
			c[fillers[i]]++
		}
	}
	// descents along each tree edge
	x := map[string]int{}
	stays := map[string]int{}
	for _, u := range order {
		budget := c[u] - x[u]
		ch := append([]string(nil), children[u]...)
		w.rng.Shuffle(len(ch), func(i, j int) { ch[i], ch[j] = ch[j], ch[i] })
		extra := budget - len(ch)
		for _, v := range ch {
			x[v] = 1
			capv := c[v] - len(children[v]) - 1
			if add := min(extra, capv); add > 0 {
				a := int(float64(add) * (0.3 + 0.6*w.rng.Float64()))
				x[v] += a
				extra -= a
			}
		}
		stays[u] = extra
	}
	// assign each descent into v to one of the entries into u
	assign := map[string][][]string{}
	for _, u := range order {
		entries := 1
		if u != home.key {
			entries = x[u]
		}
		assign[u] = make([][]string, entries)
		for _, v := range children[u] {
			for i := 0; i < x[v]; i++ {
				e := w.rng.IntN(entries)
				assign[u][e] = append(assign[u][e], v)
			}
		}
		for _, list := range assign[u] {
			w.rng.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
		}
	}
	var seq []string
	entry := map[string]int{}
	var visit func(u string)
	visit = func(u string) {
		e := entry[u]
		entry[u]++
		seq = append(seq, u)
		for _, v := range assign[u][e] {
			visit(v)
			seq = append(seq, u)
		}
	}
	for _, v := range assign[home.key][0] {
		visit(v)
		seq = append(seq, home.key)
	}
	// stays: extra turns after some occurrences of each room (clumped);
	// slot -1 is home before the first move
	extraAt := make([]int, len(seq)+1) // index i+1 for seq[i], 0 for the start
	slots := map[string][]int{home.key: {0}}
	for i, k := range seq {
		slots[k] = append(slots[k], i+1)
	}
	for _, u := range order {
		var used []int
		for s := stays[u]; s > 0; s-- {
			var at int
			if len(used) > 0 && w.rng.Float64() < 0.6 {
				at = pick(w.rng, used)
			} else {
				at = pick(w.rng, slots[u])
				used = append(used, at)
			}
			extraAt[at]++
		}
	}
	stayRefuse := 0.2
	for i := 0; i < extraAt[0]; i++ {
		w.stay(true, stayRefuse)
	}
	for i, k := range seq {
		w.moveTo(roomByKey[k], true)
		for j := 0; j < extraAt[i+1]; j++ {
			w.stay(true, stayRefuse)
		}
	}
	if w.next() != until+1 {
		return fmt.Errorf("internal: camp produced %d turns, want %d", w.next()-start, until-start+1)
	}
	return nil
}
