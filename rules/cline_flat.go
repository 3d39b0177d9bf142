package rules

import (
	"strings"
	"unsafe"

	"github.com/loopbreak/loopbreak/replay"
)

// clineProgress is the one parameter Cline's signature leaves out
// (clineIgnored).
const clineProgress = "task_progress"

// flatClineMembers reads a flat action, the action every Cline tool use
// is read as: its name, a space and a compact object of string values
// under plain keys ({"command":"npm test","task_progress":"- [x] Run"}).
// It returns the name and the object's members but task_progress,
// appended to ms in the order written, views of action (read only). The
// object is read in one pass that validates it as it goes (the plain
// reading, appendClineSignature, validates it whole with
// replay.ValidJSON, then walks it again to sort it). It reports false
// for anything else: white space outside a string, a value that is not
// a string, a key appendSortedTopInPlace does not read in place, a
// string that is not valid JSON; the caller reads those the plain way.
func flatClineMembers(action string, ms []topMember) (string, []topMember, bool) {
	sp := strings.IndexByte(action, ' ')
	if sp < 0 {
		return "", ms, false
	}
	a := unsafe.Slice(unsafe.StringData(action[sp+1:]), len(action)-sp-1) // read only
	n := len(a)
	if n < 2 || a[0] != '{' || a[n-1] != '}' {
		return "", ms, false
	}
	if n > 2 {
		for i := 1; ; {
			// a[i] opens a key; a[n-1] is '}', so each scan below stops
			// before a's end or at it.
			if a[i] != '"' {
				return "", ms, false
			}
			k := i + 1
			for k < n-1 && flatKeyByte[a[k]] {
				k++
			}
			if a[k] != '"' || k+2 >= n || a[k+1] != ':' || a[k+2] != '"' {
				return "", ms, false
			}
			// The value closes before a's last byte, the object's '}'.
			end := replay.StringEnd(a[:n-1], k+2)
			if end < 0 {
				return "", ms, false
			}
			if key := a[i+1 : k]; string(key) != clineProgress {
				ms = append(ms, topMember{key, a[k+2 : end]})
			}
			i = end
			if i == n-1 { // the object's '}'
				break
			}
			if a[i] != ',' {
				return "", ms, false
			}
			i++
		}
	}
	return action[:sp], ms, true
}

// flatKeyByte is plainKeyByte but for the quote that ends a key: a key's
// byte is told by one load.
var flatKeyByte = func() [256]bool {
	t := plainKeyByte
	t['"'] = false
	return t
}()
