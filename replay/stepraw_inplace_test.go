package replay

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestRawNumbersInPlace: a number literal is parsed over the record's
// bytes (rawNumberText), without a copy, and what is read does not
// change when the bytes are written over after (the reader's buffer is
// reused for the next line). It fails when a literal is copied again
// (an allocation a step) or a result is kept over the bytes.
func TestRawNumbersInPlace(t *testing.T) {
	for _, c := range []struct {
		lit     string
		n       int
		integer bool
		f       float64
		float   bool
	}{
		{"12345", 12345, true, 12345, true},
		{"0", 0, true, 0, true},
		{"-7", -7, true, -7, true},
		{"2.5", 0, false, 2.5, true},
		{"3.0", 3, true, 3, true},
		{"1e3", 1000, true, 1000, true},
		{"1e400", math.MaxInt64, true, 0, false}, // floatInteger's clamp
		{"99999999999999999999", math.MaxInt64, true, 1e20, true},
		{"-1e400", math.MinInt64, true, 0, false},
	} {
		buf := []byte(c.lit)
		x := rawValue(buf)
		n, integer := rawInteger(x)
		f, float := rawFloat(x)
		for i := range buf {
			buf[i] = 'x'
		}
		if integer != c.integer || integer && n != c.n {
			t.Errorf("rawInteger(%s) = %d, %v, want %d, %v", c.lit, n, integer, c.n, c.integer)
		}
		if float != c.float || float && f != c.f {
			t.Errorf("rawFloat(%s) = %v, %v, want %v, %v", c.lit, f, float, c.f, c.float)
		}
	}
	x := rawValue("123456")
	if a := testing.AllocsPerRun(100, func() { rawInteger(x); rawFloat(x) }); a != 0 {
		t.Errorf("rawInteger and rawFloat of a literal allocate %v times", a)
	}
}

// TestLocTextAsText holds locText, over runs of locations repeated,
// changed, escaped, spelling the last one's text with an escape, not
// valid UTF-8, empty and not strings, to byteStrings.text. It fails when
// the last location is reused for a body that is not its text as it
// stands.
func TestLocTextAsText(t *testing.T) {
	locs := []string{`"repo/auth"`, `"repo/auth"`, `"repo\/auth"`, `"repo/auth"`, `"repo\u002fauth"`, `"repo\u002fauth"`,
		`"a\\b"`, `"a\\b"`, `"a\b"`, `"a\\b"`, "\"\xff\"", "\"\xff\"", `"\ufffd"`, "\"\xff\"", `""`, `""`, `"x"`, `7`, `7`, `"7"`, `"7"`,
		`"caf\u00e9"`, "\"caf\xc3\xa9\"", "\"caf\xc3\xa9\"", `"caf\u00e9"`, `" "`, `" "`, `"x"`}
	p := newStepPaths(nil)
	ref := byteStrings{}
	for i, l := range locs {
		buf := []byte(l) // over a buffer written over after, as the reader's
		got := p.locText(rawValue(buf))
		for j := range buf {
			buf[j] = '#'
		}
		if want := ref.text(rawValue(l)); got != want {
			t.Errorf("location %d %s: locText %q, want %q", i, l, got, want)
		}
	}
}

// TestDigitsAsStrconv holds rawInteger's and rawFloat's fast path
// (smallDecimal) to strconv over numbers of 1 to 21 digits, leading zeros,
// signs, a point, an exponent, blanks and strings, each as a literal and
// as a string's content: it fails when smallDecimal takes a number that
// overflows its word, a sign or a byte that is no digit.
func TestDigitsAsStrconv(t *testing.T) {
	var cases []string
	for n := 1; n <= 21; n++ {
		for _, d := range []string{"1", "9", "0", "5"} {
			cases = append(cases, strings.Repeat(d, n), "1"+strings.Repeat(d, n-1), strings.Repeat(d, n-1)+"7")
		}
	}
	cases = append(cases, "9007199254740993", "999999999999999", "1000000000000000", "00", "007",
		"-0", "-12", "+12", "1.0", "1e2", "1_0", "0x10", "12a", "a12", "", " ", "٣", "1\x00")
	for _, s := range cases {
		for _, lit := range []string{s, strconv.Quote(s), strconv.Quote(" " + s + " ")} {
			x := rawValue(lit)
			if x.Kind() == '0' && !validNumber(lit) {
				continue // no JSON number: never a literal the reader hands over
			}
			wantN, wantInt := rawIntegerRef(x)
			wantF, wantFloat := rawFloatRef(x)
			if n, ok := rawInteger(x); n != wantN || ok != wantInt {
				t.Errorf("rawInteger(%s) = %d, %v, strconv %d, %v", lit, n, ok, wantN, wantInt)
			}
			if f, ok := rawFloat(x); math.Float64bits(f) != math.Float64bits(wantF) || ok != wantFloat {
				t.Errorf("rawFloat(%s) = %v, %v, strconv %v, %v", lit, f, ok, wantF, wantFloat)
			}
		}
	}
}

// validNumber says lit is one JSON number, as the validating pass sees it.
func validNumber(lit string) bool { return json.Valid([]byte(lit)) && lit != "" && lit[0] != '"' }

// rawIntegerRef and rawFloatRef are rawInteger and rawFloat without the
// fast path (smallDecimal): strconv's reading of the text.
func rawIntegerRef(x rawValue) (int, bool) {
	s, ok := rawNumberText(x)
	if !ok {
		return 0, false
	}
	return parseInteger(s)
}

func rawFloatRef(x rawValue) (float64, bool) {
	s, ok := rawNumberText(x)
	if !ok {
		return 0, false
	}
	return parseFloat(s)
}

// TestRawKind holds rawKind, whose usual words are known by their bytes,
// to the kind's text lower-cased and trimmed (what it reads any other
// value as): it fails when a word's bytes map to another word.
func TestRawKind(t *testing.T) {
	for _, lit := range []string{
		`"action"`, `"message"`, `"condensation"`, `"Action"`, `" message "`, `"\u0061ction"`, `"mess\u0061ge"`,
		`"CONDENSATION"`, `"actions"`, `"act"`, `""`, `"\"action\""`, "\"\xffaction\"", `1`, `null`, `true`, `["action"]`,
	} {
		if got, want := rawKind(rawValue(lit)), strings.ToLower(strings.TrimSpace(rawValue(lit).Text())); got != want {
			t.Errorf("rawKind(%s) = %q, want %q", lit, got, want)
		}
	}
}

// TestOutputCopiesUnescaped holds outputCopies.unescaped, which unescapes
// an output into the table's block, to Str over strings plain, escaped,
// not UTF-8 (three bytes a byte once read), empty, escaped to nothing but
// a few bytes, longer than a block's quarter and filling blocks in turn,
// each read from a buffer written over after: it fails when a text is
// cut, read past its end, or left over the reader's buffer.
func TestOutputCopiesUnescaped(t *testing.T) {
	var c outputCopies
	bodies := []string{`plain text`, `a\nb\t\"c\"`, "\xff\xfe\xfd", `\u00e9\ud83d\ude00\ud800`, ``, `\n`,
		strings.Repeat(`x\n`, outputBlock/7), strings.Repeat("\xff", outputBlock/10), strings.Repeat(`\u0041`, 3000)}
	var got []string
	var want []string
	for range 20 {
		for _, b := range bodies {
			buf := []byte(`"` + b + `"`)
			w, _ := rawValue(buf).Str()
			got = append(got, c.unescaped(rawValue(buf)))
			want = append(want, w)
			for i := range buf {
				buf[i] = '#'
			}
		}
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("text %d: %.60q, want %.60q", i, got[i], want[i])
		}
	}
}

// TestNotBlank holds notBlank to strings.TrimSpace(s) != "" for every
// first byte, alone and before blanks, letters and non-ASCII text.
func TestNotBlank(t *testing.T) {
	for c := 0; c < 256; c++ {
		for _, rest := range []string{"", " ", "\t\n", "a", "\u00a0", "\u3000 x", "\xff"} {
			s := string([]byte{byte(c)}) + rest
			if got, want := notBlank(s), strings.TrimSpace(s) != ""; got != want {
				t.Errorf("notBlank(%q) = %v, want %v", s, got, want)
			}
		}
	}
	for _, s := range []string{"", " ", "\u0085", "\u2028x", "repo/auth"} {
		if got, want := notBlank(s), strings.TrimSpace(s) != ""; got != want {
			t.Errorf("notBlank(%q) = %v, want %v", s, got, want)
		}
	}
}
