package cmd

import (
	"os"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/rules"
)

// referencePath is the committed rules reference, relative to this package.
const referencePath = "../docs/rules.md"

// TestRulesReference fails when docs/rules.md is not what
// `loopbreak rules --format markdown` generates from the registry;
// go test ./cmd -update rewrites it.
func TestRulesReference(t *testing.T) {
	code, got, errOut := run(t, "", "", "rules", "--format", "markdown")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if *update {
		if err := os.MkdirAll("../docs", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(referencePath, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatalf("%v (go test ./cmd -update writes it)", err)
	}
	if string(want) != got {
		os.WriteFile(referencePath+".got", []byte(got), 0o644)
		t.Fatalf("docs/rules.md is stale: the registry changed (see %s.got; go test ./cmd -update rewrites it)", referencePath)
	}
	// Every rule cites its own section, and the section is there.
	for _, r := range rules.Registry {
		if want := "docs/rules.md#" + r.Name; r.Section != want {
			t.Errorf("%s: Section = %q, want %q", r.Name, r.Section, want)
		}
		if !strings.Contains(got, "\n## "+r.Name+"\n") {
			t.Errorf("docs/rules.md has no section for %s", r.Name)
		}
	}
}

// TestRulesMarkdownSubset: named rules get their sections only, in the
// order asked, with the same index.
func TestRulesMarkdownSubset(t *testing.T) {
	code, out, errOut := run(t, "", "", "rules", "--format", "markdown", "camping", "oscillation")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var sections []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "## ") {
			sections = append(sections, line)
		}
	}
	if want := []string{"## Turns", "## camping", "## oscillation"}; strings.Join(sections, ",") != strings.Join(want, ",") {
		t.Errorf("sections %q, want %q", sections, want)
	}
}
