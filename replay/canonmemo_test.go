package replay

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzCanonMemo holds a writer whose memo holds objects written before
// to what the plain writer (appendValue: no index, no memo) writes of
// each value, over a sequence of writes in every way: values (lines of
// the input) written again and again, canonically or not, less the
// volatile keys or not, one at a time or both forms at once, so that
// the memo is hit, missed, and met with the same bytes written another
// way or bytes of the same slot that differ.
func FuzzCanonMemo(f *testing.F) {
	meta := `{"exit_code":1,"pid":-1,"username":null,"hostname":null,"working_dir":null,"prefix":"","suffix":""}`
	obs := `{"content":[{"cache_prompt":false,"type":"text","text":"FAILED a\nb"}],"is_error":false,"exit_code":1,"metadata":` + meta + `,"kind":"TerminalObservation"}`
	act := `{"command":"python -m pytest tests/test_cache.py -x","is_input":false,"timeout":null,"reset":false,"thought":"t","kind":"TerminalAction"}`
	for _, s := range []string{
		obs + "\n" + obs + "\n" + meta,
		// The same length, first and last eight bytes: the same slot.
		`{"a":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","b":1}` + "\n" + `{"a":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxyxxxxxxxxxx","b":1}`,
		act + "\n" + act + "\n" + `[` + act + `,` + act + `]`,
		`{"b":{"b":{"b":{"b":{"b":{"x":"0123456789012345678901234567890123456789012345678"}}}}},"a":1.0}` + "\n" + `{"b":{"b":{"b":{"b":{"b":{"x":"0123456789012345678901234567890123456789012345678"}}}}},"a":1.0}`,
		`{"z":true,"y":[1e2,-0,"<&>\u2028"],"x":{"w":"é","v":"\ud800","u":"padding-padding-padding"}}`,
		`{"thought":"a","thought":"b","hidden":[1,{"hidden":true}],"security_risk":"LOW","x":"yyyyyyyyyyyy"}`,
	} {
		// Each op: the value (op>>3), the way (op&7%6).
		f.Add([]byte(s), []byte{0, 8, 16, 0, 8, 16, 1, 9, 17, 1, 9, 2, 10, 18, 4, 12, 20, 4, 12, 5, 13, 21, 3, 11, 0, 8, 1, 4, 5})
	}
	f.Fuzz(func(t *testing.T, data, ops []byte) {
		type value struct {
			v  rawValue
			ix *valueIndex
		}
		var vals []value
		for _, line := range bytes.Split(data, []byte("\n")) {
			ix := new(valueIndex)
			if end := validValueIx(line, 0, ix); end == len(line) && len(line) > 0 && len(vals) < 8 {
				vals = append(vals, value{rawValue(line), ix})
			}
		}
		if len(vals) == 0 {
			return
		}
		var w canonWriter
		for k, op := range ops {
			if k == 64 {
				break
			}
			val, way := vals[int(op>>3)%len(vals)], op&7%6
			var ref canonWriter
			switch way {
			case 0, 1, 2, 3: // appendCanon: canonical or not, less the volatile keys or not
				canonical, skip := way%2 == 0, map[string]bool(nil)
				if way >= 2 {
					skip = openHandsVolatile
				}
				w.buf = append(w.buf[:0], '>')
				val.ix.appendCanon(&w, val.v, canonical, skip)
				ref.buf = append(ref.buf, '>')
				ref.appendValue(val.v, canonical, skip)
				if !bytes.Equal(w.buf, ref.buf) {
					t.Fatalf("write %d (%d) of %q: %q, appendValue %q", k, way, val.v, w.buf, ref.buf)
				}
			default: // appendCanonBoth, less the volatile keys or not
				var skip map[string]bool
				if way == 5 {
					skip = openHandsVolatile
				}
				w.buf, w.both = append(w.buf[:0], '>'), append(w.both[:0], '<')
				w.appendCanonBoth(val.ix, val.v, skip)
				ref.buf = append(ref.buf, '>')
				ref.appendValue(val.v, true, nil)
				if !bytes.Equal(w.buf, ref.buf) {
					t.Fatalf("write %d (both) of %q: %q, appendValue %q", k, val.v, w.buf, ref.buf)
				}
				ref.buf = append(ref.buf[:0], '<')
				ref.appendValue(val.v, false, skip)
				if !bytes.Equal(w.both, ref.buf) {
					t.Fatalf("write %d (both) of %q: %q, appendValue %q", k, val.v, w.both, ref.buf)
				}
			}
			if w.memo.open != 0 || len(w.members) != 0 {
				t.Fatalf("write %d: %d memoized objects open, %d members left", k, w.memo.open, len(w.members))
			}
		}
	})
}

// TestCanonMemoBounds holds the memo to its bounds: an object over
// memoMax is not kept, and of objects within one another only the
// outer memoLevels are; an object is kept the second time it is
// written, not the first (memoSlot.seen).
func TestCanonMemoBounds(t *testing.T) {
	kept := func(w *canonWriter) (n int) {
		for i := range w.memo.slots {
			if len(w.memo.slots[i].raw) > 0 {
				n++
			}
		}
		return n
	}
	write := func(s string) *canonWriter {
		var ix valueIndex
		if validValueIx([]byte(s), 0, &ix) != len(s) {
			t.Fatalf("%q: not valid", s)
		}
		w := new(canonWriter)
		ix.appendCanon(w, rawValue(s), true, nil)
		if n := kept(w); n != 0 {
			t.Errorf("%.20q written once: %d kept", s, n)
		}
		ix.appendCanon(w, rawValue(s), true, nil)
		return w
	}
	big := `{"a":"` + strings.Repeat("x", memoMax) + `"}`
	if n := kept(write(big)); n != 0 {
		t.Errorf("an object of %d bytes: %d kept", len(big), n)
	}
	deep := strings.Repeat(`{"padding-padding-padding":0,"b":`, 10) + `"` + strings.Repeat("y", memoMin) + `"` + strings.Repeat("}", 10)
	if n := kept(write(deep)); n != memoLevels {
		t.Errorf("ten objects within one another: %d kept, want %d", n, memoLevels)
	}
	w := write(deep)
	w.buf = w.buf[:0]
	var ix valueIndex
	validValueIx([]byte(deep), 0, &ix)
	ix.appendCanon(w, rawValue(deep), true, nil)
	var ref canonWriter
	ref.appendValue(rawValue(deep), true, nil)
	if got := string(w.buf); got != string(ref.buf) {
		t.Errorf("written again from the memo: %q", got)
	}
}
