package cmd

import (
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/report/reporttest"
)

// rawJSON writes s as a JSON string as a hostile agent might: control
// characters escaped (JSON requires it), every other byte as it is, an
// invalid UTF-8 byte included.
func rawJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// hostile paths and names: a directory whose name forges a workflow
// command and clears the screen, one with bidi and zero-width characters
// and a byte that is not UTF-8; rooms and an action with terminal
// sequences and Markdown.
const (
	roomA  = "West\x1b]8;;http://x/\x1b\\link\x1b]8;;\x1b\\ ![img](http://x) `x`"
	roomB  = "Behind\n::error file=src/app.go,line=1::forged\x1b[2J"
	action = "north\x1b]52;c;ZXZpbA==\x07\u202e"
)

var hostileDirs = []string{
	"d\n::error file=src/app.go,line=1::forged\x1b[2J",
	"d\x1b]52;c;ZXZpbA==\x07",
	"d\u202eevil\u200b",
	"d\xffbad",
}

// hostileCorpus writes an episode per payload, its id the payload, under
// dir/eps (some in directories with hostile names), an unreadable log
// under a hostile name, labels whose ids and notes are the payloads, and
// a configuration with a hostile unknown key. It returns the ids.
func hostileCorpus(t *testing.T, dir string) []string {
	t.Helper()
	var ids []string
	labels := map[string]string{}
	for i, p := range reporttest.Payloads {
		id := p
		ids = append(ids, id)
		log := checkLog("ID_PLACEHOLDER", 60, map[int]int{3: 5})
		log = strings.ReplaceAll(log, `"ID_PLACEHOLDER"`, rawJSON(id))
		log = strings.ReplaceAll(log, `"West of House"`, rawJSON(roomA))
		log = strings.ReplaceAll(log, `"North of House"`, rawJSON(roomB))
		log = strings.ReplaceAll(log, `"north"`, rawJSON(action))
		name := fmt.Sprintf("ep%02d", i)
		if i < len(hostileDirs) {
			name = hostileDirs[i]
		}
		writeFile(t, filepath.Join(dir, "eps", name, "episode_log.jsonl"), log)
		labels[rawJSON(id)] = `{"stuck": [{"from": 5, "to": 40, "note": ` + rawJSON(p) + `}]}`
	}
	writeFile(t, filepath.Join(dir, "eps", "bad\n::error file=x::forged\x1b[2J", "episode_log.jsonl"), "garbage\x1b[2J\n")
	var lb strings.Builder
	lb.WriteString(`{"schema_version": 1, "episodes": {`)
	first := true
	for k, v := range labels {
		if !first {
			lb.WriteString(",\n")
		}
		first = false
		lb.WriteString(k + ": " + v)
	}
	lb.WriteString(`, "not an episode \u001b[2J\n::error file=l::forged": {"stuck": []}}}`)
	writeFile(t, filepath.Join(dir, "labels.json"), lb.String())
	// A steps log (another agent) looping on a hostile action and output.
	var st strings.Builder
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&st, `{"step": %d, "action": %s, "output": %s, "error": true, "kind": "action", "score": 0, "location": %s}`+"\n",
			i, rawJSON(action), rawJSON("out\x1b[2J\n::error file=o::forged ##[error]x \u202e"), rawJSON(roomB))
	}
	writeFile(t, filepath.Join(dir, "steps", "s\n::error file=s::forged\x1b[2J.jsonl"), st.String())
	writeFile(t, filepath.Join(dir, "hostile.toml"), "[loop_break]\n\"\\u001b[2J\\n::error file=k::forged\\u202e\" = 1\n")
	return ids
}

// TestHostileContent runs every writer over logs, paths, labels and a
// configuration that carry the hostile payloads (issue 23): text reports
// and stderr show every control, bidi and zero-width character visibly and
// never start a line with "::"; CSV cells never start a formula; Markdown
// holds every value in a code span; GitHub commands are only ours; JSON,
// JUnit and HTML read back well-formed.
func TestHostileContent(t *testing.T) {
	dir := t.TempDir()
	ids := hostileCorpus(t, dir)
	if code, out, errOut := run(t, dir, "", "check", "--update", "eps"); code != 0 {
		t.Fatalf("check --update: exit %d\n%s\n%s", code, out, errOut)
	}

	termSafe := func(what, out string) {
		t.Helper()
		if err := reporttest.TermSafe(out, false); err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}
	type cmdCase struct {
		name string
		args []string
		// check is what the output must hold beyond stderr's safety.
		check func(t *testing.T, out string)
	}
	text := func(t *testing.T, out string) { t.Helper(); termSafe("stdout", out) }
	cases := []cmdCase{
		{"analyze text", []string{"analyze", "--labels", "labels.json", "eps"}, text},
		{"analyze verbose", []string{"analyze", "-v", "--color", "always", "eps"}, func(t *testing.T, out string) {
			// Colour on: only colour sequences may carry ESC.
			termSafe("stdout", regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(out, ""))
		}},
		{"analyze steps", []string{"analyze", "-v", "--input-format", "steps", "steps"}, func(t *testing.T, out string) {
			termSafe("stdout", out)
			for _, want := range []string{`s\n::error file=s::forged\x1b[2J.jsonl`, `#\x23[error]x`} {
				if !strings.Contains(out, want) {
					t.Errorf("%q is not shown escaped:\n%s", want, out)
				}
			}
		}},
		{"analyze config key", []string{"analyze", "--config", "hostile.toml", "eps"}, nil},
		{"sweep text", []string{"sweep", "-q", "--max-stuck", "40:70:30", "--by-episode", "eps"}, text},
		{"sweep csv", []string{"sweep", "-q", "--max-stuck", "40:70:30", "--by-episode", "--format", "csv", "eps"}, func(t *testing.T, out string) {
			termSafe("csv", out)
			recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) < 2*len(ids) {
				t.Errorf("%d CSV records for %d flipping episodes", len(recs), len(ids))
			}
			for _, r := range recs[1:] {
				for _, cell := range r[:2] { // episode_id, source
					if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
						t.Errorf("CSV cell %q starts a formula", cell)
					}
				}
			}
		}},
		{"check text", []string{"check", "--set", "max_turns_stuck=70", "eps"}, text},
		{"check markdown", []string{"check", "--set", "max_turns_stuck=70", "--format", "markdown", "--fail-on", "camping/detection", "eps"}, func(t *testing.T, out string) {
			termSafe("markdown", out)
			for _, l := range strings.Split(out, "\n") {
				rest := reporttest.StripCodeSpans(l)
				for _, bad := range []string{"![", "](", "<script", "@mention", "@SUM", "`"} {
					if strings.Contains(rest, bad) {
						t.Errorf("Markdown %q outside a code span: %q", bad, l)
					}
				}
			}
		}},
		{"check github", []string{"check", "--set", "max_turns_stuck=70", "--format", "github", "eps"}, func(t *testing.T, out string) {
			ours := regexp.MustCompile(`^::(notice|warning|error) (file=[^,:]*,)?title=loopbreak [a-z ]+::`)
			for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				if !ours.MatchString(l) {
					t.Errorf("a line not of loopbreak's workflow commands: %q", l)
				}
			}
		}},
		{"check junit", []string{"check", "--set", "max_turns_stuck=70", "--format", "junit", "eps"}, func(t *testing.T, out string) {
			d := xml.NewDecoder(strings.NewReader(out))
			for {
				if _, err := d.Token(); err != nil {
					if err.Error() != "EOF" {
						t.Errorf("JUnit XML: %v", err)
					}
					break
				}
			}
		}},
		{"check json", []string{"check", "--set", "max_turns_stuck=70", "--format", "json", "eps"}, func(t *testing.T, out string) {
			var doc struct {
				Episodes []struct {
					EpisodeID string `json:"episode_id"`
				}
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, e := range doc.Episodes {
				got[e.EpisodeID] = true
			}
			// JSON keeps values as they are (escaped by the encoder;
			// the reader trims an id's blanks and reads a byte that is
			// not UTF-8 as U+FFFD).
			for _, id := range ids {
				if !got[strings.TrimSpace(strings.ToValidUTF8(id, "\uFFFD"))] {
					t.Errorf("id %q not read back from JSON", id)
				}
			}
		}},
		{"report html", []string{"report", "-o", "-", "eps"}, func(t *testing.T, out string) {
			// html/template escapes markup; control characters are not
			// markup (a browser shows none of them): the page keeps them.
			if strings.Contains(out, "<script>alert") || !strings.Contains(out, "&lt;script&gt;alert(1)&lt;/script&gt;") {
				t.Error("a payload reached the HTML unescaped")
			}
			if strings.Count(out, "<script>") != 1 {
				t.Errorf("%d script elements, want the page's own", strings.Count(out, "<script>"))
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, out, errOut := run(t, dir, "", c.args...)
			termSafe("stderr", errOut)
			if c.check == nil { // an error: stderr only
				termSafe("stdout", out)
				if !strings.Contains(errOut, `\x1b[2J\n::error file=k::forged\u202e`) {
					t.Errorf("the hostile key is not shown escaped:\n%s", errOut)
				}
				return
			}
			if out == "" {
				t.Fatalf("no output; stderr:\n%s", errOut)
			}
			c.check(t, out)
			if slices.Contains(c.args, "eps") && !strings.Contains(errOut, "loopbreak: ") {
				t.Errorf("stderr names no problem (the unreadable log):\n%s", errOut)
			}
		})
	}
}

// TestHostileStderrOneLinePerMessage: a message whose value holds a
// newline is still one line, and a multi-line error (check's kept
// entries) still prints line by line.
func TestHostileStderrOneLinePerMessage(t *testing.T) {
	dir := t.TempDir()
	hostileCorpus(t, dir)
	_, _, errOut := run(t, dir, "", "check", "--update", "eps")
	lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	for _, l := range lines {
		if !strings.HasPrefix(l, "loopbreak") && !strings.HasPrefix(l, "  ") {
			t.Errorf("a stderr line that is not a message's: %q", l)
		}
	}
	if !strings.Contains(errOut, `bad\n::error file=x::forged\x1b[2J`) {
		t.Errorf("the hostile path is not shown escaped:\n%s", errOut)
	}
	if err := os.Remove(filepath.Join(dir, "loopbreak.baseline.json")); err != nil {
		t.Fatal(err)
	}
}
