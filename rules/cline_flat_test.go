package rules

import (
	"testing"
)

// appendFlatClineSignature appends appendClineSignature(b,
// callOfAction(action)) for a flat action (flatClineMembers), the members
// sorted and written as the plain reading writes them; false, b as it
// was, for anything else. The rule compares flat calls by their members
// (sameMembers) and writes no signature for them; this writes one, so the
// flat reading is held to the plain one.
func appendFlatClineSignature(b []byte, action string, members *[]topMember) ([]byte, bool) {
	name, ms, ok := flatClineMembers(action, (*members)[:0])
	if !ok {
		return b, false
	}
	*members = ms[:0] // grown, kept for the next call
	b = append(b, name...)
	b = append(b, '\n')
	return appendSortedMembers(b, ms), true
}

// clineSignaturePlain is the signature as the rule wrote it before its
// flat reading: the action validated whole, then its object sorted.
func clineSignaturePlain(action string) string {
	var members []topMember
	return string(appendClineSignature(nil, callOfAction(action), &members))
}

// checkFlatClineSignature holds appendFlatClineSignature to the plain
// reading: the same signature when it reads the action, appended after
// what the buffer held; the buffer as it was when it does not.
func checkFlatClineSignature(t *testing.T, action string, members *[]topMember) bool {
	t.Helper()
	got, ok := appendFlatClineSignature([]byte("last\n"), action, members)
	if !ok {
		if string(got) != "last\n" {
			t.Fatalf("%q: not read flat, buffer %q", action, got)
		}
		return false
	}
	if want := "last\n" + clineSignaturePlain(action); string(got) != want {
		t.Fatalf("%q: flat %q, plain %q", action, got, want)
	}
	return true
}

var flatClineSeeds = []string{
	`execute_command {"command":"npm test","requires_approval":"false","task_progress":"- [x] Fix divide\n- [ ] Verify (try 4)\n"}`,
	`execute_command {"requires_approval":"false","command":"npm test"}`,
	`read_file {"path":"src/calc.ts"}`, `attempt_completion {}`, `x {"a":"1","a":"2","b":"3","a":"4"}`,
	`x {"":"e","A":"1","a":"2"}`, `x {"a":"\u00e9\"\\\/\b\f\n\r\t"}`, `x {"a":"\u00g9"}`, `x {"a":"\x"}`,
	`x {"a":"é"}`, "x {\"a\":\"\x01\"}", "x {\"a\":\"\xff\"}", `x {"a": "1"}`, `x { "a":"1"}`, `x {"a":"1"} `,
	`x {"a":1}`, `x {"a":["1"]}`, `x {"a":"1",}`, `x {"a":"1"`, `x {"a":"1}`, `x {"a`, `x {"a"}`, `x {"a":}`,
	`x {"<":"1"}`, `x {"a\u0062":"1"}`, `x {"task_progress":"p"}`, `x {"task_progress":"p","task_progress":"q"}`,
	`x {"a":"1"}{"b":"2"}`, `x {"a":"1""b":"2"}`, `x {}`, `x {`, `x }`, `x`, `x `, ` {"a":"1"}`, `x  {"a":"1"}`,
	`x {"a":"\u12"}`, `x {"a":"\`, `x {"a":"\"}`, `x {"a":"1"}}`, `x {"a":"NaN"}`, `x {"a":NaN}`,
}

// TestFlatClineSignature: the seeds, each byte at each place of a
// typical action, and the reading stays flat for the actions the Cline
// reader writes.
func TestFlatClineSignature(t *testing.T) {
	var members []topMember
	for _, s := range flatClineSeeds {
		checkFlatClineSignature(t, s, &members)
	}
	for _, s := range flatClineSeeds[:3] {
		if !checkFlatClineSignature(t, s, &members) {
			t.Fatalf("%q: not read flat", s)
		}
	}
	base := `x {"ab":"c\nd","e":"f\u0041"}`
	for i := 0; i <= len(base); i++ {
		for c := range 256 {
			checkFlatClineSignature(t, base[:i]+string([]byte{byte(c)})+base[i:], &members)
			if i < len(base) {
				checkFlatClineSignature(t, base[:i]+string([]byte{byte(c)})+base[i+1:], &members)
				checkFlatClineSignature(t, base[:i], &members)
			}
		}
	}
}

func FuzzFlatClineSignature(f *testing.F) {
	for _, s := range flatClineSeeds {
		f.Add(s)
	}
	var members []topMember
	f.Fuzz(func(t *testing.T, action string) {
		checkFlatClineSignature(t, action, &members)
	})
}
