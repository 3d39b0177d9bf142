package replay

// The differential test of the Gemini CLI replay: the real, compiled
// LoopDetectionService of @google/gemini-cli-core 0.61.0, run by node
// through rules/testdata/gemini-cli/driver.mjs, and loopbreak's (tool
// call keys by GeminiToolKey, text as WTF-8, detect.Gemini) fed the same
// generated sessions must fire alike, firing for firing. Among them
// (genSession's shapes 7 and 8, and names of one key in shape 6), repeats
// that differ only where live's SHA-256 keys, taken of the UTF-8, cannot
// tell them apart: a lone surrogate and U+FFFD, two lone surrogates, half
// a pair a chunk's edge cuts. With the chunks or the tool calls keyed by
// their code units instead, 12 and 18 of the 400 sessions (30 with both)
// disagree with either version; without the rolling hash's edge
// corrections (chunkScan.hashAt), 16.

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/rules/detect"
)

// geminiCLIVersion is the Gemini CLI the differential tests pin.
const geminiCLIVersion = "0.61.0"

// geminiCLIDir returns the directory .ci/npm-test-deps installs the pinned
// Gemini CLI packages into ($LOOPBREAK_GEMINI_CLI, else the user cache
// dir's loopbreak/gemini-cli-VERSION). Without node or the packages the
// test is skipped, unless CI is set: CI installs them, so there it fails.
func geminiCLIDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("LOOPBREAK_GEMINI_CLI")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err == nil {
			dir = filepath.Join(cache, "loopbreak", "gemini-cli-"+geminiCLIVersion)
		}
	}
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not installed"
	} else {
		for _, pkg := range []struct{ path, version string }{
			{"@google/gemini-cli-core", geminiCLIVersion}, {"@google/gemini-cli", geminiCLIVersion}, {"gemini-cli-core-0.52", "0.52.0"},
		} {
			b, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(pkg.path), "package.json"))
			if err != nil || !bytes.Contains(b, []byte(`"version": "`+pkg.version+`"`)) {
				missing = fmt.Sprintf("%s@%s is not installed in %s (run .ci/npm-test-deps)", pkg.path, pkg.version, dir)
			}
		}
	}
	if missing != "" {
		if os.Getenv("CI") == "" {
			t.Skip(missing)
		}
		t.Fatal(missing + "; CI must run this test")
	}
	return dir
}

// diffEvent is one event of a generated session, in the driver's terms.
type diffEvent struct {
	prompt string // a user prompt's id
	text   string // a Content event, WTF-8
	isCall bool
	name   string
	args   string // the arguments' JSON text as the model sent it; "" none
}

func (e diffEvent) appendJSON(dst []byte) []byte {
	switch {
	case e.prompt != "":
		dst = append(dst, `{"p":`...)
		dst = appendJSString(dst, e.prompt)
	case e.isCall:
		dst = append(dst, `{"t":`...)
		dst = appendJSString(dst, e.name)
		if e.args != "" {
			dst = append(dst, `,"a":`...)
			dst = appendJSString(dst, e.args)
		}
	default:
		dst = append(dst, `{"c":`...)
		dst = appendJSString(dst, e.text)
	}
	return append(dst, '}')
}

// diffSteps turns a session into loopbreak's steps, as the reader does:
// a prompt with a new id marks the next step NewPrompt.
func diffSteps(t *testing.T, events []diffEvent) (steps []detect.Step, at []int) {
	last, reset := "session", false
	for i, e := range events {
		if e.prompt != "" {
			if e.prompt != last {
				reset, last = true, e.prompt
			}
			continue
		}
		s := detect.Step{N: len(steps) + 1, Kind: detect.KindMessage, Output: e.text, NewPrompt: reset}
		reset = false
		if e.isCall {
			key, err := GeminiToolKey(e.name, []byte(e.args))
			if err != nil {
				t.Fatalf("args %q: %v", e.args, err)
			}
			s.Kind, s.Action, s.Output = detect.KindAction, key, ""
		}
		steps = append(steps, s)
		at = append(at, i)
	}
	return steps, at
}

// Pieces of generated sessions.
var (
	// diffArgs are argument texts: the same call in several spellings
	// (key order, number forms, escapes) and distinct ones.
	diffArgs = []string{
		`{"file_path":"a.txt"}`, `{ "file_path" : "a.txt" }`, `{"file_path":"a\u002etxt"}`,
		`{"file_path":"a.txt","limit":10}`, `{"limit":10,"file_path":"a.txt"}`, `{"limit":1e1,"file_path":"a.txt"}`,
		`{"limit":10.0,"file_path":"a.txt"}`, `{"limit":100E-1,"file_path":"a.txt"}`,
		`{"n":1e21}`, `{"n":1e20}`, `{"n":123456789012345678901234567890}`, `{"n":0.000001}`, `{"n":1e-7}`,
		`{"n":-0}`, `{"n":0}`, `{"n":5e-324}`, `{"n":1e400}`, `{"n":0.1}`, `{"n":-1.5e-10}`, `{"n":2.5e+300}`,
		`{"s":"\ud800"}`, `{"s":"\udfff x"}`, `{"s":"\ud83d\ude00"}`, `{"s":"😀"}`, `{"s":"\ud83d"}`,
		`{"s":"tab\there\u0001\u001f\"\\\/"}`, `{"s":"\u2028\u2029<>&"}`, `{"s":"é"}`, `{"s":"\u00e9"}`,
		`{"a":1,"a":2}`, `{"a":2}`, `{"b":1,"2":"x","1":"y","a":0}`, `{"1":"y","2":"x","b":1,"a":0}`,
		`{"01":1,"1":2}`, `{"4294967295":1,"4294967294":2}`,
		`{"q":[1,{"z":null,"y":true},[]],"r":{}}`, `{"r":{},"q":[1,{"y":true,"z":null},[]]}`,
		`null`, `{}`, `false`, `0`, `""`, `[]`, `[1,2]`, `"str"`, `3`, `true`,
		`{"command":"ls -la","dir":"."}`, `{"dir":".","command":"ls -la"}`,
	}
	// diffSpellings are groups of spellings of one call's arguments: some
	// the same to JSON.stringify (number forms, escapes, a repeated key,
	// integer keys' order), some not (the order of other keys).
	diffSpellings = [][]string{
		{`{"file_path":"a.txt","limit":10}`, `{"limit":10,"file_path":"a.txt"}`},
		{`{"limit":10}`, `{"limit":1e1}`, `{"limit":10.0}`, `{"limit":100E-1}`},
		{`{"p":"a.txt"}`, `{"p":"a\u002etxt"}`, `{"p":"a\u002Etxt"}`},
		{`{"s":"😀"}`, `{"s":"\ud83d\ude00"}`, `{"s":"\uD83D\uDE00"}`},
		{`{"s":"\ud800"}`, `{"s":"\uD800"}`, `{"s":"\udc00"}`},
		{`{"a":1,"a":2}`, `{"a":2}`, `{"a":3,"a":2}`},
		{`{"b":1,"2":"x","1":"y"}`, `{"1":"y","2":"x","b":1}`, `{"2":"x","b":1,"1":"y"}`},
		{`{"x":{"b":1,"a":2}}`, `{"x":{"a":2,"b":1}}`},
		{`{"n":0}`, `{"n":-0}`, `{"n":0.0}`, `{"n":0e5}`},
		{`{"n":1e21}`, `{"n":1000000000000000000000}`, `{"n":1e+21}`},
	}
	diffNames = []string{"read_file", "run_shell_command", " read_file ", "\u00a0read_file", "", "  ", "glob", "read_file\ufeff"}
	// diffTexts are messages: sentences, markdown elements, dividers,
	// fences, white space, astral characters and lone surrogates.
	diffTexts = []string{
		"Let me look at the config file once more. ", "I will check the logs again. ", "Checking. ",
		"OK", "200", "ok", "---", "═══", "***", "- item", "* item", "+ item", "1. item", "## Plan", "#plan", "> quote",
		"| a | b |", "x\n+--+", "```", "```go\nfmt.Println()\n```", "run `x`", "  ", "\n", " \t ", "\u00a0",
		"😀😀😀😀😀", "𝒳 is the variable, 𝒳 again. ", "\xed\xa0\x80 lone high ", "end \xed\xb0\x80",
		"Now checking the deployment status of the service named alpha. ",
		"A fairly long sentence that keeps going on for a while, well past fifty code units in length. ",
	}
)

// Pieces of sessions whose repeats differ only in what live's keys
// (SHA-256 of the UTF-8) do not tell apart: a lone surrogate and U+FFFD,
// one lone surrogate and another, half of a pair a chunk's edge cuts.
var (
	// diffMarked are sentences, each | a place for a diffMarks piece;
	// most are shorter than a chunk, so that every chunk holds a mark.
	diffMarked = []string{
		"Let me look at the config file once mor|", "Checking the |status again| ", "a|b|c|d|e|f|g|h|",
		"Now checking the deployment status of the service named alpha|", "|||| wait ||",
	}
	// diffMarks: U+FFFD, lone high and low surrogates (WTF-8), the
	// halves of 😀 (D83D DE00, a pair when they meet), 😀 and a letter.
	diffMarks = []string{"\ufffd", "\xed\xa0\x80", "\xed\xaf\xbf", "\xed\xb0\x80", "\xed\xbf\xbf",
		"\xed\xa0\xbd", "\xed\xb8\x80", "😀", "x"}
	// diffMarkedNames are tool names of one key: a lone surrogate is
	// U+FFFD.
	diffMarkedNames = []string{"read_file\ufffd", "read_file\xed\xa0\x80", "read_file\xed\xb0\x80", "read_file\xed\xaf\xbf"}
)

// genSession makes one session from r, in one of several shapes.
func genSession(r *rand.Rand) []diffEvent {
	var evs []diffEvent
	prompt := func() {
		id := fmt.Sprintf("p%d", r.IntN(4))
		evs = append(evs, diffEvent{prompt: id})
	}
	call := func(name, args string) { evs = append(evs, diffEvent{isCall: true, name: name, args: args}) }
	text := func(s string) { evs = append(evs, diffEvent{text: s}) }
	randCall := func() { call(diffNames[r.IntN(len(diffNames))], diffArgs[r.IntN(len(diffArgs))]) }
	randText := func() { text(diffTexts[r.IntN(len(diffTexts))]) }
	// chunked splits a message at random code-point boundaries into
	// several Content events, as a stream does.
	chunked := func(s string) {
		for s != "" {
			n := 1 + r.IntN(len(s))
			for n < len(s) && (s[n]&0xC0) == 0x80 {
				n++
			}
			text(s[:n])
			s = s[n:]
		}
	}
	prompt()
	switch shape := r.IntN(9); shape {
	case 7, 8: // chanting whose repeats differ in marks alone
		parts := strings.Split(diffMarked[r.IntN(len(diffMarked))], "|")
		// Most messages hold one mark; the first (which makes the chunks'
		// keys live compares with) often another, and some others too.
		fav, first := diffMarks[r.IntN(len(diffMarks))], diffMarks[r.IntN(len(diffMarks))]
		if r.IntN(3) == 0 {
			first = fav
		}
		odd := r.IntN(2) // how often, in 16, a mark is any
		var b strings.Builder
		for i := range 10 + r.IntN(25) {
			b.Reset()
			for j, p := range parts {
				if j > 0 {
					m := fav
					if i == 0 {
						m = first
					}
					if r.IntN(16) < odd {
						m = diffMarks[r.IntN(len(diffMarks))]
					}
					b.WriteString(m)
				}
				b.WriteString(p)
			}
			// Rare interruptions: a reset (a divider, a new prompt) makes
			// the next message the first again.
			switch r.IntN(40) {
			case 0, 1, 2, 3:
				chunked(b.String())
			case 4:
				randText()
			default:
				text(b.String())
			}
			if r.IntN(60) == 0 {
				prompt()
			}
		}
	case 6: // one call in several spellings
		group := diffSpellings[r.IntN(len(diffSpellings))]
		names := r.IntN(2) == 0 // and names of one key
		for range 4 + r.IntN(8) {
			name := "read_file"
			if names {
				name = diffMarkedNames[r.IntN(len(diffMarkedNames))]
			}
			call(name, group[r.IntN(len(group))])
		}
	case 0: // a tool cycle, perhaps broken, with spellings of one call
		k := 1 + r.IntN(6)
		cycle := make([][2]string, k)
		for i := range cycle {
			cycle[i] = [2]string{diffNames[r.IntN(3)], diffArgs[r.IntN(len(diffArgs))]}
		}
		for range 3 + r.IntN(10) {
			for _, c := range cycle {
				if r.IntN(12) == 0 {
					randCall()
				}
				if r.IntN(5) == 0 {
					randText()
				}
				call(c[0], c[1])
			}
			if r.IntN(10) == 0 {
				prompt()
			}
		}
	case 1: // chanting, whole or chunked, with interruptions
		s := diffTexts[r.IntN(len(diffTexts))]
		for range 5 + r.IntN(25) {
			switch r.IntN(10) {
			case 0:
				randText()
			case 1:
				chunked(s)
			case 2:
				if r.IntN(3) == 0 {
					randCall()
				}
			}
			text(s)
			if r.IntN(25) == 0 {
				prompt()
			}
		}
	case 2: // one long message repeating a sentence
		text(strings.Repeat(diffTexts[r.IntN(len(diffTexts))], 5+r.IntN(30)))
	case 3: // several prompts, each with a short loop
		for range 2 + r.IntN(4) {
			a := diffArgs[r.IntN(len(diffArgs))]
			for range 2 + r.IntN(6) {
				call("read_file", a)
			}
			for range r.IntN(14) {
				text("Let me look at the config file once more. ")
			}
			prompt()
		}
	case 4: // a long history past content_max_history
		for range 30 + r.IntN(80) {
			if r.IntN(3) == 0 {
				text(fmt.Sprintf("Step %d of the plan, with some words to lengthen it. ", r.IntN(1000)))
			} else {
				randText()
			}
		}
	default: // anything
		for range 10 + r.IntN(60) {
			switch r.IntN(4) {
			case 0:
				randCall()
			case 1:
				prompt()
			default:
				randText()
			}
		}
	}
	return evs
}

// TestGeminiDifferential compares the default (0.55–0.61) with the real
// 0.61.0, and gemini-cli@0.52 (tool_cycle_max_length = 1) with the real
// 0.52.0, whose checkToolCallLoop counts consecutive identical calls.
func TestGeminiDifferential(t *testing.T) {
	dir := geminiCLIDir(t)
	v52 := detect.DefaultGeminiConfig()
	v52.ToolCycleMaxLength = 1
	for _, v := range []struct {
		name, pkg string
		cfg       detect.GeminiConfig
	}{
		{geminiCLIVersion, "@google/gemini-cli-core", detect.DefaultGeminiConfig()},
		{"0.52.0", "gemini-cli-core-0.52", v52},
	} {
		t.Run(v.name, func(t *testing.T) {
			geminiDifferential(t, filepath.Join(dir, "node_modules", filepath.FromSlash(v.pkg)), v.name, v.cfg)
		})
	}
}

func geminiDifferential(t *testing.T, core, version string, cfg detect.GeminiConfig) {
	_, file, _, _ := runtime.Caller(0)
	driver := filepath.Join(filepath.Dir(file), "..", "rules", "testdata", "gemini-cli", "driver.mjs")
	r := rand.New(rand.NewPCG(20, 61))
	const n = 400
	sessions := make([][]diffEvent, n)
	var in []byte
	for i := range sessions {
		sessions[i] = genSession(r)
		in = append(in, '[')
		for j, e := range sessions[i] {
			if j > 0 {
				in = append(in, ',')
			}
			in = e.appendJSON(in)
		}
		in = append(in, "]\n"...)
	}
	input := filepath.Join(t.TempDir(), "sessions.jsonl")
	if err := os.WriteFile(input, in, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", driver, core, input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("driver: %v\n%s", err, stderr.Bytes())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != n {
		t.Fatalf("driver printed %d lines for %d sessions", len(lines), n)
	}
	fired, disagree := 0, 0
	for i, events := range sessions {
		real, err := parseJS([]byte(lines[i]))
		if err != nil || real.kind != jsArray {
			t.Fatalf("session %d: driver line %q: %v", i, lines[i], err)
		}
		var want []string
		for _, f := range real.arr {
			rule := map[string]string{"consecutive_identical_tool_calls": detect.RuleToolCycle,
				"chanting_identical_sentences": detect.RuleContentChanting}[f.get("type").str]
			kind := detect.KindStop
			if f.get("count").num == 1 {
				kind = detect.KindFeedback
			}
			want = append(want, fmt.Sprintf("event %d:%s/%s", int(f.get("i").num), rule, kind))
		}
		steps, at := diffSteps(t, events)
		d, err := detect.NewGemini(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range steps {
			for _, f := range d.Step(s) {
				got = append(got, fmt.Sprintf("event %d:%s/%s", at[f.Step-1], f.Rule, f.Kind))
			}
		}
		fired += len(want)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			disagree++
			if disagree <= 5 {
				t.Errorf("session %d (%d events): loopbreak %v\nreal %v", i, len(events), got, want)
				var b []byte
				for _, e := range events {
					b = e.appendJSON(append(b, ' '))
				}
				t.Logf("session %d: %s", i, b)
			}
		}
	}
	if disagree > 0 {
		t.Errorf("%d of %d sessions disagree", disagree, n)
		return
	}
	// The generator must exercise the detector: most sessions fire.
	if fired < n/3 {
		t.Errorf("only %d firings in %d sessions: the sessions do not loop enough to compare", fired, n)
	}
	t.Logf("%d sessions, %d firings, all equal to @google/gemini-cli-core@%s's", n, fired, version)
}
