package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestSkipBlank holds skipBlank and skipBlankRun to skipSpace from every
// start of strings of white space, other bytes below and above ' ', of
// every length up to 40 (runs of spaces across the words' bounds, a
// newline's indentation, and runs to the slice's end, which skipBlankRun
// reads from the slice's last word).
func TestSkipBlank(t *testing.T) {
	alphabet := []byte(" \n\t\r\x01x\"")
	r := rand.New(rand.NewSource(1))
	for n := 0; n <= 40; n++ {
		for trial := 0; trial < 2000; trial++ {
			b := make([]byte, n)
			for k := range b {
				b[k] = alphabet[r.Intn(len(alphabet))]
				if r.Intn(3) > 0 {
					b[k] = ' ' // mostly spaces: long runs
				}
			}
			for i := 0; i <= n+1; i++ {
				want := skipSpace(b, i)
				if got := skipBlank(b, i); got != want {
					t.Fatalf("skipBlank(%q, %d) = %d, want %d", b, i, got, want)
				}
				if got := skipBlankRun(b, i); got != want {
					t.Fatalf("skipBlankRun(%q, %d) = %d, want %d", b, i, got, want)
				}
				if got := skipAfter(b, i); got != want {
					t.Fatalf("skipAfter(%q, %d) = %d, want %d", b, i, got, want)
				}
			}
		}
	}
}

// TestSkipBlankIndent holds skipBlankRun's indentation words to
// skipSpace: a newline and 0 to 30 spaces (the words' bounds at 8, 16 and
// 24, and past them), then a byte blank or not, then 0 to 30 bytes more
// (the 26 bytes the words need, and fewer), from every start.
func TestSkipBlankIndent(t *testing.T) {
	for n := 0; n <= 30; n++ {
		for _, last := range []byte{'"', '{', 'x', ' ', '\t', '\r', '\n', '\x01'} {
			for tail := 0; tail <= 30; tail++ {
				b := append([]byte("{\n"), bytes.Repeat([]byte{' '}, n)...)
				b = append(b, last)
				b = append(b, bytes.Repeat([]byte{'a'}, tail)...)
				for i := 0; i <= len(b)+1; i++ {
					want := skipSpace(b, i)
					if got := skipBlankRun(b, i); got != want {
						t.Fatalf("skipBlankRun(%q, %d) = %d, want %d", b, i, got, want)
					}
					if got := skipBlank(b, i); got != want {
						t.Fatalf("skipBlank(%q, %d) = %d, want %d", b, i, got, want)
					}
				}
			}
		}
	}
}

// TestSkipAfter holds skipAfter (blankAfter's two words) to skipSpace on
// a container's last value followed by a newline and 0 to 24 spaces of
// indentation (blankAfter's bounds, 8 and 16, and past them), its last
// byte a closer, a space or a control byte, from every start, in slices
// shorter and longer than the words.
func TestSkipAfter(t *testing.T) {
	for _, head := range []string{"", "1", `{"a": 1`, `{"some": "value", "more": [1, 2, 3]`} {
		for n := 0; n <= 24; n++ {
			for _, last := range []byte{'}', ']', ' ', '\x01', '\t', '\n'} {
				for _, nl := range []byte{'\n', ' ', '\r', 'x'} {
					b := append([]byte(head), nl)
					b = append(b, bytes.Repeat([]byte{' '}, n)...)
					b = append(b, last)
					for i := 0; i <= len(b)+1; i++ {
						want := skipSpace(b, i)
						if got := skipAfter(b, i); got != want {
							t.Fatalf("skipAfter(%q, %d) = %d, want %d", b, i, got, want)
						}
					}
				}
			}
		}
	}
}

// checkScan holds scanFields and jsElems to valueIndex's members and
// elems (keys.set on each member, as jsFields read it), on every object
// and array of v, with v's index and without one.
func checkScan(t *testing.T, data []byte) {
	i := skipSpace(data, 0)
	var ix valueIndex
	end := validValueIx(data, i, &ix)
	if end < 0 {
		return
	}
	keys := []*jsKeys{geminiRecordKeys, geminiCallKeys, geminiPartKeys, geminiResponseKeys, newJSKeys("x", "é", "a\u0000", "\uFFFD")}
	var walk func(v rawValue, depth int)
	walk = func(v rawValue, depth int) {
		if depth > 20 {
			return
		}
		for _, x := range []*valueIndex{&ix, nil} {
			for _, ks := range keys {
				got, want := make([]rawValue, len(ks.names)), make([]rawValue, len(ks.names))
				scanFields(x, v, ks, got)
				x.members(v, func(k []byte, esc bool, val rawValue) bool {
					ks.set(k, esc, val, want)
					return true
				})
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%q: scanFields %q, members %q", v, got, want)
				}
			}
			var got, want []rawValue
			jsElems(x, v, func(_ int, e rawValue) bool { got = append(got, e); return true })
			x.elems(v, func(_ int, e rawValue) bool { want = append(want, e); return true })
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: jsElems %q, elems %q", v, got, want)
			}
		}
		ix.members(v, func(_ []byte, _ bool, val rawValue) bool { walk(val, depth+1); return true })
		ix.elems(v, func(_ int, e rawValue) bool { walk(e, depth+1); return true })
	}
	walk(rawValue(data[i:end]), 0)
}

func FuzzGeminiScan(f *testing.F) {
	for _, p := range []string{"session-2025-11-12T14-00-3f0c9a7e.jsonl", "session.json"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "steps", "gemini-cli", p))
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			var b bytes.Buffer
			if json.Indent(&b, line, "", "  ") == nil && b.Len() < 4000 {
				f.Add(b.Bytes())
			}
		}
		var b bytes.Buffer
		if json.Indent(&b, data, "", "  ") == nil {
			f.Add(b.Bytes())
		}
	}
	f.Add([]byte("{ \"x\" :\t1 ,\r\n        \"a\\u0000\"  :  [ 1 ,  {\"\xff\":2,  \"é\" : \"v\" } ]  }"))
	f.Add([]byte("[\n                  {\"text\" :\"t\"},\n  \"thought\"\n]"))
	f.Fuzz(func(t *testing.T, data []byte) { checkScan(t, data) })
}

// TestScanFieldsKeys holds scanFields' keys told by their words (a key
// ending within its first 16 bytes, no escape, the names all ASCII) to
// members' (checkScan): the names sought, each with a byte changed at
// either end, escaped, with bytes not ASCII (UTF-8 or not), keys of 0
// to 24 bytes, and objects ending just after a key's value, so a key
// lies at every distance from the object's end.
func TestScanFieldsKeys(t *testing.T) {
	var names []string
	for _, ks := range []*jsKeys{geminiCallKeys, geminiPartKeys, geminiResponseKeys, geminiRecordKeys} {
		names = append(names, ks.names...)
	}
	var keys []string
	for _, n := range names {
		keys = append(keys, n, "x"+n[1:], n[:len(n)-1]+"x", n+"x", `\u00`+fmt.Sprintf("%02x", n[0])+n[1:], n[:len(n)-1]+`\"`, n+"\xff", "é"+n)
	}
	for n := 0; n <= 24; n++ {
		keys = append(keys, strings.Repeat("k", n), strings.Repeat("k", n)+`\n`, strings.Repeat("é", n/2))
	}
	for _, k := range keys {
		for _, pad := range []string{"", " ", "\n  ", strings.Repeat(" ", 17)} {
			for _, val := range []string{`1`, `"v"`, `{}`} {
				checkScan(t, []byte(`{"a":1,`+pad+`"`+k+`":`+val+`}`))
				checkScan(t, []byte(`{"`+k+`":`+val+pad+`}`))
				checkScan(t, []byte(`{"`+k+`" : `+val+`,"`+k+`":2}`))
			}
		}
	}
}
