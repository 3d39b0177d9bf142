package main

// The README is the first thing a newcomer reads: it stays short, opens
// with the two commands to run on a fresh machine, and its links and the
// links of docs/ lead somewhere.

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const readmeMaxLines = 500

// readmeFirstCommands are the README's first two code blocks, in order:
// the analysis of a bundled episode and the whole test suite (the command
// .ci/run runs).
var readmeFirstCommands = []string{
	"go run . analyze testdata/episodes/2025-11-04T09-35-24/episode_log.jsonl",
	"go test ./...",
}

func TestReadmeShape(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if n := strings.Count(text, "\n"); n >= readmeMaxLines {
		t.Errorf("README.md has %d lines, want fewer than %d: move detail to docs/", n, readmeMaxLines)
	}
	blocks := codeBlocks(text)
	if len(blocks) < len(readmeFirstCommands) {
		t.Fatalf("README.md has %d code blocks, want the %d first commands first", len(blocks), len(readmeFirstCommands))
	}
	for i, want := range readmeFirstCommands {
		if got := strings.TrimSpace(blocks[i]); got != want {
			t.Errorf("README.md code block %d is %q, want %q", i+1, got, want)
		}
	}
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ci), "\n"+readmeFirstCommands[1]) {
		t.Errorf(".ci/run does not run %q, the README's test command", readmeFirstCommands[1])
	}
}

// codeBlocks returns the bodies of the fenced code blocks of a Markdown
// text, in order.
func codeBlocks(text string) []string {
	var blocks []string
	var cur *strings.Builder
	for line := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(line, "```") {
			if cur == nil {
				cur = &strings.Builder{}
			} else {
				blocks = append(blocks, cur.String())
				cur = nil
			}
			continue
		}
		if cur != nil {
			cur.WriteString(line + "\n")
		}
	}
	return blocks
}

var (
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	inlineCode = regexp.MustCompile("`[^`]*`")
	heading    = regexp.MustCompile(`^#{1,6}\s+(.*)$`)
	notSlug    = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
)

// TestDocLinks checks every relative link of README.md and docs/*.md: the
// file exists and, for an anchor into a Markdown file, a heading of that
// file has the anchor GitHub gives it.
func TestDocLinks(t *testing.T) {
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range append([]string{"README.md"}, docs...) {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, target := range markdownLinks(string(b)) {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := doc
			if file != "" {
				path = filepath.Join(filepath.Dir(doc), filepath.FromSlash(file))
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s: link %s: %v", doc, target, err)
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(path, ".md") {
				continue
			}
			anchors, err := markdownAnchors(path)
			if err != nil {
				t.Fatal(err)
			}
			if !anchors[anchor] {
				t.Errorf("%s: link %s: no heading with anchor #%s in %s", doc, target, anchor, path)
			}
		}
	}
}

// markdownLinks returns the targets of a Markdown text's links, outside
// code blocks and code spans.
func markdownLinks(text string) []string {
	var out []string
	inBlock := false
	for line := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(line, "```") {
			inBlock = !inBlock
			continue
		}
		if inBlock {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(inlineCode.ReplaceAllString(line, ""), -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// markdownAnchors returns the anchors GitHub gives a Markdown file's
// headings: lower case, punctuation but '-' and '_' dropped, spaces as
// '-', a repeated anchor suffixed -1, -2, ….
func markdownAnchors(path string) (map[string]bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	anchors := map[string]bool{}
	inBlock := false
	for line := range strings.SplitSeq(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			inBlock = !inBlock
			continue
		}
		m := heading.FindStringSubmatch(line)
		if inBlock || m == nil {
			continue
		}
		slug := strings.ReplaceAll(notSlug.ReplaceAllString(strings.ToLower(strings.TrimSpace(m[1])), ""), " ", "-")
		a := slug
		for i := 1; anchors[a]; i++ {
			a = slug + "-" + strconv.Itoa(i)
		}
		anchors[a] = true
	}
	return anchors, nil
}
