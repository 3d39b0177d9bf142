package replay

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// blankRuns are white space runs of every kind the pass meets: a
// newline's indentation of 0 to 20 spaces (none, part of a word, one
// word, past one), and of 23 to 41 (the opening bracket's fourth word
// and past it), tabs, carriage returns, newlines in a row, a space
// before a newline, and control bytes that are not white space.
func blankRuns() []string {
	runs := []string{"\t", "\r\n", "\r\n  ", "\n\n    ", "\n\t\t", "\n  \t  ", " \n  ", "\n  \n  ", "        \n", " \t\r\n ",
		"\x01", "\x00  ", "\n\x1f", "\n        \x0b", "\n   \x00"}
	for n := 0; n <= 20; n++ {
		sp := strings.Repeat(" ", n)
		runs = append(runs, sp, "\n"+sp, "\n"+sp+"\t", "\n"+sp+"\n"+sp)
	}
	for n := 23; n <= 41; n++ {
		sp := strings.Repeat(" ", n)
		runs = append(runs, sp, "\n"+sp, "\n"+sp+"\t")
	}
	return runs
}

// TestBlankCarry holds blankCarry to skipSpace at every start of every
// run, followed by each kind of byte and cut at every length (the words
// are read only while eight bytes are left); blankLines too, counting
// the newlines passed.
func TestBlankCarry(t *testing.T) {
	for _, run := range blankRuns() {
		for _, next := range []string{`"k"`, `}`, `]`, `,`, `1`, `x`, "\x01", ``} {
			s := []byte(run + next + strings.Repeat("p", 9))
			for end := len(s); end >= 0; end-- {
				b := s[:end]
				for i := 0; i < len(b); i++ {
					if b[i] > ' ' {
						continue // the pass calls it at a byte <= ' ' only
					}
					lv := passLevel{d: 3, closer: '}'}
					got, glv := blankCarry(b, i, lv)
					want := skipSpace(b, i)
					if got != want || glv != lv {
						t.Fatalf("blankCarry(%q, %d) = %d, %v; skipSpace %d", b, i, got, glv, want)
					}
					// blankLines the same, its newlines counted.
					ix := valueIndex{lines: 5}
					got, glv = ix.blankLines(b, i, lv)
					if lines := 5 + bytes.Count(b[i:want], newline); got != want || glv != lv || ix.lines != lines {
						t.Fatalf("blankLines(%q, %d) = %d, %v, %d lines; skipSpace %d, %d lines", b, i, got, glv, ix.lines, want, lines)
					}
				}
			}
		}
	}
}

// TestPassBlanks holds the pass (its blanks by blankCarry, an opening
// bracket's by its words in line, the colon's one space in line) to
// validValue on values with white space of each
// kind at each place (after a comma, a value, an opening bracket, around
// a colon), pretty-printed documents, and every prefix of them.
func TestPassBlanks(t *testing.T) {
	var cases []string
	for _, r := range blankRuns() {
		cases = append(cases,
			`{`+r+`"a":`+r+`1,`+r+`"b"`+r+`:`+r+`"s"`+r+`}`,
			`[`+r+`1,`+r+`{`+r+`"k": [`+r+`]`+r+`},`+r+`[`+r+`"x"`+r+`]`+r+`]`,
			`{"a": {`+r+`"b": [`+r+`1,`+r+`2`+r+`],`+r+`"c": {}`+r+`},`+r+`"d": "`+strings.Repeat("v", 50)+`"`+r+`}`,
			`{"a":1`+r+`,`+r+`}`, `[1,`+r+`]`, `{"a":`+r, `[`+r,
			`{`+r+`}`, `[`+r+`]`, `[[`+r+`],{`+r+`},{"a":{`+r+`}}]`, `{"a":[`+r+strings.Repeat(" ", 70)+`]}`, `[{`+r+strings.Repeat(" ", 70)+`}]`,
		)
	}
	doc := map[string]any{
		"sessionId": "5f1c2d3e", "messages": []any{
			map[string]any{"id": "m1", "type": "user", "content": "Why?", "n": 12, "ok": true, "none": nil},
			map[string]any{"id": "m2", "toolCalls": []any{map[string]any{"args": map[string]any{"command": "make"}, "result": []any{}}}, "thoughts": []any{}},
		},
	}
	for _, indent := range []string{"  ", "    ", "\t", "         ", " \t"} {
		b, err := json.MarshalIndent(doc, "", indent)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, string(b), strings.ReplaceAll(string(b), "\n", "\r\n"))
	}
	for _, c := range cases {
		for end := len(c); end >= 0; end-- {
			checkValueIndex(t, []byte(c[:end]))
		}
	}
}

// TestPassTopValue holds the pass's end of the top value (told only on
// the paths that do not go on: b's end, a blank, a byte that is not
// the closer, and a closer of 0 after a comma) to validValue's, for
// each kind of value followed by each kind of byte.
func TestPassTopValue(t *testing.T) {
	values := []string{`1`, `0`, `-2`, `1.5e3`, `"s"`, `""`, `"` + strings.Repeat("v", 70) + `"`, `true`, `false`, `null`,
		`NaN`, `-Infinity`, `{}`, `[]`, `{"a":1}`, `[1,2]`, `{"a":{"b":[1]}}`, `[` + strings.Repeat(" ", 70) + `]`}
	for _, v := range values {
		for _, after := range []string{``, `,`, ` ,`, `, `, `,  `, `,` + strings.Repeat(" ", 40) + `x`, ",\n\t 1", `,"k":1`, ` `, "\n", "\x00",
			`}`, `]`, `x`, `:`, ` }`, `,}`, `,]`} {
			c := v + after
			for end := len(c); end >= 0; end-- {
				checkValueIndex(t, []byte(c[:end]))
			}
		}
	}
}
