package replay

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestJSFields: jsFields finds by length what a comparison of each
// member's name, unquoted, with every name sought finds (the last of a
// repeated name), with names of one length, escaped, empty, of 63 bytes
// or more, and not UTF-8; without an index, from the members the
// validating pass noted, and with an index that did not note them.
func TestJSFields(t *testing.T) {
	long := strings.Repeat("k", 63)
	// Some of the names not ASCII (a name not UTF-8 reads with U+FFFD), or all ASCII.
	for _, keys := range []*jsKeys{
		newJSKeys("$rewindTo", "id", "$set", "sessionId", "", "toolCalls", long, long+"x", "type", "é", "\ufffd", "\xfe"),
		newJSKeys("$rewindTo", "id", "$set", "sessionId", "", "toolCalls", long, long+"x", "type", "\x7f"),
		// Names of 9 to 16 bytes (two words) and past them, of one length.
		newJSKeys("functionResponse", "functionResponsf", "resultDisplay", "resultDisplaz", "timestamps", "timestampt", "seventeen_bytes_x", "toolCalls", "$rewindTo"),
		// A name of each length of one word (its bytes masked by lowBytes).
		newJSKeys("e", "id", "ids", "type", "cause", "action", "content", "metadata", "tool"),
	} {
		testJSFields(t, keys)
	}
}

func testJSFields(t *testing.T, keys *jsKeys) {
	long := strings.Repeat("k", 63)
	pool := []string{`"$rewindTo"`, `"id"`, `"$set"`, `"sessionId"`, `""`, `"toolCalls"`, `"timestamp"`, `"` + long + `"`, `"` + long + `x"`, `"` + long + `y"`,
		`"type"`, `"ty\u0070e"`, `"i\u0064"`, `"\u00e9"`, `"é"`, `"e"`, `"tool"`, `"ids"`, "\"\xff\"", `"\ud800"`, "\"\xef\xbf\xbd\"", "\"\x7f\"", `"\u007f"`, `"\ufffd"`, "\"\xfe\"",
		`"functionResponse"`, `"functionResponsf"`, `"functionRxsponse"`, `"xunctionResponse"`, `"resultDisplay"`, `"resultDisplaz"`, `"resultXisplay"`, `"timestamps"`, `"timestampt"`, `"timestxmps"`,
		`"seventeen_bytes_x"`, `"seventeen_bytes_y"`, `"seventeen_bxtes_x"`, `"functionRespons\u0065"`,
		`"cause"`, `"causf"`, `"caus"`, `"action"`, `"actioN"`, `"content"`, `"contents"`, `"conten"`, `"metadata"`, `"metadatA"`, `"metadat"`, `"i"`}
	rng := rand.New(rand.NewPCG(24, 12))
	for trial := range 2000 {
		var b strings.Builder
		b.WriteByte('{')
		n := rng.IntN(12)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%s:%d", pool[rng.IntN(len(pool))], i)
		}
		b.WriteByte('}')
		v := rawValue(b.String())
		got := make([]rawValue, len(keys.names))
		jsFields(nil, v, keys, got)
		// Also from the index: v nested depth arrays deep, its members
		// noted by the validating pass above memberDepth, scanned below.
		depth := trial % (memberDepth + 2)
		nested := strings.Repeat("[", depth) + string(v) + strings.Repeat("]", depth)
		var ix valueIndex
		if validValueIx([]byte(nested), 0, &ix) != len(nested) {
			t.Fatalf("%s: not valid", nested)
		}
		inner := rawValue(ix.base[depth : depth+len(v)])
		if _, noted := ix.noted(inner); noted != (depth < memberDepth && len(v) > 2) {
			t.Fatalf("%s: noted %v at depth %d", nested, noted, depth)
		}
		gotIx := make([]rawValue, len(keys.names))
		jsFields(&ix, inner, keys, gotIx)
		want := make([]rawValue, len(keys.names))
		v.Members(func(k []byte, esc bool, val rawValue) bool {
			name, _ := jsUnquote(rawValue(`"` + string(k) + `"`))
			for i, n := range keys.names {
				if name == n {
					want[i] = val
				}
			}
			return true
		})
		for i := range want {
			if string(got[i]) != string(want[i]) || (got[i] == nil) != (want[i] == nil) {
				t.Fatalf("trial %d, %s: %q is %q, want %q", trial, v, keys.names[i], got[i], want[i])
			}
			if string(gotIx[i]) != string(want[i]) || (gotIx[i] == nil) != (want[i] == nil) {
				t.Fatalf("trial %d, %s at depth %d: %q is %q from the index, want %q", trial, v, depth, keys.names[i], gotIx[i], want[i])
			}
		}
	}
}

// FuzzLastIndex: lastIndex is strings.LastIndex.
func FuzzLastIndex(f *testing.F) {
	f.Add("System: x. Please take a step back. Please take a step back and more", ". Please take a step back")
	f.Add("aaaa", "aa")
	f.Add("", "")
	f.Add("abc", "")
	f.Fuzz(func(t *testing.T, s, sep string) {
		if got, want := lastIndex(s, sep), strings.LastIndex(s, sep); got != want {
			t.Fatalf("lastIndex(%q, %q) = %d, want %d", s, sep, got, want)
		}
	})
}
