package replay

// An OpenHands step's action as the generic rules compare it: the
// action's name and its args as compact JSON, keys sorted, numbers
// canonical, less the volatile args (openhands.go reads the events; this
// file was split from it when it passed 600 lines).

import (
	"strconv"
	"strings"
)

// openHandsVolatile are args the generic rules leave out of a step's
// action (the model's thought, confirmation bookkeeping): they compare
// the call. The StuckDetector's own key keeps them all.
var openHandsVolatile = map[string]bool{"thought": true, "confirmation_state": true, "security_risk": true, "hidden": true}

// volatileKey is openHandsVolatile[string(k)], told by k's length and
// bytes: the map's lookup (a call, its small-map search) was 1.2% of a
// V0 events log's instructions, once for each member of every action's
// args. TestVolatileKey holds the two together.
func volatileKey(k []byte) bool {
	switch len(k) {
	case len("hidden"):
		return string(k) == "hidden"
	case len("thought"):
		return string(k) == "thought"
	case len("security_risk"):
		return string(k) == "security_risk"
	case len("confirmation_state"):
		return string(k) == "confirmation_state"
	}
	return false
}

// action is a step's action: the action's name and its args as compact
// JSON, keys sorted, less openHandsVolatile.
func (w *canonWriter) action(name string, args rawValue) string {
	w.buf = append(append(w.buf[:0], name...), ' ')
	w.appendValue(args, false, openHandsVolatile)
	return string(w.buf)
}

// canonicalNumber writes an integer literal as its digits and any other
// number by its float64 value, an integral one as an integer (Python:
// 2 == 2.0).
func canonicalNumber(s string) string {
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return strconv.FormatInt(i, 10)
		}
		return s
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	if f == float64(int64(f)) && f > -1e18 && f < 1e18 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
