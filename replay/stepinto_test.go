package replay

import (
	"fmt"
	"strings"
	"testing"
)

// TestStepIntoKindError holds stepInto's in-line readings of a kind
// written "action" and of an error that is a literal true or false to
// rawKind and rawTruthy, over kinds and errors written every way (cased,
// spaced, escaped, strings, numbers, absent), with and without an
// action: it fails when the in-line reading takes a value the calls read
// otherwise.
func TestStepIntoKindError(t *testing.T) {
	kinds := []string{"", `"action"`, `"message"`, `"condensation"`, `"Action"`, `" action"`, `"\u0061ction"`,
		`"actions"`, `"acti"`, `""`, `"other"`, `1`, `true`, `false`, `["action"]`}
	errs := []string{"", `true`, `false`, `"true"`, `"false"`, `"no"`, `" False "`, `0`, `1`, `0.5`, `"t"`, `"f"`, `[]`, `{}`}
	for _, kind := range kinds {
		for _, e := range errs {
			for _, action := range []string{"", `"run"`} {
				var vals [numStepFields]rawValue
				for f, lit := range map[int]string{sfKind: kind, sfError: e, sfAction: action} {
					if lit != "" {
						vals[f] = rawValue(lit)
					}
				}
				wantKind, wantReason := StepAction, ""
				if kind == "" {
					if action == "" {
						wantKind = StepMessage
					}
				} else {
					switch k := rawKind(rawValue(kind)); k {
					case "action", "":
					case "message":
						wantKind = StepMessage
					case "condensation":
						wantKind = StepCondensation
					default:
						wantReason = fmt.Sprintf("kind %q is not action, message or condensation", k)
					}
				}
				wantErr := e != "" && rawTruthy(rawValue(e))
				var r stepRecord
				reason := stepInto(&r, &vals, newStepPaths(nil))
				if reason != wantReason || reason == "" && (r.info.Kind != wantKind || r.info.Error != wantErr) {
					t.Errorf("kind %s, error %s, action %q: kind %v, error %v, reason %q; want %v, %v, %q",
						kind, e, action, r.info.Kind, r.info.Error, reason, wantKind, wantErr, wantReason)
				}
			}
		}
	}
}

// TestStepIntoLocationAction holds stepInto's in-line readings of a
// location that is the last one again and of an action of 8 to 16 bytes
// to byteStrings.text, over runs of locations repeated, changed in one
// byte, escaped, not valid UTF-8, blank and not strings (TestLocTextAsText's
// and more), and actions of 2 to 20 bytes plain, escaped and not ASCII,
// each read from a buffer written over after: it fails when the last
// location is taken for another or left over the line, or an action
// that is not its text as it stands is taken as it stands.
func TestStepIntoLocationAction(t *testing.T) {
	locs := []string{`"repo/auth"`, `"repo/auth"`, `"repo/autx"`, `"repo/autx"`, `"xepo/autx"`, `"repo\/auth"`, `"repo/auth"`,
		`"repo\u002fauth"`, `"repo\u002fauth"`, `"a\\b"`, `"a\\b"`, `"a\b"`, `"a\\b"`, "\"\xff\"", "\"\xff\"", `"\ufffd"`, "\"\xff\"",
		`""`, `""`, `"x"`, `7`, `7`, `"7"`, `"7"`, `"caf\u00e9"`, "\"caf\xc3\xa9\"", "\"caf\xc3\xa9\"", `"caf\u00e9"`, `" "`, `" "`,
		`"  repo/auth  "`, `"  repo/auth  "`, `"repo/auth/deeper/still"`, `"repo/auth/deeper/still"`, `"repo/auth/deeper/stilx"`, `"x"`}
	var acts []string
	for n := 0; n <= 18; n++ {
		body := strings.Repeat("a", n)
		acts = append(acts, `"`+body+`"`)
		for i := range n {
			for _, c := range []string{`\\`, `\n`, `\u0041`, "\xc3\xa9", "\xff", "\x7f", " "} {
				acts = append(acts, `"`+body[:i]+c+body[i+1:]+`"`)
			}
		}
	}
	acts = append(acts, `7`, `true`, `["run"]`, `{"a":1}`)
	p := newStepPaths(nil)
	ref := byteStrings{}
	for i := range max(len(locs), len(acts)) {
		loc, act := locs[i%len(locs)], acts[i%len(acts)]
		var vals [numStepFields]rawValue
		lb, ab := []byte(loc), []byte(act)
		vals[sfLocation], vals[sfAction] = lb, ab
		var r stepRecord
		if reason := stepInto(&r, &vals, p); reason != "" {
			t.Fatalf("location %s, action %s: %s", loc, act, reason)
		}
		// An action may be over the line (read before the next one is).
		if want := ref.text(rawValue(act)); !r.hasAction || r.action != want {
			t.Errorf("action %d %s: %q %v, want %q", i, act, r.action, r.hasAction, want)
		}
		for _, b := range [][]byte{lb, ab} {
			for j := range b {
				b[j] = '#'
			}
		}
		wantLoc := ref.text(rawValue(loc))
		if r.hasLoc != notBlank(wantLoc) || r.hasLoc && r.location != wantLoc {
			t.Errorf("location %d %s: %q %v, want %q", i, loc, r.location, r.hasLoc, wantLoc)
		}
	}
}
