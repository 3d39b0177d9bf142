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
