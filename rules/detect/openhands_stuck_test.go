package detect

// OpenHands' own unit tests of the StuckDetector
// (All-Hands-AI/OpenHands tests/unit/controller/test_is_stuck.py at
// 156d068, class TestStuckDetector), translated case for case: each case
// builds state.history as the Python test does, event by event, and asks
// is_stuck where the Python test asserts. An event's Key stands for its
// dataclass fields: the events the Python test builds equal are built
// with equal Keys here. loop_start_idx is not replayed (loopbreak reports
// the step where is_stuck holds, not where the loop began).

import (
	"fmt"
	"strings"
	"testing"
)

// Events as the Python tests build them; fields are "name=value" pairs,
// the defaults left out as the constructors leave them.
func ohAction(class string, fields ...string) *OpenHandsEvent {
	return &OpenHandsEvent{Class: OHOtherAction, Key: "a:" + class + "\x00" + strings.Join(fields, "\x00")}
}

// ohMessage is MessageAction(content=…) with no source set: an action, not
// an agent message (is_stuck tests source == AGENT) nor a user one.
func ohMsgNoSource(content string) *OpenHandsEvent { return ohAction("message", "content="+content) }
func ohUser(content string) *OpenHandsEvent {
	return &OpenHandsEvent{Class: OHUserMessage, Key: "a:message\x00content=" + content}
}
func ohAgent(content string) *OpenHandsEvent {
	return &OpenHandsEvent{Class: OHAgentMessage, Key: "a:message\x00content=" + content}
}
func ohNullObs() *OpenHandsEvent           { return &OpenHandsEvent{Class: OHNull} }
func ohRun(command string) *OpenHandsEvent { return ohAction("run", "command="+command) }
func ohRunThought(command, thought string) *OpenHandsEvent {
	return ohAction("run", "command="+command, "thought="+thought)
}

// ohCmdOut is CmdOutputObservation: _eq_no_pid compares command and exit
// code (-1 when not given) only.
func ohCmdOut(command string, exit int) *OpenHandsEvent {
	return &OpenHandsEvent{Class: OHCmdObs, Key: fmt.Sprintf("%s\x00%d", command, exit)}
}
func ohErrObs(content string) *OpenHandsEvent {
	return &OpenHandsEvent{Class: OHErrorObs, Key: "o:error\x00" + content}
}
func ohRead(path string) *OpenHandsEvent { return ohAction("read", "path="+path) }
func ohReadOut(content, path string) *OpenHandsEvent {
	return &OpenHandsEvent{Class: OHOtherObs, Key: "o:read\x00" + content + "\x00path=" + path}
}
func ohIPy(code string) *OpenHandsEvent {
	return &OpenHandsEvent{Class: OHIPythonAction, Key: "a:run_ipython\x00code=" + code, Text: code}
}
func ohIPyOut(content, code string) *OpenHandsEvent {
	return &OpenHandsEvent{Class: OHIPythonObs, Key: "o:run_ipython\x00" + content + "\x00code=" + code, Text: content}
}
func ohCondense(content string) *OpenHandsEvent {
	return &OpenHandsEvent{Class: OHCondensation, Key: "o:condense\x00" + content}
}

const (
	jupyterLine1 = "\n[Jupyter current working directory:"
	jupyterLine2 = "\n[Jupyter Python interpreter:"
	codeSnippet  = "\nedit_file_by_replace(\n    'book_store.py',\n    to_replace=\"\"\"def total(basket):\n    if not basket:\n        return 0\n"
)

// syntaxErrorEvents is _impl_syntax_error_events.
func syntaxErrorEvents(errorMessage string, randomLine bool, incidents int) []*OpenHandsEvent {
	var h []*OpenHandsEvent
	for i := range incidents {
		extraNumber, extraLine := "42", ""
		if randomLine {
			extraNumber, extraLine = fmt.Sprint((i+1)*10), strings.Repeat("\n", i+1)
		}
		h = append(h, ohIPy(codeSnippet), ohIPyOut("  Cell In[1], line "+extraNumber+"\n"+
			"to_replace=\"\"\"def largest(min_factor, max_factor):\n            ^\n"+
			errorMessage+extraLine+jupyterLine1+jupyterLine2, codeSnippet))
	}
	return h
}

// unterminatedStringEvents is _impl_unterminated_string_error_events.
func unterminatedStringEvents(randomLine bool, incidents int) []*OpenHandsEvent {
	var h []*OpenHandsEvent
	for i := range incidents {
		line := "1"
		if randomLine {
			line = fmt.Sprint((i + 1) * 10)
		}
		h = append(h, ohIPy(codeSnippet), ohIPyOut("print(\"  Cell In[1], line "+line+"\nhello\n       ^\n"+
			"SyntaxError: unterminated string literal (detected at line "+line+")"+jupyterLine1+jupyterLine2, codeSnippet))
	}
	return h
}

// ohAssert is one `assert stuck_detector.is_stuck(headless_mode=…)` after
// the history's first after events: want is the check that holds, "" for
// False.
type ohAssert struct {
	after       int
	interactive bool
	want        string
}

func cmdPair(command string, exit int) []*OpenHandsEvent {
	return []*OpenHandsEvent{ohRun(command), ohCmdOut(command, exit)}
}

func flat(parts ...[]*OpenHandsEvent) []*OpenHandsEvent {
	var out []*OpenHandsEvent
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func one(es ...*OpenHandsEvent) []*OpenHandsEvent { return es }

func timesEv(n int, f func(i int) []*OpenHandsEvent) []*OpenHandsEvent {
	var out []*OpenHandsEvent
	for i := range n {
		out = append(out, f(i)...)
	}
	return out
}

func TestOpenHandsStuckDetectorUnitTests(t *testing.T) {
	ls := func(int) []*OpenHandsEvent { return cmdPair("ls", -1) }
	patternHist := flat(one(ohUser("Come on"), ohNullObs()),
		cmdPair("ls", -1), one(ohRead("file1.txt"), ohReadOut("File content", "file1.txt")),
		cmdPair("ls", -1), one(ohRead("file1.txt"), ohReadOut("File content", "file1.txt")),
		one(ohUser("Come on"), ohNullObs()),
		cmdPair("ls", -1), one(ohRead("file1.txt"), ohReadOut("File content", "file1.txt")))
	notStuck := flat(one(ohMsgNoSource("Hello"), ohNullObs()),
		cmdPair("ls", -1), one(ohRead("file1.txt"), ohReadOut("File content", "file1.txt")),
		cmdPair("pwd", -1), one(ohRead("file2.txt"), ohReadOut("Another file content", "file2.txt")),
		one(ohUser("Done"), ohNullObs()),
		cmdPair("pwd", -1), one(ohRead("file2.txt"), ohReadOut("Another file content", "file2.txt")))
	doing := "I'm doing well, thanks for asking."
	monologue := flat(one(ohUser("Hi there!"), ohAgent("Hi there!"), ohUser("How are you?"),
		ohRunThought("echo 42", "I'm not stuck, he's stuck"),
		ohAgent(doing), ohAgent(doing), ohAgent(doing)),
		one(ohCmdOut("storybook", 0), ohAgent(doing), ohAgent(doing)))
	trim := "Trimming prompt to meet context window limitations"
	condense := func(int) []*OpenHandsEvent { return one(ohCondense(trim)) }
	hello := one(ohUser("Hello"), ohNullObs())
	notAtEnd := one(
		ohIPy(`print("hello`), ohIPyOut("print(\"hello\n       ^\nSyntaxError: unterminated string literal (detected at line 1)\nThis is some additional output", `print("hello`),
		ohIPy(`print("hello`), ohIPyOut("print(\"hello\n       ^\nSyntaxError: unterminated string literal (detected at line 1)\nToo much output here on and on", `print("hello`),
		ohIPy(`print("hello`), ohIPyOut("print(\"hello\n       ^\nSyntaxError: unterminated string literal (detected at line 3)\nEnough", `print("hello`),
		ohIPy(`print("hello`), ohIPyOut("print(\"hello\n       ^\nSyntaxError: unterminated string literal (detected at line 2)\nLast line of output", `print("hello`))
	const comma = "SyntaxError: invalid syntax. Perhaps you forgot a comma?"
	const incomplete = "SyntaxError: incomplete input"

	tests := []struct {
		name    string
		history []*OpenHandsEvent
		asserts []ohAssert
	}{
		{"test_history_too_short", flat(one(ohUser("Hello"), ohNullObs()), cmdPair("ls", -1)),
			[]ohAssert{{4, false, ""}}},
		{"test_interactive_mode_resets_after_user_message",
			flat(timesEv(4, ls), one(ohUser("Hello")), timesEv(2, ls), timesEv(2, ls)),
			[]ohAssert{{8, false, RuleRepeatActionObservation}, {8, true, RuleRepeatActionObservation},
				{9, true, ""}, {9, false, RuleRepeatActionObservation}, {13, true, ""}, {17, true, RuleRepeatActionObservation}}},
		{"test_is_stuck_repeating_action_observation",
			flat(one(ohMsgNoSource("Hello"), ohNullObs()), timesEv(2, ls), one(ohUser("Done"), ohNullObs()), timesEv(1, ls), timesEv(1, ls)),
			[]ohAssert{{8, false, ""}, {10, false, ""}, {12, false, RuleRepeatActionObservation}}},
		{"test_is_stuck_repeating_action_error",
			flat(one(ohMsgNoSource("Hello"), ohNullObs()),
				one(ohRun("invalid_command"), ohErrObs("Command not found")),
				one(ohRun("invalid_command"), ohErrObs("Command still not found or another error")),
				one(ohUser("Done"), ohNullObs()),
				one(ohRun("invalid_command"), ohErrObs("Different error")),
				one(ohRun("invalid_command"), ohErrObs("Command not found"))),
			[]ohAssert{{12, false, RuleRepeatActionError}}},
		// The three test_is_stuck_*_error cases below assert only that
		// is_stuck is True: with 4 identical incidents scenario 1 holds
		// first (stuck_analysis.loop_type repeating_action_observation, as
		// the real stuck.py run over the same history says).
		{"test_is_stuck_invalid_syntax_error", syntaxErrorEvents(comma, false, 4),
			[]ohAssert{{8, false, RuleRepeatActionObservation}}},
		{"test_is_not_stuck_invalid_syntax_error_random_lines", syntaxErrorEvents(comma, true, 4),
			[]ohAssert{{8, false, ""}}},
		{"test_is_not_stuck_invalid_syntax_error_only_three_incidents", syntaxErrorEvents(comma, true, 3),
			[]ohAssert{{6, false, ""}}},
		{"test_is_stuck_incomplete_input_error", syntaxErrorEvents(incomplete, false, 4),
			[]ohAssert{{8, false, RuleRepeatActionObservation}}},
		{"test_is_not_stuck_incomplete_input_error", syntaxErrorEvents(incomplete, true, 4),
			[]ohAssert{{8, false, ""}}},
		{"test_is_not_stuck_ipython_unterminated_string_error_random_lines", unterminatedStringEvents(true, 4),
			[]ohAssert{{8, false, ""}}},
		{"test_is_not_stuck_ipython_unterminated_string_error_only_two_incidents", unterminatedStringEvents(false, 2),
			[]ohAssert{{4, false, ""}}},
		{"test_is_stuck_ipython_unterminated_string_error", unterminatedStringEvents(false, 4),
			[]ohAssert{{8, false, RuleRepeatActionObservation}}},
		{"test_is_not_stuck_ipython_syntax_error_not_at_end", notAtEnd,
			[]ohAssert{{8, false, ""}}},
		{"test_is_stuck_repeating_action_observation_pattern", patternHist,
			[]ohAssert{{len(patternHist), false, RuleAlternatingPair}}},
		{"test_is_stuck_not_stuck", notStuck,
			[]ohAssert{{len(notStuck), false, ""}}},
		{"test_is_stuck_monologue", monologue,
			[]ohAssert{{7, false, RuleMonologue}, {10, false, ""}}},
		{"test_is_stuck_context_window_error_loop", flat(hello, timesEv(10, condense)),
			[]ohAssert{{12, false, RuleContextWindowError}}},
		{"test_is_not_stuck_context_window_error_with_other_events",
			flat(hello, timesEv(10, func(i int) []*OpenHandsEvent {
				out := condense(i)
				if i < 9 {
					c := fmt.Sprintf("ls %d", i)
					out = append(out, ohRun(c), ohCmdOut(c, -1))
					if i%2 == 0 {
						f := fmt.Sprintf("file%d.txt", i)
						out = append(out, ohRead(f), ohReadOut(fmt.Sprintf("File content %d", i), f))
					}
				}
				return out
			})),
			[]ohAssert{{-1, false, ""}}},
		{"test_is_not_stuck_context_window_error_less_than_ten", flat(hello, timesEv(9, condense)),
			[]ohAssert{{11, false, ""}}},
		{"test_is_stuck_context_window_error_with_user_messages",
			flat(hello, timesEv(10, func(i int) []*OpenHandsEvent {
				out := condense(i)
				if i < 9 {
					out = append(out, ohUser(fmt.Sprintf("Please continue %d", i)), ohNullObs())
				}
				return out
			})),
			[]ohAssert{{-1, false, RuleContextWindowError}}},
		{"test_is_not_stuck_context_window_error_in_non_headless",
			flat(timesEv(10, condense), one(ohUser("Please continue"), ohNullObs())),
			[]ohAssert{{12, false, RuleContextWindowError}, {12, true, ""}}},
	}
	// Cases of our own, checked against the real stuck.py: with 3
	// incidents only the IPython variant of scenario 2 can hold.
	tests = append(tests, []struct {
		name    string
		history []*OpenHandsEvent
		asserts []ohAssert
	}{
		{"ours: invalid syntax, 3 incidents", syntaxErrorEvents(comma, false, 3), []ohAssert{{6, false, RuleRepeatActionError}}},
		{"ours: incomplete input, 3 incidents", syntaxErrorEvents(incomplete, false, 3), []ohAssert{{6, false, RuleRepeatActionError}}},
		{"ours: unterminated string, 3 incidents", unterminatedStringEvents(false, 3), []ohAssert{{6, false, RuleRepeatActionError}}},
		{"ours: unterminated string, 3 incidents, lines differ", unterminatedStringEvents(true, 3), []ohAssert{{6, false, ""}}},
	}...)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, a := range tc.asserts {
				n := a.after
				if n < 0 {
					n = len(tc.history)
				}
				cfg := DefaultOpenHandsConfig()
				cfg.Interactive = a.interactive
				d, err := NewOpenHands(cfg)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range tc.history[:n] {
					d.Add(e, false)
				}
				if got := d.IsStuck(); got != a.want {
					t.Errorf("after %d events, interactive %v: is_stuck %q, want %q", n, a.interactive, got, a.want)
				}
			}
		})
	}
}

// _eq_no_pid's special cases, checked against the real stuck.py.
func TestOpenHandsEqNoPid(t *testing.T) {
	edit := "edit_file_by_replace(\n  'a.py',\n  to_replace='x',\n"
	tests := []struct {
		name string
		a, b *OpenHandsEvent
		want bool
	}{
		{"edit: first 3 lines equal, thought differs", ohIPy(edit + "new='y')"), ohIPy(edit + "new='z')"), true},
		{"edit: a line of the first 3 differs", ohIPy("edit_file_by_replace(\n  'a.py',\n  to_replace='w',\n"), ohIPy(edit), false},
		{"edit: 2 lines are not compared by lines", ohIPy("edit_file_by_replace(\n'a.py')"), ohIPy("edit_file_by_replace(\n'a.py')"), false},
		{"edit in one only: dataclass equality", ohIPy(edit), ohIPy("print(1)"), false},
		{"no edit: dataclass equality", ohIPy("print(1)"), ohIPy("print(1)"), true},
		{"CmdOutputObservation: command and exit code", ohCmdOut("ls", 0), ohCmdOut("ls", 0), true},
		{"CmdOutputObservation: exit code differs", ohCmdOut("ls", 0), ohCmdOut("ls", 1), false},
		{"thought counts", ohRunThought("ls", "a"), ohRunThought("ls", "b"), false},
		{"a CmdOutputObservation is not an ErrorObservation", ohCmdOut("ls", 0), ohErrObs("ls\x000"), false},
	}
	for _, tc := range tests {
		if got := ohEqNoPid(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: _eq_no_pid = %v, want %v", tc.name, got, tc.want)
		}
	}
}
