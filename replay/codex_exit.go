package replay

import "strings"

// What a tool output's text says of its call: failed, or its exit code.

// codexFailed says an output is one Codex answers a call with when the
// call failed without running. The rollout keeps only the output's text
// (FunctionCallOutputPayload serializes its body alone, not its success
// flag), so the failure is read from the texts Codex gives the model with
// success false (failure_response for a FunctionCallError::RespondToModel,
// codex-rs/core/src/tools/router.rs): a refused approval, normalized to
// "exec command rejected by user" or "patch rejected by user"
// (ToolEmitter::finish, codex-rs/core/src/tools/events.rs at
// 001f15e971d47ab5e484ced35ba820332934c9ee), and a patch that does not
// apply, "apply_patch verification failed: ..." (ApplyPatchHandler,
// codex-rs/core/src/tools/handlers/apply_patch.rs). A call the user
// interrupted, "Wall time: N seconds\naborted by user" or "aborted by
// user after Ns" (AbortedToolOutput, success None), is not a failure.
//
// The three are told apart by their first byte: the prefix's compare
// (34 bytes) called memequal at every output at least as long.
func codexFailed(out string) bool {
	if out == "" {
		return false
	}
	switch out[0] {
	case 'e':
		return out == "exec command rejected by user"
	case 'p':
		return out == "patch rejected by user"
	case 'a':
		return strings.HasPrefix(out, "apply_patch verification failed: ")
	}
	return false
}

// codexFreeformExit reads the exit code of a command's output as Codex
// 0.116 and later sends it to the model and keeps it in the rollout:
// "Exit code: N\nWall time: S seconds\n[Total output lines: N\n]Output:\n..."
// (format_exec_output_for_model_freeform, openai/codex
// codex-rs/core/src/tools/mod.rs at
// 7f589e4abe835595201eb91447b441d7d804141f; N an i32). A text that does
// not open with those two lines has no exit code.
func codexFreeformExit(text string) (int, bool) {
	const head, wall = "Exit code: ", "\nWall time: "
	if !strings.HasPrefix(text, head) {
		return 0, false
	}
	rest := text[len(head):]
	end := strings.IndexByte(rest, '\n')
	if end < 0 || !strings.HasPrefix(rest[end:], wall) {
		return 0, false
	}
	num := rest[:end]
	digits := strings.TrimPrefix(num, "-")
	if digits == "" || len(digits) > 10 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if len(num) > len(digits) {
		n = -n
	}
	if n < -1<<31 || n > 1<<31-1 {
		return 0, false
	}
	return n, true
}
