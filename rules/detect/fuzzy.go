package detect

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"sync"
)

// FuzzyConfig configures fuzzy_repeat.
type FuzzyConfig struct {
	// Threshold is fuzzy_threshold, read as the decimal it is written as
	// (0.90 is exactly 9/10) and compared exactly.
	Threshold float64
	// Window is fuzzy_window: how many previous steps are compared.
	Window int
}

// FuzzyParams declares fuzzy_repeat's keys.
var FuzzyParams = []Param{
	{Key: "fuzzy_threshold", Type: TypeFloat, Default: 0.90, Min: bound(0), Max: bound(1),
		Doc: "a loop fires when a step's output is at least this similar (Indel ratio) to one kept"},
	{Key: "fuzzy_window", Type: TypeInt, Default: 5, Min: bound(1), Max: bound(50),
		Doc: "how many outputs are kept to compare with (the oldest dropped)"},
}

// DefaultFuzzyConfig is fuzzy_repeat's default (Ralph's rapidfuzz setting).
func DefaultFuzzyConfig() FuzzyConfig { return FuzzyConfig{Threshold: 0.90, Window: 5} }

// Validate checks the configuration against FuzzyParams.
func (c FuzzyConfig) Validate() error {
	if math.IsNaN(c.Threshold) {
		return fmt.Errorf("fuzzy_threshold is NaN")
	}
	return checkAll(FuzzyParams, c.values())
}

func (c FuzzyConfig) values() map[string]float64 {
	return map[string]float64{"fuzzy_threshold": c.Threshold, "fuzzy_window": float64(c.Window)}
}

// FuzzyFiring is one fuzzy_repeat firing.
type FuzzyFiring struct {
	Firing
	// MatchedStep is the previous step with the best similarity (the
	// latest of equals).
	MatchedStep int `json:"matched_step"`
	// Similarity is the best similarity rounded to 4 decimals.
	Similarity float64 `json:"similarity"`
}

type fuzzyEntry struct {
	n int
	// out is the step's output, a copy in buf when Step.Output lives
	// only while its step is checked (OutputTransient), as the entry
	// outlives it in the window; buf is the entry's own, written again
	// each time it is reused.
	out string
	buf []byte
	// count is out's code points (an invalid byte counts as one); canon
	// says out is valid UTF-8, so that it is the only text of its code
	// points and two outputs' code points are equal when their bytes are.
	count int
	canon bool
	// runes are out's code points, decoded the first time an LCS needs
	// them (hasRunes): most outputs are settled by their lengths, an
	// equal output kept or their histograms, and decoding each into
	// four bytes a byte was fuzzy_repeat's largest cost.
	runes    []rune
	hasRunes bool
	hist     *histogram // nil until a comparison needs it (a short episode's
	// steps rarely do: 600 bytes each)
	hasHis bool // hist is counted
	// small are an ASCII output's counts in bytes, shorter than
	// smallCountsBelow (histogram_small.go): the bound of two such is
	// summed from them; hist is counted only for a pair it passes.
	small    [128]uint8
	hasSmall bool
}

// smallCounts returns e's byte counts, counting them the first time. e
// is ASCII and shorter than smallCountsBelow.
func (e *fuzzyEntry) smallCounts() *[128]uint8 {
	if !e.hasSmall {
		countSmall(&e.small, e.out)
		e.hasSmall = true
	}
	return &e.small
}

// smallPair says e and o are counted in bytes: both ASCII and shorter
// than smallCountsBelow, where the machine sums byte counts by vector.
func (e *fuzzyEntry) smallPair(o *fuzzyEntry) bool {
	return useSmallCounts && e.ascii() && o.ascii() && len(e.out) < smallCountsBelow && len(o.out) < smallCountsBelow
}

// histogram returns e's code point counts, counting them the first time.
func (e *fuzzyEntry) histogram() *histogram {
	if !e.hasHis {
		if e.hist == nil {
			e.hist = new(histogram)
		}
		if e.ascii() {
			e.hist.setASCII(e.out)
		} else {
			e.hist.setString(e.out)
		}
		e.hasHis = true
	}
	return e.hist
}

// codePoints returns e's code points, decoding them the first time.
func (e *fuzzyEntry) codePoints() []rune {
	if !e.hasRunes {
		// Ranging over a string reads an invalid byte as U+FFFD, as
		// []rune does. At most a code point a byte.
		if n := len(e.out); cap(e.runes) < n {
			e.runes = make([]rune, n)
		}
		e.runes = e.runes[:decodeRunes(e.runes[:len(e.out)], e.out)]
		e.hasRunes = true
	}
	return e.runes
}

// ascii says e's output is ASCII: its bytes are its code points, which
// an invalid byte, counted as one, is not.
func (e *fuzzyEntry) ascii() bool { return e.canon && e.count == len(e.out) }

// sameCodePoints says e and o have the same code points: valid UTF-8
// texts when their bytes are equal, others when their decodings are.
func (e *fuzzyEntry) sameCodePoints(o *fuzzyEntry) bool {
	if e.count != o.count {
		return false
	}
	if e.out == o.out {
		return true
	}
	if e.canon && o.canon {
		return false
	}
	return slices.Equal(e.codePoints(), o.codePoints())
}

// FuzzyRepeat is the fuzzy_repeat detector (RULES.md §8), Ralph's
// SafetyGuard.detect_loop (mikeyobrien/ralph-orchestrator
// src/ralph_orchestrator/safety.py at 2c49ef9): a step's output (its
// action is not compared) is compared with the outputs kept, at most
// Window, oldest dropped; it fires when one has rapidfuzz's fuzz.ratio,
// the Indel ratio 2·LCS/(len1+len2) over code points, at least Threshold,
// compared as integers (20·LCS >= 9·(len1+len2) at 0.90). An empty output
// never fires and is never kept; an output that fires is not kept
// (detect_loop returns before appending). The firing reports the best
// match (the latest of equals), where detect_loop stops at the first.
type FuzzyRepeat struct {
	num, twoDen *big.Int // Threshold = num / (twoDen/2)
	// num64, twoDen64 are num and twoDen when both fit in 64 bits (any
	// threshold written with up to 18 decimals): need then takes a 128-bit
	// product instead of big.Int arithmetic at every comparison.
	num64, twoDen64 uint64
	fits64          bool
	// smallBelow is 2^32 when num64 and twoDen64 are under 2^31 (any
	// threshold written with up to 9 decimals), else 0: within compares
	// lengths summing under it as two 64-bit products, inlined.
	smallBelow uint64

	window int
	// The outputs kept, oldest first, are ring[start:start+kept]; an
	// entry that leaves the window, or is not kept, is held in spare and
	// its buffers reused by the next step. The window slides along twice
	// its length (it is moved back to its start once every window steps,
	// where each step moved all of it by one). Held as two ints, not as
	// a slice of ring: a step wrote the slice's header, its pointer
	// behind the write barrier's test.
	ring  []*fuzzyEntry
	start int
	kept  int
	// counts are the code points of the kept outputs, at ring's places:
	// the first pass over the window reads them alone, where it loaded
	// each entry (fuzzy_window is at most 50).
	counts  []int
	spare   *fuzzyEntry
	mt      *lcsMatcher // made at the first LCS an episode needs
	scratch big.Int
}

// NewFuzzyRepeat returns a detector with no history.
func NewFuzzyRepeat(c FuzzyConfig) (*FuzzyRepeat, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	th, err := fuzzyFraction(c.Threshold)
	if err != nil {
		return nil, err
	}
	// The cached fraction's own numbers: need only reads them (never a
	// receiver), so detectors made per episode, on any worker, share them.
	d := &FuzzyRepeat{num: th.num, twoDen: th.twoDen, window: c.Window}
	if d.num.IsUint64() && d.twoDen.IsUint64() {
		d.num64, d.twoDen64, d.fits64 = d.num.Uint64(), d.twoDen.Uint64(), true
		if d.num64 < 1<<31 && d.twoDen64 < 1<<31 {
			d.smallBelow = 1 << 32
		}
	}
	return d, nil
}

var bigOne = big.NewInt(1)

// fraction is a threshold as num / (twoDen/2).
type fraction struct{ num, twoDen *big.Int }

// fractions caches fuzzyFraction: a detector is made per episode, and a
// corpus of short episodes would parse the same threshold for each.
var fractions sync.Map // float64 → fraction

// fuzzyFraction reads a threshold as the decimal it is written as: the
// shortest decimal that reads back as the float is what the user wrote,
// so 0.9 is 9/10, not the binary float nearest to it. The result is
// shared: callers only read it.
func fuzzyFraction(th float64) (fraction, error) {
	if f, ok := fractions.Load(th); ok {
		return f.(fraction), nil
	}
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(th, 'f', -1, 64))
	if !ok {
		return fraction{}, fmt.Errorf("fuzzy_threshold = %v: not a number", th)
	}
	f := fraction{num: new(big.Int).Set(r.Num()), twoDen: new(big.Int).Lsh(r.Denom(), 1)}
	fractions.Store(th, f)
	return f, nil
}

// need is the least LCS that reaches the threshold for a pair whose lengths
// sum to total: 2·LCS/total >= num/den ⇔ LCS >= ⌈num·total / (2·den)⌉.
func (d *FuzzyRepeat) need(total int) int {
	if d.fits64 {
		// num <= twoDen/2, so the quotient is at most total/2 and the high
		// word stays below twoDen, as Div64 requires.
		hi, lo := bits.Mul64(d.num64, uint64(total))
		var c uint64
		lo, c = bits.Add64(lo, d.twoDen64-1, 0)
		hi += c
		q, _ := bits.Div64(hi, lo, d.twoDen64)
		return int(q)
	}
	x := &d.scratch
	x.SetInt64(int64(total))
	x.Mul(x, d.num)
	x.Add(x, d.twoDen)
	x.Sub(x, bigOne)
	x.Quo(x, d.twoDen)
	return int(x.Int64())
}

// within says need(total) <= m: whether a pair whose lengths sum to total
// can reach the threshold with an LCS of m. ⌈x/y⌉ <= m ⇔ x <= m·y, so
// the 64-bit path compares two products, without need's division: most
// pairs of a window fail this test on their lengths alone, and the
// division was most of their cost.
func (d *FuzzyRepeat) within(total, m int) bool {
	if uint64(total) < d.smallBelow {
		// Each product is under 2^63 (m, the shorter length, is at most
		// total): the 64-bit products compare as the 128-bit ones.
		// Inlined: most pairs of a window stop here, and the call cost
		// as much as the test.
		return d.num64*uint64(total) <= d.twoDen64*uint64(m)
	}
	return d.withinWide(total, m)
}

// countRange returns the counts n of the outputs that pass the length
// test with an output of c code points, within(c+n, min(c, n)), as the
// interval [lo, hi]: for n <= c the test is num·c <= (twoDen-num)·n, for
// n >= c it is num·n <= (twoDen-num)·c, solved for n. Exact while c is
// under 2^31 and the threshold's num and twoDen are (smallBelow: the
// products are then under 2^62); otherwise every count, a superset that
// within, still tested, narrows.
func (d *FuzzyRepeat) countRange(c int) (lo, hi int) {
	if d.smallBelow == 0 || d.num64 == 0 || uint64(c) >= 1<<31 {
		return 0, math.MaxInt
	}
	// rest >= twoDen/2 >= 1: num is at most twoDen/2 (the threshold at
	// most 1), twoDen at least 2.
	num, rest := d.num64, d.twoDen64-d.num64
	return int((num*uint64(c) + rest - 1) / rest), int(rest * uint64(c) / num)
}

// withinWide is within for any threshold and lengths.
func (d *FuzzyRepeat) withinWide(total, m int) bool {
	if !d.fits64 {
		return d.need(total) <= m
	}
	hi, lo := bits.Mul64(d.num64, uint64(total))
	mhi, mlo := bits.Mul64(d.twoDen64, uint64(m))
	return hi < mhi || hi == mhi && lo <= mlo
}

// Step compares the step's output with the outputs kept, then keeps it
// unless it is empty or fired.
func (d *FuzzyRepeat) Step(s Step) []FuzzyFiring {
	if f, ok := d.Check(&s); ok {
		return []FuzzyFiring{f}
	}
	return nil
}

// Check is Step for a caller that reports the firing at once: a step
// fires at most once, and Step's list of one allocated each time. The
// step is not copied (some 70 bytes, four times a step for the rules
// that read it).
func (d *FuzzyRepeat) Check(s *Step) (FuzzyFiring, bool) {
	best, similarity, ok := d.Match(s)
	if !ok {
		return FuzzyFiring{}, false
	}
	return FuzzyFiring{
		Firing:      Firing{Step: s.N, Rule: "fuzzy_repeat", Kind: KindLoop, Origin: OriginGeneric},
		MatchedStep: best,
		Similarity:  similarity,
	}, true
}

// Match is Check for a caller that makes its own firing: the matched
// step and the similarity (rounded to 4 decimals), and whether the step
// fires. Most steps do not, and Check's firing, some ten words, was
// cleared for each.
func (d *FuzzyRepeat) Match(s *Step) (matched int, similarity float64, fired bool) {
	if s.Output == "" {
		return 0, 0, false
	}
	cur := d.spare // all of it is set below
	if cur == nil {
		cur = newFuzzyEntry()
	}
	d.spare = nil
	cur.n = s.N
	cur.out, cur.buf = keptOutput(s, cur.buf)
	cur.count, cur.canon = countRunes(s.Output)
	cur.hasRunes, cur.hasHis, cur.hasSmall = false, false, false

	// The best match as the fraction bestNum/bestDen (2·LCS over the
	// summed lengths); candidates are tried from the latest, and an
	// earlier one must be strictly better, so the latest wins a tie. Each
	// candidate only needs its LCS when it beats both the threshold and
	// the best so far, which narrows the band of the LCS computation.
	found, best := false, 0 // best is the matched step's number
	var bestNum, bestDen int64
	// An output equal to one kept (a loop's output, repeated) matches it
	// at similarity 1, which no other beats and which the threshold (at
	// most 1) admits: the latest such is the match, found without a
	// histogram or an LCS. A first pass notes the outputs whose counts
	// pass the length test (near, bit i for prev[i]): most fail it, and
	// the pass over the counts alone, with the test solved for the
	// other's count once (countRange), cost less than loading each entry
	// and testing it again. An equal output is near (cur.count is in its
	// own range), so it is sought among the near alone: tested in the
	// first pass, its count and the call's live values took twice the
	// instructions of the range test at every output.
	lo, hi := d.countRange(cur.count)
	span := uint(hi - lo)
	var near uint64
	prev, counts := d.ring[d.start:d.start+d.kept], d.counts[d.start:d.start+d.kept]
	for i, n := range counts {
		if uint(n-lo) <= span {
			near |= 1 << (uint(i) & 63) // fuzzy_window is at most 50
		}
	}
	for m := near; m != 0; {
		i := bits.Len64(m) - 1 // the latest first
		m &^= 1 << uint(i)
		if counts[i] == cur.count && prev[i].sameCodePoints(cur) {
			found, best, bestNum, bestDen = true, prev[i].n, 2*int64(cur.count), 2*int64(cur.count)
			break
		}
	}
	exact := found
	for near != 0 && !exact {
		i := bits.Len64(near) - 1 // the latest first
		near &^= 1 << uint(i)
		p := prev[i]
		total := cur.count + p.count // > 0: neither is empty
		// The LCS is at most the shorter text, then at most the code
		// points the two share: most pairs fail the first, cheap test
		// (countRange, a superset of its passes, only spares it).
		if !d.within(total, min(cur.count, p.count)) {
			continue
		}
		cutoff := d.need(total)
		if found {
			// Beat bestNum/bestDen: 2·L·bestDen > bestNum·total.
			cutoff = max(cutoff, int(bestNum*int64(total)/(2*bestDen))+1)
		}
		if cutoff > min(cur.count, p.count) { // a better match found is to be beaten
			continue
		}
		// The bound: the ASCII counts' smaller summed (the others', if
		// any, added), from byte counts for two short ASCII outputs. Those
		// are bounded before the nested test: most such pairs fail the
		// bound (some 30 instructions once both are counted, and each is
		// counted once), where nested took some 100 for each. The order
		// changes no result: a nested pair passes the bound, the shorter's
		// counts being within the longer's.
		var shared int
		small := cur.smallPair(p)
		if small {
			if shared = sharedSmall(cur.smallCounts(), p.smallCounts()); shared < cutoff {
				continue
			}
		}
		if cur.canon && p.canon && nested(cur.out, p.out) {
			// The shorter is all of the LCS (lcsShared's common prefix
			// and suffix leave none of it): known from the bytes, where
			// it took both histograms, both decodings and the affix.
			if l := min(cur.count, p.count); l >= cutoff {
				found, best, bestNum, bestDen = true, p.n, 2*int64(l), int64(total)
			}
			continue
		}
		var ok bool
		if !small {
			if shared, ok = cur.histogram().boundAtLeast(p.histogram(), cutoff); !ok {
				continue
			}
		}
		if d.mt == nil {
			d.mt = newMatcher()
		}
		var l int
		if small && min(cur.count, p.count) < shrinkFrom {
			// The byte counts give the code points present, all a
			// short pattern's rows are made from.
			l, ok = d.mt.lcsBytesPresent(cur.out, p.out, cutoff, shared, smallPresent(&cur.small), smallPresent(&p.small))
		} else if cur.ascii() && p.ascii() && min(cur.count, p.count) < shrinkFrom {
			// Both histograms are counted: a long pattern's rows are
			// made from them at once (lcsBytesRows).
			l, ok = d.mt.lcsBytesRows(cur.out, p.out, cutoff, shared, &cur.histogram().ascii, &p.histogram().ascii)
		} else if cur.ascii() && p.ascii() {
			// A long pair: its band's narrowing reads its counts from
			// the histograms (lcsRunesCounted).
			l, ok = d.mt.lcsRunesCounted(cur.codePoints(), p.codePoints(), cutoff, shared, &cur.histogram().ascii, &p.histogram().ascii)
		} else {
			l, ok = d.mt.lcsShared(cur.codePoints(), p.codePoints(), cutoff, shared)
		}
		if ok {
			found, best, bestNum, bestDen = true, p.n, 2*int64(l), int64(total)
		}
	}

	if found {
		d.spare = cur
	} else if n := len(prev); n == d.window {
		d.spare = prev[0]
		if d.start+n == len(d.ring) {
			// At the ring's end: the window, less its oldest, moves
			// back to its start.
			copy(d.ring, d.ring[d.start+1:])
			copy(d.counts, d.counts[d.start+1:])
			d.start = 0
		} else {
			d.start++
		}
		d.ring[d.start+n-1], d.counts[d.start+n-1] = cur, cur.count
	} else {
		if d.ring == nil {
			// fuzzy_window is at most 50: made once, not grown.
			d.ring, d.counts = make([]*fuzzyEntry, 2*max(d.window, 1)), make([]int, 2*max(d.window, 1))
		}
		d.ring[d.start+n], d.counts[d.start+n] = cur, cur.count
		d.kept = n + 1
	}
	if !found {
		return 0, 0, false
	}
	return best, round4(bestNum, bestDen), true
}

// Kept is the number of outputs kept (Ralph's len(recent_outputs)).
func (d *FuzzyRepeat) Kept() int { return d.kept }

// keptEntries returns the outputs kept, oldest first.
func (d *FuzzyRepeat) keptEntries() []*fuzzyEntry { return d.ring[d.start : d.start+d.kept] }

// Reset forgets the outputs kept (Ralph's SafetyGuard.reset).
func (d *FuzzyRepeat) Reset() {
	for _, e := range d.keptEntries() {
		freeFuzzyEntry(e)
	}
	d.kept = 0
}

// Release hands the detector's step buffers to the next detector made
// (an episode's replay is over): a corpus of episodes does not allocate
// and fault in fresh ones for each. d may be stepped again, as a new
// detector of its configuration (its list of outputs kept is kept,
// empty).
func (d *FuzzyRepeat) Release() {
	for _, e := range d.keptEntries() {
		freeFuzzyEntry(e)
	}
	if d.spare != nil {
		freeFuzzyEntry(d.spare)
	}
	clear(d.ring)
	d.kept, d.start, d.spare = 0, 0, nil
	if d.mt != nil {
		freeMatcher(d.mt)
		d.mt = nil
	}
}

// freeMatchers holds released matchers, a few workers' worth: a matcher
// is some 2 KB, the most a short episode's replay allocated. Each use
// builds its masks afresh (lcsMatcher.build), within an episode as across
// them.
var freeMatchers = make(chan *lcsMatcher, 16)

// maxFreeMatcher bounds the words of a matcher's masks kept for reuse
// (32 KB): one that compared long outputs, its other scratch grown with
// them, is left to the collector.
const maxFreeMatcher = 1 << 12

func newMatcher() *lcsMatcher {
	select {
	case mt := <-freeMatchers:
		return mt
	default:
		return new(lcsMatcher)
	}
}

func freeMatcher(mt *lcsMatcher) {
	if cap(mt.peq)+cap(mt.v) > maxFreeMatcher {
		return
	}
	mt.shrink.a, mt.seeds.a = nil, nil // not the episode's outputs
	select {
	case freeMatchers <- mt:
	default:
	}
}

// freeEntries holds released entries, a few windows' worth.
var freeEntries = make(chan *fuzzyEntry, 64)

func newFuzzyEntry() *fuzzyEntry {
	select {
	case e := <-freeEntries:
		return e
	default:
		return new(fuzzyEntry)
	}
}

func freeFuzzyEntry(e *fuzzyEntry) {
	e.out = "" // not the episode's text
	if cap(e.buf) > 64<<10 {
		e.buf = nil // a long output's copy is not kept in the free list
	}
	select {
	case freeEntries <- e:
	default:
	}
}

// round4 rounds num/den to 4 decimals, half up, exactly.
func round4(num, den int64) float64 {
	q := (num*20000 + den) / (2 * den)
	return float64(q) / 1e4
}
