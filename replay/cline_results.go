package replay

// A tool's result as a Cline or Roo Code user message sends it, as text:
// its header, whether it reports a failure or Roo's refusal, and a
// command's exit code.

import (
	"strconv"
	"strings"
)

// clineFailed says a result's text reports a failure: formatResponse.
// toolError's "The tool execution failed with the following error:" and
// its <error> tag.
func clineFailed(t string) bool {
	return strings.Contains(t, "The tool execution failed") || strings.Contains(t, "<error>")
}

// clineScan is clineFailed(t) and strings.Contains(t, rooRefusal), the
// text scanned once for the 'T' both "The tool execution failed" and
// rooRefusal start with (a search for each scanned all of it), then for
// "<error>" if no failure was found. None of the three holds "] Result:"
// nor a space or line break after a ':', so none found in a result's
// header and body together runs across the header's end
// (clineResultHeader): clineFailed(t) is clineFailed(t[:h]) ||
// clineScan(t[h:]).
func clineScan(t string) (failed, refused bool) { return clineScanAt(t, 0) }

// clineScanAt is clineFailed(t) and strings.Contains(t[h:], rooRefusal):
// a result's header and body read in one scan (user), where the body was
// scanned and its header searched twice more (clineFailed), for a
// failure; a refusal counts in the body only, as before (a header's
// target may quote anything).
func clineScanAt(t string, h int) (failed, refused bool) {
	const failure = "The tool execution failed"
	for i := strings.IndexByte(t, 'T'); i >= 0; {
		rest := t[i:]
		if !failed && strings.HasPrefix(rest, failure) {
			failed = true
		} else if !refused && i >= h && strings.HasPrefix(rest, rooRefusal) {
			refused = true
		}
		if failed && refused {
			return true, true
		}
		j := strings.IndexByte(rest[1:], 'T')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	if !failed {
		failed = strings.Contains(t, "<error>")
	}
	return failed, refused
}

// clineCommandExit reads the exit code of an execute_command call from
// the status its result opens with. Cline (orchestrateCommandExecution,
// src/integrations/terminal/CommandOrchestrator.ts at 17018066a7adbfe3ce02d67a932926a71417e5e8)
// writes "Command executed successfully (exit code 0)." or "Command failed
// with exit code N.", then "\nOutput:\n..." (no code: "Command executed.",
// "Command terminated by signal S."); Roo Code (executeCommandInTerminal,
// src/core/tools/ExecuteCommandTool.ts at 014dfdc465a41968b2afb80fca527158abfc088b)
// "Command executed in terminal within working directory 'D'. [Command
// execution was not successful, ...\n]Exit code: N\nOutput:\n..." (or
// "Command executed in 'D'. ... Exit code: N\n\nOutput (...) persisted."),
// "Exit code: <undefined, notify user>" when it has none.
func clineCommandExit(r *stepRecord, text string) {
	if r == nil || !strings.HasPrefix(r.action, "execute_command") {
		return
	}
	text = strings.TrimSpace(text)
	var digits string
	switch {
	case strings.HasPrefix(text, "Command executed successfully (exit code 0)."):
		digits = "0"
	case strings.HasPrefix(text, "Command failed with exit code "):
		digits, _, _ = strings.Cut(text[len("Command failed with exit code "):], ".")
	case strings.HasPrefix(text, "Command executed in "):
		// The status ends where the output starts; the working directory
		// before it is quoted and may hold anything.
		// the status after it is "Exit code: N", perhaps after a line
		// saying the command was not successful.
		status, _, _ := strings.Cut(text, "\nOutput")
		i := strings.LastIndex(status, "'. ")
		if i < 0 {
			break
		}
		status = status[i+len("'. "):]
		if !strings.HasPrefix(status, "Exit code: ") {
			_, status, _ = strings.Cut(status, "\n")
		}
		if rest, ok := strings.CutPrefix(status, "Exit code: "); ok {
			digits, _, _ = strings.Cut(rest, "\n")
		}
	}
	if digits == "" {
		return // no code (Atoi's error for "" would cost an allocation)
	}
	if n, err := strconv.Atoi(digits); err == nil {
		r.setExitCode(n)
	}
}

// clineResultHeader returns where the text of a result sent as text
// starts, after its header and the line break (-1: t is no result). The
// header is "[<tool>] Result:", "[<tool> for '<target>'] Result:" or
// another description of the call ("[new_task for creating a new task]",
// Roo Code's "[switch_mode to 'code' because: ...]"), as the agents'
// toolDescription writes it: the target is the call's, so it may run
// over lines (an ask_followup_question's question), and the header ends
// at the first "] Result:" that ends a line or is followed by a space.
func clineResultHeader(t string) int {
	if !strings.HasPrefix(t, "[") {
		return -1
	}
	// The tool's name runs to the first space or ']', and is a param's
	// name (isParamName): its bytes are read once, in one loop, where
	// IndexAny (an ASCII set built at each call) and isParamName read
	// them twice.
	i := 1
	for i < len(t) && (t[i] >= 'a' && t[i] <= 'z' || t[i] == '_' || i > 1 && t[i] >= '0' && t[i] <= '9') {
		i++
	}
	if i == 1 || i == len(t) || t[i] != ' ' && t[i] != ']' {
		return -1
	}
	const tail = "] Result:"
	for from := i; ; {
		i := strings.Index(t[from:], tail)
		if i < 0 {
			return -1
		}
		end := from + i + len(tail)
		switch {
		case end == len(t):
			return end
		case t[end] == '\n', t[end] == ' ':
			// A result of one line follows the header on its line
			// ("[attempt_completion] Result: Done").
			return end + 1
		}
		from = end
	}
}
