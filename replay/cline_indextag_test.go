package replay

import (
	"strings"
	"testing"
)

func checkIndexTag(t *testing.T, s, tag string) {
	t.Helper()
	if got, want := indexTag(s, tag), strings.Index(s, tag); got != want {
		t.Fatalf("indexTag(%q, %q) = %d, want %d", s, tag, got, want)
	}
}

// TestIndexTag holds indexTag to strings.Index: each tool's closing tag
// in a tool use's body, and that body with each of a few bytes inserted
// at, replacing, and cut at each place.
func TestIndexTag(t *testing.T) {
	for name := range clineToolNames {
		tag := "</" + name + ">"
		for _, s := range []string{"", "<", "</", tag, tag[:len(tag)-1], "x" + tag + tag, "<<" + tag, "</" + tag, tag[:len(tag)-1] + tag,
			"<path>a</path>\n" + tag + "\nmore", "<content><a></a></content>" + tag} {
			checkIndexTag(t, s, tag)
		}
	}
	tag := "</read_file>"
	base := "<path>a<b</path>\n</read_file>x"
	for i := 0; i <= len(base); i++ {
		checkIndexTag(t, base[:i], tag)
		checkIndexTag(t, base[i:], tag)
		for _, c := range []byte("</>reax") {
			checkIndexTag(t, base[:i]+string([]byte{c})+base[i:], tag)
			if i < len(base) {
				checkIndexTag(t, base[:i]+string([]byte{c})+base[i+1:], tag)
			}
		}
	}
}

func FuzzIndexTag(f *testing.F) {
	f.Add("<path>a</path>\n</read_file>", "read_file")
	f.Add("<</</a</a>", "a")
	f.Fuzz(func(t *testing.T, s, name string) { checkIndexTag(t, s, "</"+name+">") })
}
