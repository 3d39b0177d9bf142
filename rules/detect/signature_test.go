package detect

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestOutputSignature(t *testing.T) {
	tests := []struct {
		name, output, want string
	}{
		// Seed 004's examples, as RULES.md §8 reads them.
		{"error example", "Error: TypeError - Cannot read property 'id' of null at auth.ts:45", "error:TypeError-auth.ts:45"},
		{"test example", "Running tests... 2 failed: auth.test.ts - login test timeout, logout test assertion",
			"test-fail:2-failed: auth.test.ts"},
		// The seed's prose gives "test-fail:3-auth,login", but these lines
		// have no colon for its name pattern: the count tells them apart.
		{"3 failing", "3 tests failing - auth, login, logout", "test-fail:3-"},
		{"2 failing", "2 tests failing - auth, login", "test-fail:2-"},
		{"1 failing", "1 test failing - auth", "test-fail:1-"},
		{"fix null check", "Fixed auth.ts - added null check", "file:auth.ts-null"},
		{"fix validation", "Fixed auth.ts - updated validation", "file:auth.ts-validation"},
		{"fix refactor", "Fixed auth.ts - refactored handler", "file:auth.ts-modified"},
		{"modified example", "Modified auth.ts line 45-52, added null check for user.profile", "file:auth.ts-null"},
		{"research example", "Searched GitHub for 'oauth2 refresh token', found 3 patterns...",
			"searched-github-for-'oauth2-refresh-token',-found-"},

		// Test names: the first two whole matches, comma-joined.
		{"test names", "FAIL: test_login\nFAIL: test_logout\nFAIL: test_x\n3 failed",
			"test-fail:3-FAIL: test_login,FAIL: test_logout"},
		{"count is leftmost number before fail", "10 passed, 2 failed", "test-fail:2-"},
		// Extraction order: error first.
		{"error before test", "Error: x at y; 3 tests failed", "error:x-y;"},
		{"case insensitive", "ERROR: Boom AT main.go:3", "error:Boom-main.go:3"},
		// RE2: `.` stops at \n, so the error pattern needs "at" on its line.
		{"error across lines", "Error: boom\n  at foo.js:1", "error:-boom-at-foo.js:1"},
		// The seed's pattern finds "at" inside a word.
		{"at inside word", "Error: TypeError in data.ts", "error:TypeError-a.ts"},
		// ASCII \w: the file must end in .ts/.js/.go/.py.
		{"file go", "updated   main.go", "file:main.go-modified"},
		{"file other ext", "updated README.md", "updated-readme.md"},

		// Fallback: code points, unicode.IsSpace runs.
		{"empty", "", ""},
		{"unicode space runs", "Ünïcödé\t\u00a0 Text\n", "ünïcödé-text-"},
		{"50 code points", strings.Repeat("é", 60), strings.Repeat("é", 50)},
		{"leading space", "  Hello  World", "-hello-world"},
		{"invalid utf8 counts one", "\xff" + strings.Repeat("a", 60), "\ufffd" + strings.Repeat("a", 49)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := OutputSignature(tt.output); got != tt.want {
				t.Errorf("OutputSignature(%q) = %q, want %q", tt.output, got, tt.want)
			}
		})
	}
}

func TestSignature(t *testing.T) {
	if got, want := Signature("  LS -la ", "Fixed auth.ts - added null check"), "ls -la|file:auth.ts-null"; got != want {
		t.Errorf("Signature = %q, want %q", got, want)
	}
	if got, want := Signature("", ""), "|"; got != want {
		t.Errorf("Signature = %q, want %q", got, want)
	}
}

func TestSignatureRepeat(t *testing.T) {
	tests := []struct {
		name      string
		threshold int
		outputs   []string
		want      []int // steps that fire
	}{
		{"seed window example", 3, []string{"a", "b", "a", "a", "a"}, []int{5}},
		{"fires again while it goes on", 3, []string{"a", "a", "a", "a", "b", "a"}, []int{3, 4}},
		{"below threshold", 3, []string{"a", "a", "b", "a", "a"}, nil},
		{"threshold 2", 2, []string{"a", "a", "b", "b", "a"}, []int{2, 4}},
		{"threshold above keep", 7, []string{"a", "a", "a", "a", "a", "a", "a", "a"}, []int{7, 8}},
		{"true loop", 3, []string{"Fixed auth.ts - added null check", "Fixed auth.ts - added null check", "Fixed auth.ts - added null check"}, []int{3}},
		{"different actions on a file", 3, []string{"Fixed auth.ts - added null check", "Fixed auth.ts - updated validation", "Fixed auth.ts - refactored handler"}, nil},
		{"failures going down", 3, []string{"3 tests failing - auth, login, logout", "2 tests failing - auth, login", "1 test failing - auth"}, nil},
		{"same signature, different text", 3, []string{"Error: E at x.go:1 (1st)", "Error: E at x.go:1 (2nd)", "error: E at x.go:1"}, []int{3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := NewSignatureRepeat(SignatureConfig{Threshold: tt.threshold})
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for i, out := range tt.outputs {
				for _, f := range d.Step(Step{N: i + 1, Action: "run", Output: out}) {
					if f.Rule != "signature_repeat" || f.Kind != KindLoop || f.Origin != OriginGeneric {
						t.Errorf("firing %+v", f)
					}
					if want := Signature("run", out); f.Signature != want {
						t.Errorf("signature %q, want %q", f.Signature, want)
					}
					got = append(got, f.Step)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("fired at %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSignatureRepeatActionCounts(t *testing.T) {
	d, _ := NewSignatureRepeat(DefaultSignatureConfig())
	steps := []Step{{N: 1, Action: "a", Output: "x"}, {N: 2, Action: "b", Output: "x"}, {N: 3, Action: " A ", Output: "x"}, {N: 4, Action: "a", Output: "x"}}
	var got []int
	for _, s := range steps {
		for _, f := range d.Step(s) {
			got = append(got, f.Step)
		}
	}
	if len(got) != 0 {
		t.Errorf("fired at %v, want none (the action differs at step 2)", got)
	}
}

func TestSignatureConfigValidate(t *testing.T) {
	if _, err := NewSignatureRepeat(SignatureConfig{Threshold: 1}); err == nil || !strings.Contains(err.Error(), "signature_threshold") {
		t.Errorf("threshold 1: err = %v, want one naming signature_threshold", err)
	}
}

// The regular expressions of seed 004's extractSignature, read with Go RE2
// semantics (RULES.md §8 Readings: ASCII \w \d \s, (?i), `.` stops at \n):
// the reference of signature_match.go's matchers.
var (
	sigErrorRe    = regexp.MustCompile(`(?i)Error:?\s*(\w+).*?at\s*(\S+)`)
	sigTestRe     = regexp.MustCompile(`(?i)(\d+)\s*(?:tests?\s*)?fail`)
	sigTestNameRe = regexp.MustCompile(`(?i)fail.*?:\s*\S+`)
	sigFileRe     = regexp.MustCompile(`(?i)(?:modified|changed|updated|fixed)\s+(\S+\.(?:ts|js|go|py))`)
	sigActionRe   = regexp.MustCompile(`(?i)(added|removed|fixed|updated|changed)\s+(\w+)`)
)

func FuzzOutputSignature(f *testing.F) {
	for _, s := range []string{
		"Error: TypeError - Cannot read property 'id' of null at auth.ts:45",
		"3 tests failing - auth, login, logout",
		"FAIL: a\nFAIL: b\n2 failed",
		"Fixed auth.ts - updated validation",
		"\xff\xfe abc", "",
		"ERRor x \u212a at y", "FaIL 3 \u017ftests", "CHANGED a.go fixed b", "modifie fixe faI erro",
		"A\t\n\v\f\r B\u0085C\u00a0D", strings.Repeat("Open the Door ", 20), "x\x1cy\x1fz",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sig := OutputSignature(s)
		if want := regexOnlySignature(s); sig != want {
			t.Errorf("OutputSignature(%q) = %q, the regular expressions alone give %q", s, sig, want)
		}
		if got, want := Signature(s, s), norm(s)+"|"+regexOnlySignature(s); got != want {
			t.Errorf("Signature(%q, %[1]q) = %q, want %q", s, got, want)
		}
		switch {
		case strings.HasPrefix(sig, "error:"), strings.HasPrefix(sig, "test-fail:"), strings.HasPrefix(sig, "file:"):
		default:
			if n := len([]rune(sig)); n > fallbackLen {
				t.Errorf("fallback %q has %d code points", sig, n)
			}
		}
	})
}

// regexOnlySignature is OutputSignature without the byte searches that
// rule outputs out before each regular expression.
func regexOnlySignature(output string) string {
	if m := sigErrorRe.FindStringSubmatch(output); m != nil {
		return "error:" + m[1] + "-" + m[2]
	}
	if m := sigTestRe.FindStringSubmatch(output); m != nil {
		names := sigTestNameRe.FindAllString(output, 2)
		return fmt.Sprintf("test-fail:%s-%s", m[1], strings.Join(names, ","))
	}
	if loc := sigFileRe.FindStringSubmatchIndex(output); loc != nil {
		action := "modified"
		if m := sigActionRe.FindStringSubmatch(output[loc[1]:]); m != nil {
			action = m[2]
		}
		return "file:" + output[loc[2]:loc[3]] + "-" + action
	}
	return fallbackSignature(output)
}

func TestSignatureWords(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want uint8
	}{
		{"an ERROR here", wordError}, {"Err0r", 0}, {"erro", 0}, {"", 0},
		{"xxerror", wordError}, {"error", wordError}, {"eRrOr!", wordError}, {"\xc5\xa1rror", 0},
		{"we Fixed it", wordFileVerb}, {"fixe modifie", 0}, {"FAILED", wordFail},
		{"fail: error, then CHANGED", allWords}, {"upDATED an eRRor", wordError | wordFileVerb},
		{"fai", 0}, {"modifiedchangedupdatedfixed", wordFileVerb},
	} {
		if got := signatureWords(tc.s); got != tc.want {
			t.Errorf("signatureWords(%q) = %03b, want %03b", tc.s, got, tc.want)
		}
	}
}

// checkSigMatchers compares each hand-written matcher with its regular
// expression on s.
func checkSigMatchers(t *testing.T, s string) {
	t.Helper()
	word, loc, ok := matchSigError(s, 0)
	if m := sigErrorRe.FindStringSubmatch(s); (m != nil) != ok || ok && (m[1] != word || m[2] != loc) {
		t.Errorf("matchSigError(%q) = %q, %q, %v; regexp %q", s, word, loc, ok, m)
	}
	count, ok := matchSigTest(s, 0)
	if m := sigTestRe.FindStringSubmatch(s); (m != nil) != ok || ok && m[1] != count {
		t.Errorf("matchSigTest(%q) = %q, %v; regexp %q", s, count, ok, m)
	}
	if got, want := string(appendSigTestNames(nil, s)), strings.Join(sigTestNameRe.FindAllString(s, 2), ","); got != want {
		t.Errorf("appendSigTestNames(%q) = %q; regexp %q", s, got, want)
	}
	file, end, ok := matchSigFile(s)
	if loc := sigFileRe.FindStringSubmatchIndex(s); (loc != nil) != ok || ok && (s[loc[2]:loc[3]] != file || loc[1] != end) {
		t.Errorf("matchSigFile(%q) = %q, %d, %v; regexp %v", s, file, end, ok, loc)
	}
	action, ok := matchSigAction(s)
	if m := sigActionRe.FindStringSubmatch(s); (m != nil) != ok || ok && m[2] != action {
		t.Errorf("matchSigAction(%q) = %q, %v; regexp %q", s, action, ok, m)
	}
}

// TestSignatureMatchersRandom strings together the patterns' pieces at
// random (their words in odd cases, long s and Kelvin sign, colons, dots,
// digits, white space and newlines) and checks every matcher against its
// regular expression.
func TestSignatureMatchersRandom(t *testing.T) {
	pieces := []string{"error", "ERRor", "Error:", "erro", "at", "AT", "aT", "fail", "FAIL", "fai", "test", "tests",
		"te\u017ft", "\u017f", "\u212a", "s", "S", "3", "12", "0", ":", ": ", ".", ".ts", ".js", ".go", ".py", ".t\u017f",
		".GO", "modified", "Changed", "UPDATED", "fixed", "added", "removed", "a.go", "x", "_", "-", " ", "  ", "\t",
		"\n", "\r", "\v", "\f", "\xff", "é", "\u00a0", "word", "data", "what", "ed", "d"}
	r := rand.New(rand.NewPCG(8, 24))
	n := 200000
	if testing.Short() {
		n = 20000
	}
	for range n {
		var b strings.Builder
		for range 1 + r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		checkSigMatchers(t, b.String())
		if t.Failed() {
			return
		}
	}
}

func FuzzSignatureMatchers(f *testing.F) {
	for _, s := range []string{"Error: TypeError in data.ts", "Error: boom\n  at foo.js:1", "3 te\u017ft\u017f fail",
		"FAIL: a\nFAIL: b", "fixed  x.y.go.ts and added  z", "error:: at x", "errorat at", "updated .go"} {
		f.Add(s)
	}
	f.Fuzz(checkSigMatchers)
}

// TestSignatureRepeatReuse: steps that repeat an earlier action and
// output (whose signature is copied, not made again) fire as a detector
// that makes every signature afresh would.
func TestSignatureRepeatReuse(t *testing.T) {
	// "a|b" and "x" make the signature of "a" and "b|x": actions that
	// differ do not tell signatures apart when one holds a '|'.
	actions := []string{"run_tests", "edit a.py", "", "RUN_TESTS", "a|b", "a", " A|B", "a|"}
	outputs := []string{"Error: TypeError at auth.ts:45", "3 tests failed", "", "ok\n", "Error: TypeError at auth.ts:46", "x", "b|x", "|x", "b|X"}
	checkSignatureRepeatRandom(t, rand.New(rand.NewPCG(7, 8)), actions, outputs)
}

// TestSignatureRepeatFallbackFirst: steps of one action whose outputs
// differ, told apart by their fallback signatures when one's signature is
// plain (sameOutput's fallbackDiffers), fire as a detector that makes every
// signature afresh would: outputs whose fallbacks differ but whose
// signatures are equal (a structured one and a fallback that reads as
// it: "ERROR:TYPEERROR-AUTH.TS:45"), fallbacks the same but for their
// ends, their case or their white space, outputs longer than fallbackLen
// that differ only past it, and outputs that are not ASCII.
func TestSignatureRepeatFallbackFirst(t *testing.T) {
	long := strings.Repeat("Running the suite of tests ", 3)
	actions := []string{"run_tests", "RUN_TESTS ", "edit"}
	outputs := []string{
		"Error: TypeError at auth.ts:45", "ERROR:TYPEERROR-AUTH.TS:45", "error:typeerror-auth.ts:45", "Error: TypeError - x at auth.ts:45",
		"Error: TypeError at auth.ts:46", "Error: RangeError at auth.ts:45", "Error: x at a-b", "ERROR:X-A-B", "error: x at a-b\nok",
		"3 tests failed", "test-fail:3-", "TEST-FAIL:3-", "Fixed auth.ts - updated validation", "file:auth.ts-validation",
		"file:auth.ts-validation ", "ok", "OK", "ok\n", "ok \t\n", " ok", "o k", "okay", "", "-", " ",
		long + "passed", long + "PASSED", long + "failed", long + "\t passed", long, long[:49], long[:50], long[:51],
		"ünïcödé ok", "ÜNÏCÖDÉ OK", "ok ünïcödé", "ok ünïcödé!", "ok\u00a0x", "ok x", "ok\u2028x", "\u212aelvin", "kelvin", "\xffok", "\ufffdok",
	}
	r := rand.New(rand.NewPCG(9, 10))
	checkSignatureRepeatRandom(t, r, actions, outputs)
	checkSignatureRepeatRandom(t, r, actions[:1], outputs)
}

// checkSignatureRepeatRandom steps detectors of thresholds 2-10 through
// random steps of the actions and outputs (a quarter of them equal
// copies, not the same bytes) and requires the firings of signatures
// made and compared the plain way.
func checkSignatureRepeatRandom(t *testing.T, r *rand.Rand, actions, outputs []string) {
	t.Helper()
	for it := range 100 {
		th := 2 + it%9
		d, err := NewSignatureRepeat(SignatureConfig{Threshold: th})
		if err != nil {
			t.Fatal(err)
		}
		var sigs []string
		for n := 1; n <= 300; n++ {
			s := Step{N: n, Action: actions[r.IntN(len(actions))], Output: outputs[r.IntN(len(outputs))]}
			if r.IntN(4) == 0 {
				s.Output = string([]byte(s.Output)) // equal, not the same bytes
			}
			sig := string(appendSignature(nil, s.Action, s.Output))
			sigs = append(sigs, sig)
			want := len(sigs) >= th
			for i := 2; want && i <= th; i++ {
				want = sigs[len(sigs)-i] == sig
			}
			fs := d.Step(s)
			if want != (len(fs) == 1) || want && fs[0].Signature != sig {
				t.Fatalf("threshold %d step %d (%q, %q): fired %+v, want %v %q", th, n, s.Action, s.Output, fs, want, sig)
			}
		}
	}
}

// BenchmarkOutputSignature makes the signature of an agent's output
// whose "error"s, in prose and code, match no error pattern: each is
// followed by a search of its line for "at".
func BenchmarkOutputSignature(b *testing.B) {
	out := "The session token is null; I will look at how it is created.\n" +
		strings.Repeat("    buffer error token event buffer index token append import\nerror self test parse line close error value\n", 8)
	b.SetBytes(int64(len(out)))
	for b.Loop() {
		_ = OutputSignature(out)
	}
}

// TestStepsWithoutAllocating: once warmed up, signature_repeat and
// fuzzy_repeat step a loop's steps, firing at each, and steps that do not
// fire, without allocating (issue 24): a firing's signature is the last
// firing's string when it is the same.
func TestStepsWithoutAllocating(t *testing.T) {
	sig, err := NewSignatureRepeat(DefaultSignatureConfig())
	if err != nil {
		t.Fatal(err)
	}
	fz, err := NewFuzzyRepeat(DefaultFuzzyConfig())
	if err != nil {
		t.Fatal(err)
	}
	outs := []string{
		"Error: TypeError - Cannot read property 'id' of null at auth.ts:45",
		"3 tests failed\nFAIL: test_login: expected 200, got 500\nFAIL: test_logout: 401",
		"Fixed auth.py - updated validation " + strings.Repeat("and more words here ", 20),
		"Fixed auth.py - updated validation " + strings.Repeat("and more words here ", 21),
		strings.Repeat("a plain message of some length, é included ", 30),
	}
	n := 0
	step := func(out string) (fired int) {
		n++
		s := Step{N: n, Kind: KindAction, Action: "run_tests", Output: out}
		if _, ok := sig.Check(&s); ok {
			fired++
		}
		if _, ok := fz.Check(&s); ok {
			fired++
		}
		return fired
	}
	for range 20 {
		for _, o := range outs {
			step(o)
			step(o)
		}
	}
	for i, o := range outs {
		fired := 0
		if a := testing.AllocsPerRun(50, func() { fired = step(o) }); a != 0 {
			t.Errorf("output %d repeated: %v allocations a step", i, a)
		}
		if fired != 2 {
			t.Errorf("output %d repeated: %d firings a step, want both rules'", i, fired)
		}
	}
	if a := testing.AllocsPerRun(50, func() {
		for _, o := range outs {
			step(o)
		}
	}); a != 0 {
		t.Errorf("outputs in turn: %v allocations a round", a)
	}
}

// BenchmarkMatchSigFile searches an output that names a file verb but
// no file of the pattern's extensions (Codex's "Updated the following
// files" with a file's lines after it) to its end.
func BenchmarkMatchSigFile(b *testing.B) {
	out := "Success. Updated the following files:\nM calc.go\n" +
		strings.Repeat("    buffer error token event buffer index token append import\nerror self test parse line close error value\n", 8)
	b.SetBytes(int64(len(out)))
	for b.Loop() {
		if _, _, ok := matchSigFile(out); ok {
			b.Fatal("matched")
		}
	}
}

// TestSkipToDigit puts each byte value at each position of strings of
// several lengths, over a filler of each non-digit kind, and compares
// skipToDigit with a byte-by-byte search.
func TestSkipToDigit(t *testing.T) {
	ref := func(s string, i int) int {
		for ; i < len(s) && (s[i] < '0' || s[i] > '9'); i++ {
		}
		return i
	}
	for _, fill := range []byte{'a', ' ', 0x80, 0xff, '/', ':'} {
		for n := 0; n <= 19; n++ {
			for pos := 0; pos < n; pos++ {
				for c := range 256 {
					b := []byte(strings.Repeat(string(fill), n))
					b[pos] = byte(c)
					s := string(b)
					for from := range min(n, 3) {
						if got, want := skipToDigit(s, from), ref(s, from); got != want {
							t.Fatalf("skipToDigit(%q, %d) = %d, want %d", s, from, got, want)
						}
					}
				}
			}
		}
	}
}

// TestSkipToFold3 compares skipToFold3 with a byte-by-byte search: it
// may stop early only where fewer than ten bytes are left, and never
// passes a position of the three letters in either ASCII case.
func TestSkipToFold3(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	alphabet := []byte("eErRfFaAiI \n\x00\xff\xc5\xbf\x45\x65zZ@`")
	for range 200000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(b)
		from := r.IntN(len(s) + 1)
		for _, w := range []string{"err", "fai"} {
			want := from
			for ; want+3 <= len(s) && !(s[want]|0x20 == w[0] && s[want+1]|0x20 == w[1] && s[want+2]|0x20 == w[2]); want++ {
			}
			got := skipToFold3(s, from, w[0], w[1], w[2])
			// Exact while ten bytes are left; past that the caller goes
			// on byte by byte from where it stopped.
			if got > want || got < want && got+10 <= len(s) {
				t.Fatalf("skipToFold3(%q, %d, %q) = %d, want %d", s, from, w, got, want)
			}
		}
	}
}

// TestSkipToAtOrNewline compares skipToAtOrNewline with a byte-by-byte
// search, as TestSkipToFold3 does skipToFold3 (nine bytes its room).
func TestSkipToAtOrNewline(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 2))
	alphabet := []byte("aAtT \n\r\x00\xff\xe1\xf4\x41\x54zZ@`\x0a\x2a")
	for range 200000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(b)
		from := r.IntN(len(s) + 1)
		want := from
		for ; want < len(s) && s[want] != '\n' && !(want+1 < len(s) && s[want]|0x20 == 'a' && s[want+1]|0x20 == 't'); want++ {
		}
		if got := skipToAtOrNewline(s, from); got > want || got < want && got+9 <= len(s) {
			t.Fatalf("skipToAtOrNewline(%q, %d) = %d, want %d", s, from, got, want)
		}
	}
}

// BenchmarkTestFailSignature makes the signature of a test run's output
// with a file's lines after it: the count is found at once, the second
// name searched for to the end.
func BenchmarkTestFailSignature(b *testing.B) {
	out := "3 tests failed\nFAIL: test_login: expected 200, got 500\n" +
		strings.Repeat("    buffer error token event buffer index token append import\nerror self test parse line close error value\n", 8)
	b.SetBytes(int64(len(out)))
	for b.Loop() {
		_ = OutputSignature(out)
	}
}
