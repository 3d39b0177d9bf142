package replay

import (
	"fmt"
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
