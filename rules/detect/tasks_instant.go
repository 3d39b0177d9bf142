package detect

import "time"

// An instant is a timestamp as seconds since 1970 and nanoseconds: what
// task_attempts compares and subtracts of its attempts' times, with
// integers where time.Time's Before and Sub read its wall clock and
// monotonic reading apart, and Sub adds its result back to check it.
type instant struct {
	sec  int64
	nsec int32
}

// maxInstantSec bounds the seconds of a plain instant: the difference of
// two, less a Duration's seconds, is then an int64.
const maxInstantSec = 1 << 61

// instantOf returns t's instant, and whether t is plain: without a
// monotonic reading (time.Time's Before and Sub read that of two times
// that have one) and within maxInstantSec of 1970. A plain time's
// instant orders (before) and subtracts (atLeast) as the time does; a
// logged timestamp is plain.
func instantOf(t time.Time) (instant, bool) {
	sec := t.Unix()
	return instant{sec, int32(t.Nanosecond())}, t == t.Round(0) && -maxInstantSec < sec && sec < maxInstantSec
}

// before is time.Time.Before of two plain times.
func (a instant) before(b instant) bool {
	return a.sec < b.sec || a.sec == b.sec && a.nsec < b.nsec
}

// atLeast says now.Sub(at) >= w of two plain times and w > 0. Sub
// saturates at the bounds of a Duration, which w lies within: it is at
// least w exactly when the true difference is, e·10⁹ + dn − wn ≥ 0 with
// e the difference of the seconds less w's, dn that of the nanoseconds
// (−10⁹ < dn < 10⁹) and wn w's nanoseconds past its seconds (0 ≤ wn <
// 10⁹): always for e ≥ 2, never for e ≤ −1.
func atLeast(now, at instant, w time.Duration) bool {
	e := now.sec - at.sec - int64(w/time.Second)
	dn := int64(now.nsec) - int64(at.nsec)
	wn := int64(w % time.Second)
	switch {
	case e >= 2:
		return true
	case e == 1:
		return dn-wn >= -int64(time.Second)
	case e == 0:
		return dn >= wn
	}
	return false
}
