package replay

import (
	"strings"
	"testing"
)

// clineResultHeaderRef is clineResultHeader as written before its name
// was read in one loop: the first space or ']' by IndexAny, then
// isParamName.
func clineResultHeaderRef(t string) int {
	if !strings.HasPrefix(t, "[") {
		return -1
	}
	i := strings.IndexAny(t, " ]")
	if i < 0 || !isParamName(t[1:i]) {
		return -1
	}
	const tail = "] Result:"
	for from := i; ; {
		i := strings.Index(t[from:], tail)
		if i < 0 {
			return -1
		}
		end := from + i + len(tail)
		switch {
		case end == len(t):
			return end
		case t[end] == '\n', t[end] == ' ':
			return end + 1
		}
		from = end
	}
}

var clineHeaderSeeds = []string{
	"[read_file for 'a.go'] Result:\npackage a", "[list_files for 'src'] Result:", "[attempt_completion] Result: Done",
	"[a1] Result:", "[1a] Result:", "[_] Result:x] Result:", "[] Result:", "[ ] Result:", "[a", "[ab", "[a ", "[a]", "[A] Result:",
	"[a-b] Result:", "[ab\n] Result:", "[TASK RESUMPTION] x", "", "[", "x[a] Result:",
}

// TestClineResultHeaderAsRef: the seeds, and each byte at each place of
// a header, give what the reference gives.
func TestClineResultHeaderAsRef(t *testing.T) {
	check := func(s string) {
		if got, want := clineResultHeader(s), clineResultHeaderRef(s); got != want {
			t.Fatalf("clineResultHeader(%q) = %d, want %d", s, got, want)
		}
	}
	for _, s := range clineHeaderSeeds {
		check(s)
	}
	base := "[ab_9 for 'x'] Result:\nok"
	for i := 0; i <= len(base); i++ {
		check(base[:i])
		for c := range 256 {
			check(base[:i] + string([]byte{byte(c)}) + base[i:])
			if i < len(base) {
				check(base[:i] + string([]byte{byte(c)}) + base[i+1:])
			}
		}
	}
}

func FuzzClineResultHeader(f *testing.F) {
	for _, s := range clineHeaderSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := clineResultHeader(s), clineResultHeaderRef(s); got != want {
			t.Fatalf("clineResultHeader(%q) = %d, want %d", s, got, want)
		}
	})
}

// clineTags is clineTagOf as the map it replaced (each tool's name and
// closing tag, by its name), built from clineToolNames: TestClineTagOf's
// reference.
var clineTags = func() map[string]clineTag {
	m := make(map[string]clineTag, len(clineToolNames))
	for name := range clineToolNames {
		m[name] = clineTag{name: name, closing: "</" + name + ">"}
	}
	return m
}()

// TestClineTagOf: clineTagOf is the map clineTags, for each tool's name,
// each name cut or grown by a byte, and other words.
func TestClineTagOf(t *testing.T) {
	check := func(name string) {
		got, ok := clineTagOf(name)
		want, wok := clineTags[name]
		if got != want || ok != wok {
			t.Fatalf("clineTagOf(%q) = %v %v, want %v %v", name, got, ok, want, wok)
		}
	}
	for name := range clineToolNames {
		check(name)
		check(name[:len(name)-1])
		check(name[1:])
		check(name + "s")
		check(strings.ToUpper(name))
	}
	for _, name := range []string{"", "thinking", "path", "content", "/execute_command", "execute_command ", "a"} {
		check(name)
	}
}
