package replay

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// Shapes found in agents' real logs (sessions committed to public
// repositories, read while checking the readers against them), each
// written here by hand in the shape the agent writes.

// stepsOf reads log with the preset detected and returns its steps as
// "kind: action" ("kind: output" for a step without an action) and the
// episode.
func stepsOf(t *testing.T, log string, opts Options) ([]string, *Episode) {
	t.Helper()
	if opts.Format == "" {
		opts.Format = FormatAuto
	}
	eps, err := Read(strings.NewReader(log), "log.jsonl", "d", opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != 1 {
		t.Fatalf("%d episodes, want 1", len(eps))
	}
	return stepWords(eps[0]), eps[0]
}

// stepWords is an episode's steps as "kind: action" ("kind: output" for
// a step without an action).
func stepWords(ep *Episode) []string {
	var got []string
	for i, tu := range ep.Turns {
		s := ep.Str(tu.Action)
		if s == "" {
			s = ep.Str(ep.Outputs[i])
		}
		got = append(got, ep.Steps[i].Kind.String()+": "+s)
	}
	return got
}

// Claude Code 2.1.x writes, besides its messages, records of every type
// its session storage knows (the entry types of @anthropic-ai/claude-code
// 2.1.111's cli.js: progress, attachment, last-prompt, pr-link, ai-title,
// custom-title, tag, agent-name, permission-mode, worktree-state, ...).
// None is a step, none is an unreadable line: --strict reads the session.
func TestClaudeCodeRecordTypesOfV2(t *testing.T) {
	log := strings.Join([]string{
		`{"type":"queue-operation","operation":"dequeue","timestamp":"2026-04-01T10:00:00.000Z","sessionId":"s1"}`,
		`{"parentUuid":null,"isSidechain":false,"type":"progress","data":{"type":"hook_progress","hookEvent":"SessionStart","hookName":"SessionStart:startup","command":"echo hi"},"parentToolUseID":"h1","toolUseID":"h1","timestamp":"2026-04-01T10:00:00.100Z","uuid":"p1","sessionId":"s1","version":"2.1.87"}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s1","version":"2.1.87","type":"user","message":{"role":"user","content":"run the tests"},"uuid":"u1","timestamp":"2026-04-01T10:00:01.000Z"}`,
		`{"parentUuid":"u1","isSidechain":false,"attachment":{"type":"hook_success","hookName":"UserPromptSubmit","toolUseID":"h2","hookEvent":"UserPromptSubmit","content":"","stdout":"","stderr":"","exitCode":0},"type":"attachment","uuid":"at1","timestamp":"2026-04-01T10:00:01.100Z","sessionId":"s1","version":"2.1.87"}`,
		`{"type":"ai-title","aiTitle":"Run the tests","sessionId":"s1"}`,
		`{"parentUuid":"at1","isSidechain":false,"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"go test ./..."}}]},"uuid":"a1","timestamp":"2026-04-01T10:00:02.000Z","sessionId":"s1","version":"2.1.87"}`,
		`{"parentUuid":"a1","isSidechain":false,"type":"progress","data":{"type":"bash_progress","output":"ok","fullOutput":"ok","elapsedTimeSeconds":1,"totalLines":1},"toolUseID":"toolu_1","parentToolUseID":"toolu_1","uuid":"p2","timestamp":"2026-04-01T10:00:03.000Z","sessionId":"s1","version":"2.1.87"}`,
		`{"parentUuid":"a1","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"ok","is_error":false}]},"uuid":"u2","timestamp":"2026-04-01T10:00:04.000Z","sessionId":"s1","version":"2.1.87"}`,
		`{"parentUuid":"u2","isSidechain":false,"type":"assistant","message":{"id":"msg_2","role":"assistant","content":[{"type":"text","text":"All pass."}]},"uuid":"a2","timestamp":"2026-04-01T10:00:05.000Z","sessionId":"s1","version":"2.1.87"}`,
		`{"parentUuid":"a2","isSidechain":false,"type":"system","subtype":"turn_duration","durationMs":5000,"messageCount":4,"uuid":"sy1","timestamp":"2026-04-01T10:00:05.100Z","isMeta":false,"sessionId":"s1","version":"2.1.87"}`,
		`{"type":"last-prompt","lastPrompt":"run the tests","sessionId":"s1"}`,
		`{"type":"pr-link","sessionId":"s1","prNumber":7,"prUrl":"https://example.com/pr/7","prRepository":"dev/calc","timestamp":"2026-04-01T10:00:06.000Z"}`,
		`{"type":"custom-title","customTitle":"tests","sessionId":"s1"}`,
		`{"type":"tag","tag":"ci","sessionId":"s1"}`,
		`{"type":"agent-name","agentName":"runner","sessionId":"s1"}`,
		`{"type":"mode","mode":"normal","sessionId":"s1"}`,
		`{"type":"permission-mode","permissionMode":"default","sessionId":"s1"}`,
		`{"type":"worktree-state","worktreeSession":null,"sessionId":"s1"}`,
		`{"type":"attribution-snapshot","messageId":"a2","sessionId":"s1"}`,
		`{"type":"teleported-from","remoteSessionId":"session_1","branch":"main","messageCount":0}`,
	}, "\n") + "\n"
	want := []string{`action: Bash {"command":"go test ./..."}`, "message: All pass."}
	for _, strict := range []bool{false, true} {
		got, ep := stepsOf(t, log, Options{Strict: strict})
		if ep.Preset != PresetClaudeCode {
			t.Errorf("strict %v: detected %q, want claude-code", strict, ep.Preset)
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("strict %v: steps %q, want %q", strict, got, want)
		}
		if ep.Diag.Skipped != 0 {
			t.Errorf("strict %v: %d lines skipped: %v", strict, ep.Diag.Skipped, ep.Diag.Problems)
		}
	}
}

// Codex 0.116-0.121 answers shell_command with text, not JSON: "Exit
// code: N", "Wall time: S seconds", "Total output lines: N" when cut,
// then "Output:" and the output (format_exec_output_for_model_freeform,
// openai/codex codex-rs/core/src/tools/mod.rs at
// 7f589e4abe835595201eb91447b441d7d804141f). Its exit code is the
// command's; a text that only looks like it has none.
func TestCodexFreeformExitCode(t *testing.T) {
	line := func(typ, payload string) string {
		return `{"timestamp":"2026-04-01T10:00:00.000Z","type":"` + typ + `","payload":` + payload + `}`
	}
	call := func(id, cmd string) string {
		return line("response_item", `{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"`+cmd+`\",\"workdir\":\"/w\"}","call_id":"`+id+`"}`)
	}
	out := func(id, text string) string {
		return line("response_item", `{"type":"function_call_output","call_id":"`+id+`","output":`+jsonString(text)+`}`)
	}
	log := strings.Join([]string{
		line("session_meta", `{"id":"019d","timestamp":"2026-04-01T10:00:00.000Z","cwd":"/w","originator":"codex-tui","cli_version":"0.118.0","source":"cli","model_provider":"openai"}`),
		call("c1", "rg -n foo"),
		out("c1", "Exit code: 1\nWall time: 0.8 seconds\nOutput:\nrg: foo: No such file or directory (os error 2)\n"),
		call("c2", "ls"),
		out("c2", "Exit code: 0\nWall time: 0.1 seconds\nOutput:\na.go\n"),
		call("c3", "sleep 30"),
		out("c3", "Exit code: 124\nWall time: 20 seconds\nTotal output lines: 3\nOutput:\ncommand timed out after 20035 milliseconds\n"),
		call("c4", "echo"),
		out("c4", "Exit code: x\nWall time: 0.1 seconds\nOutput:\n"),
		call("c5", "echo"),
		out("c5", "Exit code: 2\nOutput:\n"),
		call("c6", "echo"),
		out("c6", "Wall time: 17.0 seconds\naborted by user"),
	}, "\n") + "\n"
	_, ep := stepsOf(t, log, Options{})
	if ep.Preset != PresetCodex {
		t.Fatalf("detected %q, want codex", ep.Preset)
	}
	want := []int{1, 0, 124, -1, -1, -1} // -1: no exit code
	if len(ep.Steps) != len(want) {
		t.Fatalf("%d steps, want %d", len(ep.Steps), len(want))
	}
	for i, w := range want {
		got := -1
		if c, ok := ep.ExitCode(i); ok {
			got = c
		}
		if got != w {
			t.Errorf("step %d exit code %d, want %d", i+1, got, w)
		}
		if !strings.HasPrefix(ep.Str(ep.Outputs[i]), "Exit code: ") && i < 5 {
			t.Errorf("step %d output %q: want the text as logged", i+1, ep.Str(ep.Outputs[i]))
		}
	}
}

// Codex keeps only an output's text in the rollout, not the success flag
// it gave the model; the outputs it sends with success false when a call
// failed without running are read as errors: a refused approval ("exec
// command rejected by user", "patch rejected by user") and a patch that
// does not apply ("apply_patch verification failed: ..."). An interrupted
// call ("aborted by user", success None) and another text that only
// mentions them are not.
func TestCodexFailureOutputs(t *testing.T) {
	line := func(typ, payload string) string {
		return `{"timestamp":"2026-04-01T10:00:00.000Z","type":"` + typ + `","payload":` + payload + `}`
	}
	cases := []struct {
		call, output string
		err          bool
	}{
		{`{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"git push\",\"workdir\":\"/w\"}","call_id":"c1"}`, "exec command rejected by user", true},
		{`{"type":"custom_tool_call","status":"completed","call_id":"c1","name":"apply_patch","input":"*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** End Patch"}`, "patch rejected by user", true},
		{`{"type":"custom_tool_call","status":"completed","call_id":"c1","name":"apply_patch","input":"*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** End Patch"}`, "apply_patch verification failed: Failed to find expected lines in /w/a.go:\nx", true},
		{`{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"sleep 99\",\"workdir\":\"/w\"}","call_id":"c1"}`, "Wall time: 17.0 seconds\naborted by user", false},
		{`{"type":"function_call","name":"view_image","arguments":"{\"path\":\"a.png\"}","call_id":"c1"}`, "aborted by user after 2.1s", false},
		{`{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"cat log\",\"workdir\":\"/w\"}","call_id":"c1"}`, "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nexec command rejected by user\n", false},
	}
	for _, c := range cases {
		typ := "function_call_output"
		if strings.Contains(c.call, "custom_tool_call") {
			typ = "custom_tool_call_output"
		}
		log := strings.Join([]string{
			line("session_meta", `{"id":"019d","timestamp":"2026-04-01T10:00:00.000Z","cwd":"/w","originator":"codex-tui","cli_version":"0.118.0","source":"cli","model_provider":"openai"}`),
			line("response_item", c.call),
			line("response_item", `{"type":"`+typ+`","call_id":"c1","output":`+jsonString(c.output)+`}`),
		}, "\n") + "\n"
		_, ep := stepsOf(t, log, Options{})
		if len(ep.Steps) != 1 || ep.Steps[0].Error != c.err || ep.Diag.Skipped != 0 {
			t.Errorf("%q: steps %+v (%d skipped), want one with error %v", c.output, ep.Steps, ep.Diag.Skipped, c.err)
		}
	}
}

// Cline with native tool calls writes tool_use blocks, and when no
// tool_use id is mapped for the tool, answers each with a text block
// "[<tool> for '<target>'] Result:\n<result>" (ToolResultUtils.
// pushToolResult and createToolResultBlock, cline/cline
// src/core/task/tools/utils/ToolResultUtils.ts at
// e3a88c6b3325c148dde197624c41bdf3bc9a2794), one a call, in the order of
// the calls; a real task of 221 such calls had every output empty and
// every step held back to the end of the file.
func TestClineNativeCallsTextResults(t *testing.T) {
	env := `{"type":"text","text":"<environment_details>\n# Visual Studio Code Visible Files\na.go\n</environment_details>"}`
	log := `[{"role":"user","content":[{"type":"text","text":"<task>\nFix the build\n</task>"},` + env + `]},
{"role":"assistant","content":[{"type":"text","text":"I'll read both files."},{"type":"tool_use","id":"tooluse_1","name":"read_file","input":{"path":"a.go"}},{"type":"tool_use","id":"tooluse_2","name":"read_file","input":{"path":"b.go"}}]},
{"role":"user","content":[{"type":"text","text":"[read_file for 'a.go'] Result:\npackage a"},{"type":"text","text":"[read_file for 'b.go'] Result:\nThe tool execution failed with the following error:\n<error>\nFile not found: b.go\n</error>"},` + env + `]},
{"role":"assistant","content":[{"type":"tool_use","id":"tooluse_3","name":"execute_command","input":{"command":"go build","requires_approval":false}}]},
{"role":"user","content":[{"type":"text","text":"[execute_command for 'go build'] Result:\nCommand executed successfully (exit code 0).\nOutput:\nok"},` + env + `]},
{"role":"assistant","content":[{"type":"text","text":"Done."}]}]`
	eps, err := Read(strings.NewReader(log), "api_conversation_history.json", "d", Options{Format: FormatAuto})
	if err != nil {
		t.Fatal(err)
	}
	ep := eps[0]
	if ep.Preset != PresetCline {
		t.Fatalf("detected %q, want cline", ep.Preset)
	}
	checkSteps(t, ep, []stepView{
		{kind: "message", output: "I'll read both files.", exit: -1, prompt: true},
		{kind: "action", action: `read_file {"path":"a.go"}`, output: "package a", exit: -1},
		{kind: "action", action: `read_file {"path":"b.go"}`, output: "The tool execution failed", err: true, exit: -1},
		{kind: "action", action: `execute_command {"command":"go build","requires_approval":false}`, output: "Command executed successfully", exit: 0},
		{kind: "message", output: "Done.", exit: -1},
	})
}

// An execute_command result opens with the command's status, as Cline's
// orchestrateCommandExecution ("Command executed successfully (exit code
// 0).", "Command failed with exit code N.", "Command executed.") and Roo
// Code's executeCommandInTerminal ("Command executed in terminal within
// working directory 'D'. ... Exit code: N") write it: its exit code is
// the step's; a real Cline task had 13 failed commands read without one.
// Another tool's result that says the same is no command's status.
func TestClineCommandExitCode(t *testing.T) {
	task := `{"role":"user","content":[{"type":"text","text":"<task>\nInstall\n</task>"}]}`
	call := func(id, cmd string) string {
		return `{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"execute_command","input":{"command":"` + cmd + `","requires_approval":false}}]}`
	}
	text := func(header, body string) string {
		return `{"role":"user","content":[{"type":"text","text":"[` + header + `] Result:\n` + body + `"}]}`
	}
	cases := []struct {
		name, preset string
		msgs         []string
		exit         int
	}{
		{"cline failed, text result", PresetCline, []string{call("t1", "npm install"), text("execute_command for 'npm install'", `Command failed with exit code 1.\nOutput:\nnpm error code ERESOLVE`)}, 1},
		{"cline failed, no output", PresetCline, []string{call("t1", "tsc"), text("execute_command for 'tsc'", `Command failed with exit code 2.`)}, 2},
		{"cline tool_result", PresetCline, []string{call("t1", "npm test"), `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"Command failed with exit code 127.\nOutput:\nsh: jest: not found"}]}`}, 127},
		{"cline XML", PresetCline, []string{`{"role":"assistant","content":[{"type":"text","text":"<execute_command>\n<command>make</command>\n<requires_approval>false</requires_approval>\n</execute_command>"}]}`,
			`{"role":"user","content":[{"type":"text","text":"[execute_command for 'make'] Result:"},{"type":"text","text":"Command failed with exit code 2.\nOutput:\nmake: *** No rule"}]}`}, 2},
		{"cline success", PresetCline, []string{call("t1", "ls"), text("execute_command for 'ls'", `Command executed successfully (exit code 0).\nOutput:\na.go`)}, 0},
		{"cline no code", PresetCline, []string{call("t1", "ls"), text("execute_command for 'ls'", `Command executed.\nOutput:\na.go`)}, -1},
		{"cline signal", PresetCline, []string{call("t1", "sleep 9"), text("execute_command for 'sleep 9'", `Command terminated by signal SIGINT.`)}, -1},
		{"roo failed", PresetRoo, []string{call("t1", "npm test"), text("execute_command for 'npm test'", `Command executed in terminal within working directory '/home/dev/app'. Command execution was not successful, inspect the cause and adjust as needed.\nExit code: 1\nOutput:\nFAIL`)}, 1},
		{"roo success", PresetRoo, []string{call("t1", "ls"), text("execute_command for 'ls'", `Command executed in terminal within working directory '/home/dev/app'. Exit code: 0\nOutput:\na.go`)}, 0},
		{"roo persisted", PresetRoo, []string{call("t1", "npm test"), text("execute_command for 'npm test'", `Command executed in '/home/dev/app'. Command execution was not successful, inspect the cause and adjust as needed.\nExit code: 3\n\nOutput (2.1MB) persisted. Artifact ID: cmd-1.txt`)}, 3},
		{"roo undefined", PresetRoo, []string{call("t1", "ls"), text("execute_command for 'ls'", `Command executed in terminal within working directory '/tmp/Exit code: 9'. Exit code: <undefined, notify user>\nOutput:\n`)}, -1},
		{"another tool", PresetCline, []string{`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read_file","input":{"path":"log.txt"}}]}`, text("read_file for 'log.txt'", `Command failed with exit code 1.`)}, -1},
	}
	for _, c := range cases {
		log := "[" + task + ",\n" + strings.Join(c.msgs, ",\n") + "]"
		eps, err := Read(strings.NewReader(log), "api_conversation_history.json", "d", Options{Format: c.preset})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		steps := viewSteps(eps[0])
		if len(steps) != 1 || steps[0].kind != "action" || steps[0].exit != c.exit {
			t.Errorf("%s: steps %+v, want one action with exit %d", c.name, steps, c.exit)
		}
	}
}

// A result's header names the call's target as Cline's toolDescription
// writes it, "[ask_followup_question for '<question>'] Result:": a
// question of several lines makes a header of several lines. It is still
// the call's result, not the user's words.
func TestClineResultHeaderOfLines(t *testing.T) {
	log := `[{"role":"user","content":[{"type":"text","text":"<task>\nShip phase 1\n</task>"}]},
{"role":"assistant","content":[{"type":"tool_use","id":"tooluse_1","name":"ask_followup_question","input":{"question":"## Phase 1 done\n\nProceed to phase 2?"}}]},
{"role":"user","content":[{"type":"text","text":"[ask_followup_question for '## Phase 1 done\n\nProceed to phase 2?'] Result:\n<answer>\nyes\n</answer>"}]},
{"role":"assistant","content":[{"type":"text","text":"<thinking>Go on.</thinking>\n\n<list_files>\n<path>src</path>\n</list_files>"}]},
{"role":"user","content":[{"type":"text","text":"[list_files for 'src'] Result:"},{"type":"text","text":"a.go\nb.go"}]},
{"role":"assistant","content":[{"type":"text","text":"<attempt_completion>\n<result>\nDone\n</result>\n</attempt_completion>"}]},
{"role":"user","content":[{"type":"text","text":"[attempt_completion] Result:"},{"type":"text","text":"The user has provided feedback on the results. Consider their input to continue the task, and then attempt completion again.\n<feedback>\nAlso phase 2\n</feedback>"}]},
{"role":"assistant","content":[{"type":"text","text":"On it."}]}]`
	eps, err := Read(strings.NewReader(log), "api_conversation_history.json", "d", Options{Format: FormatAuto})
	if err != nil {
		t.Fatal(err)
	}
	checkSteps(t, eps[0], []stepView{
		{kind: "action", action: `ask_followup_question {"question":"## Phase 1 done\n\nProceed to phase 2?"}`, output: "<answer>\nyes", exit: -1, prompt: true},
		{kind: "message", output: "Go on.", exit: -1, thinking: true},
		{kind: "action", action: `list_files {"path":"src"}`, output: "a.go", exit: -1},
		{kind: "action", action: `attempt_completion {"result":"Done"}`, output: "The user has provided feedback", exit: -1},
		{kind: "message", output: "On it.", exit: -1},
	})
}

func TestClineResultHeader(t *testing.T) {
	for _, c := range []struct {
		text, body string // body "-": no result
	}{
		{"[read_file for 'a.go'] Result:\npackage a", "package a"},
		{"[list_files for 'src'] Result:", ""},
		{"[ask_followup_question for 'Done?\n\nGo on?'] Result:\n<answer>\nyes\n</answer>", "<answer>\nyes\n</answer>"},
		{"[attempt_completion] Result: Done", "Done"},
		{"[new_task for creating a new task] Result:\nok", "ok"},
		{"[switch_mode to 'code' because: tests] Result:\nok", "ok"},
		{"[search_files for 'from ['\"]@/lib['\"]'] Result:\nFound 2", "Found 2"},
		{"[TASK RESUMPTION] This task was interrupted 3 days ago.", "-"},
		{"[ERROR] You did not use a tool in your previous response!", "-"},
		{"<task>\n[read_file] Result:\n</task>", "-"},
		{"[read_file for 'a'] Results:\nx", "-"},
		{"[", "-"},
	} {
		got := "-"
		if i := clineResultHeader(c.text); i >= 0 {
			got = c.text[i:]
		}
		if got != c.body {
			t.Errorf("clineResultHeader(%q): body %q, want %q", c.text, got, c.body)
		}
	}
}

// Cline's focus chain adds its reminders to the user's turn as text
// blocks ("# TODO LIST UPDATE REQUIRED ...", "# task_progress ...":
// FocusChainPrompts, cline/cline src/core/task/focus-chain/prompts.ts at
// 1a196376d185f7d204aa985c7ee494b70cfdbf44, and focus-chain/index.ts):
// the agent's words, not the user's, so no new prompt.
func TestClineFocusChainNotPrompt(t *testing.T) {
	log := `[{"role":"user","content":[{"type":"text","text":"<task>\nFix it\n</task>"},{"type":"text","text":"\n# task_progress RECOMMENDED\n\nWhen starting a new task, it is recommended to include a todo list using the task_progress parameter.\n"}]},
{"role":"assistant","content":[{"type":"tool_use","id":"tooluse_1","name":"list_files","input":{"path":"src"}}]},
{"role":"user","content":[{"type":"text","text":"[list_files for 'src'] Result:\na.go"},{"type":"text","text":"\n\n\t\t\t\t# TODO LIST UPDATE REQUIRED - You MUST include the task_progress parameter in your NEXT tool call.\n\n\t\t\t\t**Current Progress: 0/2 items completed (0%)**"}]},
{"role":"assistant","content":[{"type":"tool_use","id":"tooluse_2","name":"read_file","input":{"path":"src/a.go"}}]},
{"role":"user","content":[{"type":"text","text":"[read_file for 'src/a.go'] Result:\npackage a"},{"type":"text","text":"\n# task_progress List (Optional - Plan Mode)\n\nWhile in PLAN MODE, ..."}]},
{"role":"assistant","content":[{"type":"text","text":"Done."}]}]`
	eps, err := Read(strings.NewReader(log), "api_conversation_history.json", "d", Options{Format: FormatAuto})
	if err != nil {
		t.Fatal(err)
	}
	checkSteps(t, eps[0], []stepView{
		{kind: "action", action: `list_files {"path":"src"}`, output: "a.go", exit: -1, prompt: true},
		{kind: "action", action: `read_file {"path":"src/a.go"}`, output: "package a", exit: -1},
		{kind: "message", output: "Done.", exit: -1},
	})
}

// Aider's own messages are quoted "> " (or ">" alone for an empty one:
// InputOutput.append_chat_history writes "> " + the stripped text,
// Aider-AI/aider aider/io.py); a line that opens with ">" otherwise, such
// as the ">>>>>>> REPLACE" of a SEARCH/REPLACE block a model writes
// without a fence, is the model's reply.
func TestAiderReplaceMarkerIsReply(t *testing.T) {
	log := "\n# aider chat started at 2026-05-04 17:02:36\n\n" +
		"> Aider v0.82.2  \n\n" +
		"#### fix the divide test  \n\n" +
		"Here is the fix.\n\ncalc.py\n<<<<<<< SEARCH\ndef divide(a, b):\n=======\ndef divide(a, b):\n    assert b\n>>>>>>> REPLACE\n\nThat guards it.\n\n" +
		"> Tokens: 2.1k sent, 98 received.  \n" +
		">  \n" +
		"> Applied edit to calc.py  \n"
	got, ep := stepsOf(t, log, Options{})
	if ep.Preset != PresetAider {
		t.Fatalf("detected %q, want aider", ep.Preset)
	}
	if len(got) != 1 || !strings.HasSuffix(got[0], ">>>>>>> REPLACE\nThat guards it.") {
		t.Errorf("steps %q, want one reply through \"That guards it.\"", got)
	}
}

// Aider's append_chat_history writes "> " before a message of its own and
// ends it with the linebreak's two spaces; before _tool_message wrote a
// message a line at a time, a message of several lines (a SEARCH/REPLACE
// block that failed to match, with its blank lines and fences; a shell
// command to run, its lines padded by the console) had "> " before its
// first line only and the two spaces after its last. Its lines are Aider's,
// not a reply; the reply's own lines are kept as written (indentation).
// Real histories of Aider 0.82-0.83 had such messages read as replies.
func TestAiderOwnMessagesOfLines(t *testing.T) {
	log := "\n# aider chat started at 2026-05-04 17:02:36\n\n" +
		"> Aider v0.82.2  \n\n" +
		"#### make the bubble float  \n\n" +
		"Here is the change.\n\nsrc/Bubble.jsx\n```\n<<<<<<< SEARCH\nconst SIZE = 60;\n=======\nconst SIZE = 60;\nconst DELAY = 5000;\n>>>>>>> REPLACE\n```\n\n" +
		"> Tokens: 13k sent, 2.3k received.  \n" +
		"> # 1 SEARCH/REPLACE block failed to match!\n\n" +
		"## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in src/Bubble.jsx\n<<<<<<< SEARCH\nconst SIZE = 60;\n=======\nconst SIZE = 60;\nconst DELAY = 5000;\n>>>>>>> REPLACE\n\n" +
		"Did you mean to match some of these actual lines from src/Bubble.jsx?\n\n```\nconst SIZE = 64;\n```\n\n" +
		"The SEARCH section must exactly match an existing block of lines including all white space, comments, indentation, docstrings, etc\n" +
		"Just reply with fixed versions of the block above that failed to match.  \n\n" +
		"Sorry, the file has 64.\n\nsrc/Bubble.jsx\n```\n<<<<<<< SEARCH\nconst SIZE = 64;\n=======\nfunction f() {\n    return 64;\n}\n>>>>>>> REPLACE\n```\n\n" +
		"> Applied edit to src/Bubble.jsx  \n" +
		"> export GITHUB_TOKEN=your_token\n" +
		"export OWNER=owner             \n" +
		"./check.sh  \n" +
		"> Run shell commands? (Y)es/(N)o [Yes]: n  \n\n" +
		"#### thanks  \n\n" +
		"You're welcome.\n"
	got, ep := stepsOf(t, log, Options{})
	if ep.Preset != PresetAider || ep.Diag.Skipped != 0 {
		t.Fatalf("detected %q, %d skipped", ep.Preset, ep.Diag.Skipped)
	}
	want := []string{
		"message: Here is the change.\nsrc/Bubble.jsx\n```\n<<<<<<< SEARCH\nconst SIZE = 60;\n=======\nconst SIZE = 60;\nconst DELAY = 5000;\n>>>>>>> REPLACE\n```",
		"message: Sorry, the file has 64.\nsrc/Bubble.jsx\n```\n<<<<<<< SEARCH\nconst SIZE = 64;\n=======\nfunction f() {\n    return 64;\n}\n>>>>>>> REPLACE\n```",
		"message: You're welcome.",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("steps:\n%q\nwant\n%q", got, want)
	}
	// A history whose lines lost their trailing spaces (an editor's
	// trim) has no sign of where a message ends: a "> " line is one line,
	// and nothing of a reply is taken for Aider's.
	trimmed := strings.ReplaceAll(log, " \n", "\n")
	for strings.Contains(trimmed, " \n") {
		trimmed = strings.ReplaceAll(trimmed, " \n", "\n")
	}
	if got, _ := stepsOf(t, trimmed, Options{}); len(got) != 4 || !strings.HasPrefix(got[1], "message: ## SearchReplaceNoExactMatch") ||
		!strings.Contains(got[1], "\nSorry, the file has 64.") || got[3] != "message: You're welcome." {
		t.Errorf("trimmed history: %q", got)
	}
}

// When Claude Code compacts a conversation it writes a compact_boundary
// system record and then the summary as a user record marked
// isCompactSummary (@anthropic-ai/claude-code 2.1.111's cli.js: the
// summary message made with isCompactSummary and
// isVisibleInTranscriptOnly). The summary is Claude Code's, not the
// user's words: a condensation step, as Codex's compacted record is, and
// no new prompt.
func TestClaudeCodeCompactSummary(t *testing.T) {
	log := strings.Join([]string{
		`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"port the parser"},"uuid":"u1","sessionId":"s1","version":"2.1.87"}`,
		`{"parentUuid":"u1","isSidechain":false,"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/w/p.go"}}]},"uuid":"a1","sessionId":"s1","version":"2.1.87"}`,
		`{"parentUuid":"a1","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"package p"}]},"uuid":"u2","sessionId":"s1","version":"2.1.87"}`,
		`{"parentUuid":null,"logicalParentUuid":"u2","isSidechain":false,"type":"system","subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"uuid":"c1","level":"info","compactMetadata":{"trigger":"auto","preTokens":176558},"sessionId":"s1","version":"2.1.87"}`,
		`{"parentUuid":"c1","isSidechain":false,"promptId":"p1","type":"user","message":{"role":"user","content":"This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nSummary:\n1. Primary Request: port the parser"},"isVisibleInTranscriptOnly":true,"isCompactSummary":true,"uuid":"u3","sessionId":"s1","version":"2.1.87"}`,
		`{"parentUuid":"u3","isSidechain":false,"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"toolu_2","name":"Read","input":{"file_path":"/w/p.go"}}]},"uuid":"a2","sessionId":"s1","version":"2.1.87"}`,
		`{"parentUuid":"a2","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_2","type":"tool_result","content":"package p"}]},"uuid":"u4","sessionId":"s1","version":"2.1.87"}`,
	}, "\n") + "\n"
	eps, err := Read(strings.NewReader(log), "s1.jsonl", "d", Options{Format: FormatAuto, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	read := `Read {"file_path":"/w/p.go"}`
	checkSteps(t, eps[0], []stepView{
		{kind: "action", action: read, output: "package p", exit: -1, prompt: true},
		{kind: "condensation", output: "This session is being continued", exit: -1},
		{kind: "action", action: read, output: "package p", exit: -1},
	})
}

// A session of an agent's format read whole without a step is Stepless;
// an empty file, one with an unreadable line, a ZorkGPT log without an
// event and an attempts file are not.
func TestNoEventsStepless(t *testing.T) {
	for _, c := range []struct {
		e    NoEventsError
		want bool
		msg  string
	}{
		{NoEventsError{File: "s.jsonl", What: "steps", Lines: 4}, true, "no steps in s.jsonl: a session without a step (4 lines, each read)"},
		{NoEventsError{File: "s.jsonl", What: "steps"}, false, "no steps in s.jsonl (empty)"},
		{NoEventsError{File: "s.jsonl", What: "steps", Lines: 4, Skipped: 1, First: "s.jsonl:2: invalid JSON"}, false, "no steps in s.jsonl (4 lines, 1 unreadable; first: s.jsonl:2: invalid JSON)"},
		{NoEventsError{File: "e.jsonl", Lines: 3}, false, "no loop-break events in e.jsonl (3 lines, none a ZorkGPT event the rules use)"},
		{NoEventsError{File: "a.jsonl", What: "attempts", Lines: 3}, false, "no attempts in a.jsonl (3 lines, none a readable attempt record)"},
	} {
		e := c.e
		if got := IsStepless(fmt.Errorf("wrapped: %w", &e)); got != c.want || e.Error() != c.msg {
			t.Errorf("%+v: stepless %v, %q; want %v, %q", c.e, got, e.Error(), c.want, c.msg)
		}
	}
}

// Files that are an agent's but hold no run are reported for what they
// are, never taken for ZorkGPT logs nor read as something else: a Claude
// Code session left with only its teleported-from record, a SWE-agent
// demonstration (only "history", loaded by _append_demonstrations), an
// OpenHands resolver output (one ResolverOutput a line, named by its
// issue).
func TestAgentFilesWithoutRun(t *testing.T) {
	teleported := `{"type":"teleported-from","remoteSessionId":"session_01AbCdEfGhIjKlMnOpQrStUv","branch":"claude/fix-divide-Xy12z","messageCount":0}` + "\n"
	if f, p, known := DetectKnown([]byte(teleported)); f != FormatSteps || p != PresetClaudeCode || !known {
		t.Errorf("teleported-from: detected %s/%s known %v", f, p, known)
	}
	_, err := Read(strings.NewReader(teleported), "s.jsonl", "s", Options{Format: FormatAuto})
	if !IsStepless(err) || !strings.Contains(err.Error(), "a session without a step (1 line, each read)") {
		t.Errorf("teleported-from: %v", err)
	}

	demo := "{\n  \"history\": [\n    {\n      \"role\": \"system\",\n      \"content\": \"You are an autonomous programmer.\",\n      \"agent\": \"main\",\n      \"message_type\": \"system_prompt\"\n    },\n" +
		"    {\n      \"role\": \"assistant\",\n      \"content\": \"Let me look.\",\n      \"thought\": \"Let me look.\",\n      \"action\": \"ls\",\n      \"agent\": \"main\",\n      \"message_type\": \"action\"\n    }\n  ]\n}\n"
	// Named, it is read by the SWE-agent reader, which refuses it; a
	// directory scan passes it over (not known).
	if f, p, known := DetectKnown([]byte(demo)); f != FormatSteps || p != PresetSWEAgent || known {
		t.Errorf("demonstration: detected %s/%s known %v", f, p, known)
	}
	_, err = Read(strings.NewReader(demo), "simple.traj", "simple", Options{Format: FormatAuto})
	if err == nil || IsStepless(err) || !strings.Contains(err.Error(), `simple.traj:1: not a SWE-agent trajectory: no "trajectory" array, only "history": a SWE-agent demonstration`) {
		t.Errorf("demonstration: %v", err)
	}
	// A document of another "history", or a record on one line (a JSONL
	// line longer than the look, as OpenHands evaluation outputs have), is
	// not one.
	for _, other := range []string{"{\n  \"history\": [\n    {\n      \"step\": 1\n    }\n  ]\n}\n",
		`{"history":[{"role":"user","content":"` + strings.Repeat("x", 70000) + `","agent":"main"}],"instance_id":"a__b-1"}`} {
		if _, p, known := DetectKnown([]byte(other)[:min(len(other), 65536)]); p == PresetSWEAgent || known {
			t.Errorf("another history %.40q: detected %q known %v", other, p, known)
		}
	}

	ev := func(id int, src, body string) string {
		return `{"id":` + strconv.Itoa(id) + `,"timestamp":"2025-11-20T10:00:0` + strconv.Itoa(id) + `.000000","source":"` + src + `",` + body + `}`
	}
	resolved := `{"issue":{"owner":"acme","repo":"calc","number":12,"title":"Divide by zero","body":"It crashes.","thread_comments":null,"closing_issues":null,"review_comments":null,"review_threads":null,"thread_ids":null,"head_branch":null,"base_branch":null},"issue_type":"issue","instruction":"Fix it.","base_commit":"0a1b2c3","git_patch":"diff --git a/calc.py b/calc.py\n","history":[` +
		ev(0, "user", `"message":"Fix it.","action":"message","args":{"content":"Fix it.","image_urls":null,"wait_for_response":false}`) + `,` +
		ev(1, "agent", `"message":"Running command: pytest","action":"run","args":{"command":"pytest","is_input":false,"thought":"","blocking":false,"is_static":false,"cwd":null,"hidden":false,"confirmation_state":"confirmed"}`) + `,` +
		ev(2, "agent", `"message":"Command finished","cause":1,"observation":"run","content":"1 failed","extras":{"command":"pytest","metadata":{"exit_code":1,"pid":-1,"username":null,"hostname":null,"working_dir":"/workspace","py_interpreter_path":null,"prefix":"","suffix":""},"hidden":false}`) +
		`],"metrics":{"accumulated_cost":0.1},"success":true,"comment_success":null,"result_explanation":"Fixed.","error":null}`
	old := `{"issue":{"owner":"acme","repo":"calc","number":13,"title":"t","body":"b"},"issue_type":"issue","instruction":"Fix it.","base_commit":"0a1b2c3","git_patch":"","history":[{"action":"run","command":"pytest","thought":"","keep_prompt":true,"is_confirmed":"confirmed","action_risk":null}],"metrics":null,"success":false,"comment_success":null,"result_explanation":"","error":null}`
	log := resolved + "\n" + old + "\n"
	if f, p, known := DetectKnown([]byte(log)); f != FormatSteps || p != PresetOpenHands || !known {
		t.Errorf("resolver output: detected %s/%s known %v", f, p, known)
	}
	eps, err := Read(strings.NewReader(log), "output.jsonl", "output", Options{Format: FormatAuto})
	if err != nil || len(eps) != 1 {
		t.Fatalf("resolver output: %d episodes, %v", len(eps), err)
	}
	ep := eps[0]
	if ep.ID != "acme/calc#12" || ep.Preset != PresetOpenHands || len(ep.Steps) == 0 || ep.Diag.Skipped != 1 ||
		!strings.Contains(strings.Join(ep.Diag.Problems, "|"), `output.jsonl:2: instance acme/calc#13: no step in its history (first: history[0]: an OpenHands 2024 event`) {
		t.Errorf("resolver output: id %q preset %q %d steps, diag %+v", ep.ID, ep.Preset, len(ep.Steps), ep.Diag)
	}
}

// Reading an Aider history as written never panics, and reading it
// trimmed line by line (recordRaw, as a history without trailing spaces
// is) gives the same steps when no line ends with two spaces.
func FuzzAiderDoc(f *testing.F) {
	f.Add([]byte("# aider chat started at x\n> a  \n#### fix  \nreply\n    indented\n> # failed\n\n```\nx\n```\nend  \nreply 2\n"))
	f.Add([]byte("# aider chat started at x\n> a\n#### fix\nreply\n```\n> in fence\n```\n> b  \n> c\nd\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		eps, err := Read(bytes.NewReader(data), ".aider.chat.history.md", "h", Options{Format: PresetAider})
		if err != nil && !errors.Is(err, ErrNoEvents) {
			t.Fatalf("%v", err)
		}
		if bytes.Contains(data, []byte("  \n")) || bytes.Contains(data, []byte("\r")) || bytes.HasSuffix(data, []byte("  ")) {
			return
		}
		r := &aiderReader{}
		var want []string
		for _, line := range bytes.Split(data, []byte("\n")) {
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			recs, _ := r.recordRaw(line, 0)
			for _, rec := range recs {
				want = append(want, rec.output)
			}
		}
		for _, rec := range r.finish() {
			want = append(want, rec.output)
		}
		var got []string
		for _, ep := range eps {
			for i := range ep.Turns {
				got = append(got, ep.Str(ep.Outputs[i]))
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%d steps as written, %d trimmed", len(got), len(want))
		}
	})
}

// TestClaudeCodeNotStepsLeavesMessages: recordRaw asks claudeCodeNotSteps
// only of a record that is neither user nor assistant, which reads as
// asking it first only while the map holds neither (FuzzClaudeCodeRaw's
// reference asks it first).
func TestClaudeCodeNotStepsLeavesMessages(t *testing.T) {
	for _, typ := range []string{"user", "assistant"} {
		if claudeCodeNotSteps[typ] {
			t.Errorf("claudeCodeNotSteps holds %q", typ)
		}
	}
}
