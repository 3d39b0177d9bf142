package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/check"
)

// TestCheckOutOfScope: entries out of scope are one line of the text
// report and a count in JSON, absent when there are none.
func TestCheckOutOfScope(t *testing.T) {
	c := &check.Result{Mode: check.ModeCompare, Baseline: "b.json", Totals: &analyze.Totals{}, Episodes: []check.Episode{{}, {}}, OutOfScope: 999990}
	var text, js bytes.Buffer
	if err := WriteCheckText(&text, c, false, "config: defaults", 0); err != nil {
		t.Fatal(err)
	}
	if err := WriteCheckJSON(&js, c); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(text.String(), "\n")
	if want := "999990 baseline entries out of scope (logs outside the paths given): not compared"; len(lines) < 3 || lines[0] != "PASS: 2 episodes match b.json" || lines[2] != want {
		t.Errorf("text:\n%s\nwant line 3 %q", text.String(), want)
	}
	if !strings.Contains(js.String(), "\n  \"out_of_scope\": 999990,\n") {
		t.Errorf("json:\n%s", js.String())
	}
	c.Mode, c.OutOfScope = check.ModeUpdate, 1
	if got := OutOfScopeLine(c); got != "1 baseline entry out of scope (logs outside the paths given): kept unchanged" {
		t.Errorf("update line %q", got)
	}
	c.OutOfScope = 0
	text.Reset()
	js.Reset()
	if err := WriteCheckText(&text, c, false, "", 0); err != nil {
		t.Fatal(err)
	}
	if err := WriteCheckJSON(&js, c); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "out of scope") || strings.Contains(js.String(), "out_of_scope") {
		t.Errorf("none out of scope, yet said:\n%s\n%s", text.String(), js.String())
	}
}
