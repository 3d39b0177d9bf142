package replay

import "testing"

// codexTextCases are contents and outputs as a line holds them.
var codexTextCases = []string{
	`"plain"`, `""`, `"a\nb \"q\" \u00e9\ud83d\ude00 \ud800"`, "\"\xff\xfe bytes\"", `null`, `5`, `{"a": 1}`, `[]`,
	`[{"type":"output_text","text":"one"}]`, `[{"type":"output_text","text":"a\\b\tc"}]`,
	`[{"text":"no type"}]`, `[{"type":null,"text":"t"}]`, `[{"type":5,"text":"t"}]`, `[{"type":"x","text":5}]`,
	`[{"type":"x","text":null}]`, `[{"type":"input_image"}]`, `[{"other":1}]`, `[null]`, `[5]`, `["s"]`,
	`[{"type":"x","text":"a","text":"b"}]`, `[{"type":"x","text":"a","text":null}]`, `[{"text":"a","type":[1]}]`,
	`[{"type":"output_text","text":"one"},{"type":"output_text","text":"two"}]`, `[{"type":"output_text","text":"one"},null]`,
	`[ {"type" : "output_text" , "text" : "spaced"} ]`, `[{"t\u0065xt":"escaped key"}]`,
}

// TestCodexText: c.text reads content as textOf does.
func TestCodexText(t *testing.T) {
	for _, v := range codexTextCases {
		checkCodexText(t, v)
	}
}

func FuzzCodexText(f *testing.F) {
	for _, v := range codexTextCases {
		f.Add(v)
	}
	f.Fuzz(checkCodexText)
}

// checkCodexText compares c.text and textOf of value v within a line.
func checkCodexText(t *testing.T, v string) {
	c := &codexReader{}
	line := []byte(`{"type":"response_item","payload":{"type":"message","role":"assistant","content":` + v + `}}`)
	rec, nonFinite, err := agentRecordIx(line, &c.ix)
	if err != nil || nonFinite {
		return
	}
	content := c.ix.get(c.ix.get(rec, "payload"), "content")
	if got, want := c.text(content), textOf(&c.ix, content); got != want {
		t.Errorf("%s: text %q, textOf %q", v, got, want)
	}
}

// codexShellCases are tool outputs' texts (trimmed) as outputJSON reads
// them.
var codexShellCases = []string{
	`{"output": "--- FAIL: TestDivide (0.00s)\nFAIL\n", "metadata": {"exit_code": 1, "duration_seconds": 0.4}}`,
	`{"output": "ok", "metadata": {"exit_code": 0, "duration_seconds": 1}} (round 3)`,
	`{"output": "ok", "metadata": {"exit_code": 0, "duration_seconds": 1}}}`,
	`{"output": "a\"b\\c\u00e9\ud800", "metadata": {"exit_code": -2, "duration_seconds": 1e3}}`,
	`{"output": "", "metadata": {"exit_code": 2.0, "duration_seconds": 0}}`,
	`{"output": "x", "metadata": {"exit_code": 2.5, "duration_seconds": 0}}`,
	`{"output": "x", "metadata": {"exit_code": 1e999, "duration_seconds": 0}}`,
	`{"output": "x", "metadata": {"exit_code": 99999999999999999999, "duration_seconds": 0}}`,
	`{"output": "x", "metadata": {"exit_code": 01, "duration_seconds": 0}}`,
	`{"output": "x", "metadata": {"exit_code": -, "duration_seconds": 0}}`,
	`{"output": "x", "metadata": {"exit_code": 1, "duration_seconds": NaN}}`,
	`{"output": "x", "metadata": {"exit_code": -Infinity, "duration_seconds": 1}}`,
	`{"output": "x", "metadata": {"exit_code": 1, "duration_seconds": 1.}}`,
	`{"output": "x", "metadata": {"exit_code": 1, "duration_seconds": 1} }`,
	`{"output": "x", "metadata": {"exit_code": 1}}`,
	`{"output": "x", "metadata": {"exit_code": 1, "duration_seconds": 1, "x": 2}}`,
	`{"output": "x\q", "metadata": {"exit_code": 1, "duration_seconds": 1}}`,
	`{"output": "x` + "\x01" + `", "metadata": {"exit_code": 1, "duration_seconds": 1}}`,
	`{"output": "x", "metadata": {"exit_code": 1, "duration_seconds": 1}, "output": "y"}`,
	`{"output":"x","metadata":{"exit_code":1,"duration_seconds":1}}`,
	`{"output": null, "metadata": {"exit_code": 1, "duration_seconds": 1}}`,
	`{"output": "x", "metadata": {"exit_code": "3", "duration_seconds": 1}}`,
	`{"output": "x", "metadata": {"exit_code": 1, "duration_seconds": 1}`,
	`{"output": "x", "metadata": {"exit_code": `, `{"output": "x", "metadata": {"exit_code": 1, "duration_seconds": `,
	`{"output": "`, `{"output": "x"`, `{"output": `,
	// A byte changed at each end of the two parts meta and dur are
	// compared in (shellOutput), and a text cut within them.
	`{"output": "x", "metadata": [{"exit_code": 1, "duration_seconds": 1}}`,
	`{"output": "x", "metadata": {"exit_codE": 1, "duration_seconds": 1}}`,
	`{"output": "x", "metadata": {"exit_code":` + "\t" + `1, "duration_seconds": 1}}`,
	`{"output": "x", "metadata": {"exit_code": 1, "duration_secOnds": 1}}`,
	`{"output": "x", "metadata": {"exit_code": 1, "duration_secoNds": 1}}`,
	`{"output": "x", "metadata": {"exit_code": 1, "duration_secondS": 1}}`,
	`{"output": "x", "metadata": {"exit_code": 1, "duration_seconds":  1}}`,
	`{"output": "x", "metadata": {"exit_code": 1, "duration_seconds": 1}]`,
	`{"output": "x", "metadata": {"exit_code": 1, "duration_seconds": 1}`,
	`{"output": "x", "metadata": {"exit_cod`, `{"output": "x", "metadata": {"exit_code": 1, "duration_seco`,
}

// TestCodexShellOutput: shellOutput reads a text as outputWalk does, and
// passes over none of the shape.
func TestCodexShellOutput(t *testing.T) {
	for i, s := range codexShellCases {
		done := checkCodexShell(t, s)
		if want := i < 8; done != want {
			t.Errorf("%s: read %v, want %v", s, done, want)
		}
	}
}

func FuzzCodexShellOutput(f *testing.F) {
	for _, s := range codexShellCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkCodexShell(t, s) })
}

// checkCodexShell compares shellOutput, when it reads text s, with
// outputWalk.
func checkCodexShell(t *testing.T, s string) (done bool) {
	c := &codexReader{}
	text, code, hasCode, ok, done := c.shellOutput([]byte(s))
	if !done {
		return false
	}
	wText, wCode, wHas, wOK := c.outputWalk([]byte(s))
	if text != wText || code != wCode || hasCode != wHas || ok != wOK {
		t.Errorf("%s: read (%q, %d, %v, %v), walked (%q, %d, %v, %v)", s, text, code, hasCode, ok, wText, wCode, wHas, wOK)
	}
	return true
}
