package replay

import (
	"bytes"
	"testing"
)

// memberBases are lines whose short members (8 to 24 bytes: an error,
// a kind, a score, a location, an action, the object's end) flatLine
// notes whole (stepPaths.members) and takes again from a line after.
var memberBases = []string{
	`{"step": 1, "action": "run_tests", "output": "3 tests failed", "error": true, "kind": "action", "score": 0, "location": "repo/auth"}`,
	`{"step": 2, "action": "edit", "output": "ok", "error": false, "kind": "message", "score": 12, "location": "a"}`,
	`{"step": 3, "score": 1.5, "error": null, "kind": "action", "x": 1, "location": "repo/auth/handlers"}`,
}

// TestStepFlatMember holds flatLine's whole-member path to the general
// reading: each base line is read after itself (every short member
// taken whole), and each line with one byte of a base changed is read
// after the base and the base after it (a member that differs in any
// byte, its key, value or the ", " or "}" after, read the plain way),
// and the base after the base and the changed line (its members taken
// from stepPaths.older, noted before the changed line's).
func TestStepFlatMember(t *testing.T) {
	for _, base := range memberBases {
		b := []byte(base)
		p := newStepPaths(nil)
		for range 2 {
			var vals [numStepFields]rawValue
			p.flatLine(append(bytes.Clone(b), "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n"...), &vals, nil)
		}
		noted := 0
		for _, m := range p.members {
			if m.n != 0 {
				noted++
			}
		}
		if noted < 2 {
			t.Fatalf("%s: %d members noted: the whole-member path is not taken", base, noted)
		}
		checkFlatLineAfter(t, [][]byte{b}, b, nil)
		for i := 1; i < len(b); i++ {
			for _, c := range []byte(` "\x1f1a,}`) {
				if c == b[i] {
					continue
				}
				v := bytes.Clone(b)
				v[i] = c
				checkFlatLineAfter(t, [][]byte{b}, v, nil)
				checkFlatLineAfter(t, [][]byte{v}, b, nil)
				checkFlatLineAfter(t, [][]byte{b, v}, b, nil)
			}
		}
	}
}
