package replay

import "strings"

// clineTagOf is the tag of the tool named name (one of clineToolNames):
// a switch the compiler writes as a search by length, then by bytes,
// where a map hashed each name (a tag is looked up at each '<' of a
// message's text that closes with a '>'). TestClineTagOf holds it to
// that map, built from clineToolNames (clineTags, the test's).
func clineTagOf(name string) (clineTag, bool) {
	switch name {
	case "execute_command":
		return clineTag{"execute_command", "</execute_command>"}, true
	case "read_file":
		return clineTag{"read_file", "</read_file>"}, true
	case "write_to_file":
		return clineTag{"write_to_file", "</write_to_file>"}, true
	case "replace_in_file":
		return clineTag{"replace_in_file", "</replace_in_file>"}, true
	case "search_files":
		return clineTag{"search_files", "</search_files>"}, true
	case "list_files":
		return clineTag{"list_files", "</list_files>"}, true
	case "list_code_definition_names":
		return clineTag{"list_code_definition_names", "</list_code_definition_names>"}, true
	case "browser_action":
		return clineTag{"browser_action", "</browser_action>"}, true
	case "use_mcp_tool":
		return clineTag{"use_mcp_tool", "</use_mcp_tool>"}, true
	case "access_mcp_resource":
		return clineTag{"access_mcp_resource", "</access_mcp_resource>"}, true
	case "ask_followup_question":
		return clineTag{"ask_followup_question", "</ask_followup_question>"}, true
	case "plan_mode_respond":
		return clineTag{"plan_mode_respond", "</plan_mode_respond>"}, true
	case "load_mcp_documentation":
		return clineTag{"load_mcp_documentation", "</load_mcp_documentation>"}, true
	case "attempt_completion":
		return clineTag{"attempt_completion", "</attempt_completion>"}, true
	case "new_task":
		return clineTag{"new_task", "</new_task>"}, true
	case "condense":
		return clineTag{"condense", "</condense>"}, true
	case "summarize_task":
		return clineTag{"summarize_task", "</summarize_task>"}, true
	case "report_bug":
		return clineTag{"report_bug", "</report_bug>"}, true
	case "new_rule":
		return clineTag{"new_rule", "</new_rule>"}, true
	case "web_fetch":
		return clineTag{"web_fetch", "</web_fetch>"}, true
	case "web_search":
		return clineTag{"web_search", "</web_search>"}, true
	case "focus_chain":
		return clineTag{"focus_chain", "</focus_chain>"}, true
	case "apply_diff":
		return clineTag{"apply_diff", "</apply_diff>"}, true
	case "insert_content":
		return clineTag{"insert_content", "</insert_content>"}, true
	case "search_and_replace":
		return clineTag{"search_and_replace", "</search_and_replace>"}, true
	case "codebase_search":
		return clineTag{"codebase_search", "</codebase_search>"}, true
	case "switch_mode":
		return clineTag{"switch_mode", "</switch_mode>"}, true
	case "fetch_instructions":
		return clineTag{"fetch_instructions", "</fetch_instructions>"}, true
	case "update_todo_list":
		return clineTag{"update_todo_list", "</update_todo_list>"}, true
	case "run_slash_command":
		return clineTag{"run_slash_command", "</run_slash_command>"}, true
	case "generate_image":
		return clineTag{"generate_image", "</generate_image>"}, true
	}
	return clineTag{}, false
}

// indexTag is strings.Index(s, tag) for a closing tag ("</name>"): the
// '<'s of s are found by IndexByte and each read for the tag, where
// Index, past a few '<' that are not the tag's (a tool use's params open
// and close many), compares the tag at every byte of the rest.
func indexTag(s, tag string) int {
	for from := 0; ; {
		i := strings.IndexByte(s[from:], '<')
		if i < 0 {
			return -1
		}
		i += from
		if len(s)-i >= len(tag) && s[i+1] == tag[1] && s[i+2:i+len(tag)] == tag[2:] {
			return i
		}
		from = i + 1
	}
}
