package replay

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestScalarText holds scalarText, a view, to rawValue.Text, a copy: an
// event's id and cause of every kind, escaped and not, read the same.
func TestScalarText(t *testing.T) {
	for _, v := range []string{
		``, `null`, `NaN`, `-Infinity`, `Infinity`, `true`, `false`,
		`0`, `5`, `-12`, `1.5`, `1e3`, `-0.0`, `12345678901234567890`,
		`""`, `"5"`, `"abc"`, `"a\"b"`, `"\u0041"`, `"héllo"`, `"a\\b"`, `"\ud83d\ude00"`,
		`[1,2]`, `{"a":1}`, `[]`, `{}`,
	} {
		if got, want := scalarText(rawValue(v)), rawValue(v).Text(); got != want {
			t.Errorf("scalarText(%s) = %q, Text %q", v, got, want)
		}
	}
}

// TestCanonicalExit holds appendCanonicalExit, which writes a plain
// integer as it stands, to appendValue(v, true, nil): every kind of
// value an exit code may be, numbers of every form.
func TestCanonicalExit(t *testing.T) {
	for _, v := range []string{
		``, `null`, `NaN`, `-Infinity`, `true`, `false`, `"0"`, `[0]`, `{}`,
		`0`, `-0`, `1`, `-1`, `127`, `-127`, `00`, `01`, `-01`, `-`, `--1`, `1-`,
		`1.0`, `1.5`, `-0.0`, `1e3`, `1E3`, `2e-1`, `10`, `100`,
		`999999999999999999`, `-999999999999999999`, `1000000000000000000`,
		`9223372036854775807`, `-9223372036854775808`, `9223372036854775808`,
		`12345678901234567890`, `123456789012345678`, `1234567890123456789`,
	} {
		checkCanonicalExit(t, v)
	}
}

// FuzzCanonicalExit is TestCanonicalExit of any JSON value (an exit
// code is one, validated by the pass; appendValue reads no other).
func FuzzCanonicalExit(f *testing.F) {
	for _, v := range []string{`0`, `-1`, `-0`, `1e2`, `123456789012345678901`, `"x"`} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if json.Valid([]byte(v)) && v == strings.TrimSpace(v) {
			checkCanonicalExit(t, v)
		}
	})
}

func checkCanonicalExit(t *testing.T, v string) {
	t.Helper()
	var w, ref canonWriter
	w.buf = append(w.buf, "c:ls\x00"...)
	ref.buf = append(ref.buf, "c:ls\x00"...)
	w.buf = appendCanonicalExit(w.buf, &w, rawValue(v))
	ref.appendValue(rawValue(v), true, nil)
	if string(w.buf) != string(ref.buf) {
		t.Errorf("appendCanonicalExit(%q) = %q, appendValue %q", v, w.buf, ref.buf)
	}
}

// TestAppendCommand holds appendCommand to canonWriter.appendText: a
// command of every kind, plain, escaped (two-byte and \u escapes,
// surrogates paired and lone), non-ASCII, not UTF-8, long and short,
// after a prefix in the buffer.
func TestAppendCommand(t *testing.T) {
	cmds := []string{``, `null`, `1`, `-0`, `true`, `false`, `[1,"a"]`, `{"a":1}`,
		`""`, `"ls"`, `"ls -la /tmp"`, `"a\nb"`, `"a\"b\\c\/d\b\f\r\t"`, `"\u00e9t\u00e9"`, `"\ud83d\ude00"`,
		`"\ud800"`, `"x\udc00y"`, `"héllo €"`, "\"a\xffb\"", "\"\xe2\x82\"", "\"\xff\\n\"",
		`"` + strings.Repeat(`python -m pytest\n    line`, 40) + `"`, `"` + strings.Repeat("é", 50) + `\n"`}
	for _, c := range cmds {
		var w, ref canonWriter
		w.buf = append(w.buf, "c:"...)
		ref.buf = append(ref.buf, "c:"...)
		appendCommand(&w, rawValue(c))
		ref.appendText(rawValue(c))
		if string(w.buf) != string(ref.buf) {
			t.Errorf("appendCommand(%q) = %q, appendText %q", c, w.buf, ref.buf)
		}
	}
}
