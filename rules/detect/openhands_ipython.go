package detect

import "strings"

// The IPython variant of repeat_action_error (stuck.py
// _is_stuck_repeating_action_error's elif branch): the last observations
// are IPythonRunCellObservations ending in the same Python SyntaxError,
// recognised by the lines the Jupyter plugin appends.

// ohSyntaxErrors is StuckDetector.SYNTAX_ERROR_MESSAGES, in its order.
var ohSyntaxErrors = []string{
	"SyntaxError: unterminated string literal (detected at line",
	"SyntaxError: invalid syntax. Perhaps you forgot a comma?",
	"SyntaxError: incomplete input",
}

// ipythonSyntaxLoop tries each message as the loop over
// SYNTAX_ERROR_MESSAGES does: the first with
// _check_for_consistent_line_error, the others with
// _check_for_consistent_invalid_syntax.
func ipythonSyntaxLoop(obs []*OpenHandsEvent) bool {
	for i, msg := range ohSyntaxErrors {
		if i == 0 && consistentLineError(obs, msg) || i > 0 && consistentInvalidSyntax(obs, msg) {
			return true
		}
	}
	return false
}

// pyLines is Python's content.strip().split('\n').
func pyLines(s string) []string { return strings.Split(pyStrip(s), "\n") }

// pyStrip is Python's str.strip(): it also strips the separators
// U+001C–U+001F, which Go's unicode.IsSpace does not count.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
			return true
		}
		return r >= 0x2000 && r <= 0x200a
	})
}

const (
	jupyterCwd    = "[Jupyter current working directory:"
	jupyterPython = "[Jupyter Python interpreter:"
)

// consistentLineError is _check_for_consistent_line_error: every
// observation ends in the two Jupyter lines, and the line before them
// holds msg and is the same in all.
func consistentLineError(obs []*OpenHandsEvent, msg string) bool {
	var errLines []string
	for _, o := range obs {
		lines := pyLines(o.Text)
		if len(lines) < 3 {
			return false
		}
		last := lines[len(lines)-3:]
		if !strings.HasPrefix(last[1], jupyterCwd) || !strings.HasPrefix(last[2], jupyterPython) {
			return false
		}
		if strings.Contains(last[0], msg) {
			errLines = append(errLines, last[0])
		}
	}
	return len(errLines) == len(obs) && allEqualStrings(errLines)
}

// consistentInvalidSyntax is _check_for_consistent_invalid_syntax: every
// observation has at least 6 lines and starts with the same
// `Cell In[1], line` line; exactly 3 end in the Jupyter lines with msg
// before them, that line the same in all.
func consistentInvalidSyntax(obs []*OpenHandsEvent, msg string) bool {
	var firsts, errLines []string
	for _, o := range obs {
		lines := pyLines(o.Text)
		if len(lines) < 6 {
			return false
		}
		first := pyStrip(lines[0])
		if !strings.HasPrefix(first, "Cell In[1], line") {
			return false
		}
		firsts = append(firsts, first)
		n := len(lines)
		if strings.HasPrefix(lines[n-1], jupyterPython) && strings.HasPrefix(lines[n-2], jupyterCwd) && strings.Contains(lines[n-3], msg) {
			errLines = append(errLines, lines[n-3])
		}
	}
	return allEqualStrings(firsts) && len(errLines) == len(obs) && allEqualStrings(errLines)
}

// allEqualStrings is len(set(xs)) == 1 for a non-empty xs.
func allEqualStrings(xs []string) bool {
	if len(xs) == 0 {
		return false
	}
	for _, x := range xs {
		if x != xs[0] {
			return false
		}
	}
	return true
}
