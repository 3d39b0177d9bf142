package replay

import "testing"

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
