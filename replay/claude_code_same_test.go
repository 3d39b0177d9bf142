package replay

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// claudeCodeRunCases are sessions whose records' runs (the members after
// the first, up to a type, message or uuid) repeat, or nearly.
var claudeCodeRunCases = [][]string{
	{
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","sessionId":"3f1c2a9e-7b4d-4e21-9c55-0a8e6d2f1b37","version":"2.0.61","gitBranch":"main","type":"user","message":{"role":"user","content":"The divide test fails. Fix it."},"uuid":"c0000000-0000-4000-8000-000000000001","timestamp":"2026-11-20T10:00:03.000Z"}`,
		`{"parentUuid":"c0000000-0000-4000-8000-000000000001","isSidechain":false,"userType":"external","cwd":"/home/dev/calc","sessionId":"3f1c2a9e-7b4d-4e21-9c55-0a8e6d2f1b37","version":"2.0.61","gitBranch":"main","type":"assistant","message":{"id":"msg_01","content":[{"type":"text","text":"ok"}]},"requestId":"req_01","uuid":"c0000000-0000-4000-8000-000000000002","timestamp":"2026-11-20T10:00:06.000Z"}`,
		`{"parentUuid":"c0000000-0000-4000-8000-000000000002","isSidechain":false,"userType":"external","cwd":"/home/dev/calc","sessionId":"3f1c2a9e-7b4d-4e21-9c55-0a8e6d2f1b37","version":"2.0.61","gitBranch":"main","type":"system","subtype":"informational","content":"Tip","isMeta":false,"level":"info","uuid":"c0000000-0000-4000-8000-000000000003"}`,
		`{"type":"summary","summary":"Fix failing calculator test","leafUuid":"c0000000-0000-4000-8000-000000000020"}`,
		`{"parentUuid":"c0000000-0000-4000-8000-000000000003","isSidechain":false,"userType":"external","cwd":"/home/dev/calc","sessionId":"3f1c2a9e-7b4d-4e21-9c55-0a8e6d2f1b37","version":"2.0.61","gitBranch":"main","type":"user","message":{"content":"a"},"uuid":"u"}`,
	},
	// Runs holding the members read, of each type; a run that changes in
	// a value's last byte, in a member read, or in its white space; runs
	// ended by message and by uuid.
	{
		`{"parentUuid":null,"isSidechain":true,"isMeta":true,"cwd":"/a/b/c/d/e","isCompactSummary":false,"type":"user","message":{"content":"a"},"uuid":"u1"}`,
		`{"parentUuid":"u1","isSidechain":true,"isMeta":true,"cwd":"/a/b/c/d/e","isCompactSummary":false,"type":"user","message":{"content":"b"},"uuid":"u2"}`,
		`{"parentUuid":"u2","isSidechain":true,"isMeta":true,"cwd":"/a/b/c/d/f","isCompactSummary":false,"type":"user","message":{"content":"b"},"uuid":"u3"}`,
		`{"parentUuid":"u3","isSidechain":false,"isMeta":true,"cwd":"/a/b/c/d/f","isCompactSummary":false,"type":"user","message":{"content":"b"},"uuid":"u4"}`,
		`{"parentUuid":"u3","isSidechain":false,"isMeta":true,"cwd":"/a/b/c/d/f","isCompactSummary":false,"type":"user","message":{"content":"b"},"uuid":"u4"}`,
		`{"parentUuid":"u3", "isSidechain":false,"isMeta":true,"cwd":"/a/b/c/d/f","isCompactSummary":false,"type":"user","message":{"content":"b"},"uuid":"u4"}`,
		`{"parentUuid":"u3","isSidechain":false,"isMeta":true,"cwd":"/a/b/c/d/f","isCompactSummary":false, "type":"user","message":{"content":"b"},"uuid":"u4"}`,
		`{"parentUuid":"u3","isSidechain":false,"isMeta":true,"cwd":"/a/b/c/d/f","isCompactSummary":false,"message":{"content":"b"},"type":"user","uuid":"u4"}`,
		`{"parentUuid":"u3","isSidechain":false,"isMeta":true,"cwd":"/a/b/c/d/f","isCompactSummary":false,"uuid":"u5","type":"user","message":{"content":"b"}}`,
		`{"parentUuid":"u3","isSidechain":false,"isMeta":true,"cwd":"/a/b/c/d/f","isCompactSummary":false,"uuid":"u5","type":"user","message":{"content":"b"}}`,
	},
	// A run of other values' kinds, nested; a record that is not valid
	// or not read after it, through the run or after it.
	{
		`{"a":1,"n":[1,2.5,-3e2,true,null,{"x":{"y":[{}]}}],"o":{"isMeta":1},"version":{"a":1},"type":"user","message":{"content":"a"}}`,
		`{"b":2,"n":[1,2.5,-3e2,true,null,{"x":{"y":[{}]}}],"o":{"isMeta":1},"version":{"a":1},"type":"user","message":{"content":"a"}}`,
		`{"b":2,"n":[1,2.5,-3e2,true,null,{"x":{"y":[{}]}}],"o":{"isMeta":1},"version":{"a":1},"type":"user","message":{"content":"a"},}`,
		`{"b":2,"n":[1,2.5,-3e2,true,null,{"x":{"y":[{}]}}],"o":{"isMeta":1},"version":{"a":1},"type":NaN}`,
		`{"b":2,"n":[1,2.5,-3e2,true,null,{"x":{"y":[{}]}}],"o":{"isMeta":1},"version":{"a":1},"type"`,
		`{"b":2,"n":[1,2.5,-3e2,true,null,{"x":{"y":[{}]}}],"o":{"isMeta":1},"version":{"a":1},"typ\u0065":"user"}`,
		`{"b":2,"n":[1,2.5,-3e2,true,null,{"x":{"y":[{}]}}],"o":{"isMeta":1},"version":{"a":1}}`,
		`{"b":2,"n":[1,2.5,-3e2,true,null,{"x":{"y":[{}]}}],"o":{"isMeta":1},"version":{"a":1},"type":"user","message":{"content":"a"}}`,
		`{"b":2,"n":[1,2.5,-3e2,true,null,{"x":{"y":[{}]}}],"o":{"isMeta":1},"version":{"a":1},"type":"user","message":{"content":"a"}}`,
	},
	// Flags written null or of another type; names of a flag's length
	// that are not read.
	{
		`{"p":1,"isSidechain":null,"isMeta":1,"isCompactSummary":true,"cwd":"/x","type":"user","message":{"content":"a"}}`,
		`{"p":2,"isSidechain":null,"isMeta":1,"isCompactSummary":true,"cwd":"/x","type":"user","message":{"content":"a"}}`,
		`{"p":2,"isSidechaim":true,"isMetb":false,"isCompactSummarz":true,"cwd":"/x","type":"user","message":{"content":"a"}}`,
		`{"p":3,"isSidechaim":true,"isMetb":false,"isCompactSummarz":true,"cwd":"/x","type":"user","message":{"content":"a"}}`,
		`{"p":3,"isSidechain":"yes","isMeta":false,"isCompactSummary":null,"cwd":"/x","type":"user","message":{"content":"a"}}`,
		`{"p":4,"isSidechain":"yes","isMeta":false,"isCompactSummary":null,"cwd":"/x","type":"user","message":{"content":"a"}}`,
	},
	// Records chained by parentUuid (claudeCodeParent), the last uuid
	// read, then written with a byte more, an escape after it, a byte
	// changed in each of its words (a quote in each, which is not
	// valid), another key of its length, white space, a record that
	// ends after it and one cut there.
	{
		`{"parentUuid":null,"type":"user","message":{"content":"a"},"uuid":"c0000000-0000-4000-8000-000000000001"}`,
		`{"parentUuid":"c0000000-0000-4000-8000-000000000001","type":"user","message":{"content":"a"},"uuid":"c0000000-0000-4000-8000-000000000002"}`,
		`{"parentUuid":"c0000000-0000-4000-8000-000000000002x","type":"user","message":{"content":"a"},"uuid":"c0000000-0000-4000-8000-000000000002"}`,
		`{"parentUuid":"c0000000-0000-4000-8000-000000000002\n","type":"user","message":{"content":"a"},"uuid":"c0000000-0000-4000-8000-000000000002"}`,
		`{"parentUuid":"d0000000-0000-4000-8000-000000000002","type":"user","message":{"content":"a"},"uuid":"c0000000-0000-4000-8000-000000000002"}`,
		`{"parentUuid":"c00"0000-0000-4000-8000-000000000002","type":"user","message":{"content":"a"},"uuid":"c0000000-0000-4000-8000-000000000002"}`,
		`{"parentUuid":"c0000000-00"0-4000-8000-000000000002","type":"user","message":{"content":"a"},"uuid":"c0000000-0000-4000-8000-000000000002"}`,
		`{"parentUuid":"c0000000-0000-4000-"000-000000000002","type":"user","message":{"content":"a"},"uuid":"c0000000-0000-4000-8000-000000000002"}`,
		`{"parentUuid":"c0000000-0000-4000-8000-000"00000002","type":"user","message":{"content":"a"},"uuid":"c0000000-0000-4000-8000-000000000002"}`,
		`{"parentUuid":"c0000000-0000-4000-8000-0000000000"2","type":"user","message":{"content":"a"},"uuid":"c0000000-0000-4000-8000-000000000002"}`,
		`{"parentUuid":"c0000000-1000-4000-8000-000000000002","type":"user","message":{"content":"a"},"uuid":"c0000000-0000-4000-8000-000000000002"}`,
		`{"parentUuid":"c0000000-0000-4000-9000-000000000002","type":"user","message":{"content":"a"},"uuid":"c0000000-0000-4000-8000-000000000002"}`,
		`{"parentUuid":"c0000000-0000-4000-8000-100000000002","type":"user","message":{"content":"a"},"uuid":"c0000000-0000-4000-8000-000000000002"}`,
		`{"parentUuid":"c0000000-0000-4000-8000-000000000003","type":"user","message":{"content":"a"},"uuid":"c0000000-0000-4000-8000-000000000002"}`,
		`{"parentUuix":"c0000000-0000-4000-8000-000000000002","type":"user","message":{"content":"a"},"uuid":"c0000000-0000-4000-8000-000000000002"}`,
		`{"parentUuid": "c0000000-0000-4000-8000-000000000002","type":"user","message":{"content":"a"},"uuid":"c0000000-0000-4000-8000-000000000002"}`,
		`{"parentUuid":"c0000000-0000-4000-8000-000000000002" ,"type":"user","message":{"content":"a"},"uuid":"c0000000-0000-4000-8000-000000000002"}`,
		`{"parentUuid":"c0000000-0000-4000-8000-000000000002"}`,
		`{"parentUuid":"c0000000-0000-4000-8000-000000000002",}`,
		`{"parentUuid":"c0000000-0000-4000-8000-000000000002"`,
		`{"parentUuid":"c0000000-0000-4000-8000-000000000002","isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{"content":"a"},"uuid":"c0000000-0000-4000-8000-000000000003"}`,
		`{"parentUuid":"c0000000-0000-4000-8000-000000000003","isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{"content":"a"},"uuid":"c0000000-0000-4000-8000-000000000004"}`,
	},
	// Messages' tails (claude_code_msg.go): kept, then repeated, changed
	// in a byte, in a nested value, in white space, holding a member
	// read, not valid, not closing the message, cut, followed by more;
	// after a content of each kind; too short to keep.
	{
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a"}],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":20}},"uuid":"u1"}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"b"}],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":20}},"uuid":"u2"}`,
		`{"type":"assistant","message":{"role":"assistant","content":"c","stop_reason":null,"usage":{"input_tokens":10,"output_tokens":20}},"uuid":"u3"}`,
		`{"type":"assistant","message":{"role":"assistant","content":{"a":1},"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":20}}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":21}},"uuid":"u4"}`,
		`{"type":"assistant","message":{"role":"assistant","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":21}},"uuid":"u5"}`,
		`{"type":"assistant","message":{"role":"assistant","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":21}}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":21}},"message":{"content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":21}}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":21} }}`,
		`{"type":"assistant","message":{"role":"assistant","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":21}},"uuid":"u6"}`,
		`{"type":"assistant","message":{"role":"assistant","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":21},"role":"x"},"uuid":"u7"}`,
		`{"type":"assistant","message":{"role":"assistant","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":21}},"uuid":"u8"}`,
		`{"type":"assistant","message":{"role":"assistant","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":21},"content":"x"},"uuid":"u9"}`,
		`{"type":"assistant","message":{"role":"assistant","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":21}},"uuid":"u10"}`,
		`{"type":"assistant","message":{"role":"assistant","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":21}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":21}}}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":21}},}`,
		`{"type":"assistant","message":{"role":"assistant","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":21}},"uuid":"u11","x":[1,{"a":2}]}`,
		`{"type":"assistant","message":{"role":"assistant","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":21}},"x":{"content":"x","role":"y"},"y":{"content":5}}`,
		`{"type":"user","message":{"content":"a","x":[}`,
		`{"x":{"content":5,"role":1},"type":"user","message":{"content":"b"}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[] ,"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":21}},"uuid":"u12"}`,
		`{"type":"assistant","message":{"role":"assistant","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":NaN}},"uuid":"u13"}`,
		`{"type":"assistant","message":{"role":"assistant","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":NaN}},"uuid":"u14"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]},"uuid":"u15"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}],"x":1},"uuid":"u16"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}],"x":1},"uuid":"u17"}`,
	},
	// Messages' heads (claude_code_msg.go): kept, then repeated, changed
	// in its role, in a byte, in white space; with no role, two roles, a
	// role of another type; after a first member of each kind, content
	// among them; a head not followed by a content, cut, not valid.
	{
		`{"type":"assistant","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"a"}]},"uuid":"u1"}`,
		`{"type":"assistant","message":{"id":"msg_02","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"b"}]},"uuid":"u2"}`,
		`{"type":"assistant","message":{"id":"msg_02","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":"c"}}`,
		`{"type":"assistant","message":{"id":"msg_02","type":"message","role":"assistanu","model":"claude-sonnet-4-5","content":"c"}}`,
		`{"type":"assistant","message":{"id":"msg_03","type":"message","role":"assistanu","model":"claude-sonnet-4-5","content":"c"}}`,
		`{"type":"assistant","message":{"id":"msg_03","type":"message","role":"assistanu","model":"claude-sonnet-4-6","content":"c"}}`,
		`{"type":"assistant","message":{"id":"msg_03","type":"message","role":"assistanu","model":"claude-sonnet-4-6", "content":"c"}}`,
		`{"type":"assistant","message":{"id":"msg_03","type":"message","role":"assistanu","model":"claude-sonnet-4-6", "content":"c"}}`,
		`{"type":"assistant","message":{"id":"msg_03","type":"message","model":"claude-sonnet-4-6","content":"c"}}`,
		`{"type":"assistant","message":{"id":"msg_04","type":"message","model":"claude-sonnet-4-6","content":"c"}}`,
		`{"type":"assistant","message":{"id":"msg_04","role":"a","type":"message","role":"b","content":"c"}}`,
		`{"type":"assistant","message":{"id":"msg_04","role":"a","type":"message","role":"b","content":"c"}}`,
		`{"type":"assistant","message":{"id":"msg_04","role":1,"type":"message","role":"b","content":"c"}}`,
		`{"type":"assistant","message":{"role":"x","role":"a","type":"message","role":"b","content":"c"}}`,
		`{"type":"assistant","message":{"role":"x","type":"message","role":"b","model":"m","content":"c"}}`,
		`{"type":"assistant","message":{"role":"x","type":"message","role":"b","model":"m","content":"c"}}`,
		`{"type":"assistant","message":{"content":"x","type":"message","role":"b","model":"m","content":"c"}}`,
		`{"type":"assistant","message":{"content":[1],"type":"message","role":"b","model":"m","content":"c"}}`,
		`{"type":"assistant","message":{"content":[1],"type":"message","role":"b","model":"m","content":"c","role":"z"}}`,
		`{"type":"assistant","message":{"content":[1],"type":"message","role":"b","model":"m","content":[2]}}`,
		`{"type":"assistant","message":{"id":{"a":[1]},"type":"message","role":"b","model":"m","content":"c"}}`,
		`{"type":"assistant","message":{"id":"x","type":"message","role":"b","model":"m","content"}}`,
		`{"type":"assistant","message":{"id":"x","type":"message","role":"b","model":"m","contents":"c"}}`,
		`{"type":"assistant","message":{"id":"x","type":"message","role":"b","model":"m",`,
		`{"type":"assistant","message":{"id":"x","type":"message","role":"b","model":"m","}`,
		`{"type":"assistant","message":{"id":"x","type":"message","role":"b","model":"m","content":"c"}}`,
		`{"type":"assistant","message":{"id":"x","type":"message","role":"b","model":"m",}}`,
		`{"type":"assistant","message":{"id":"x","type":"message","role":"b","model":"m","content":"c"}}`,
		`{"type":"assistant","message":{"id":"x","type":"message","role":"b","model":"m","x":{"content":"d"}}}`,
	},
	// Records of a user and an assistant after a run passed over, their
	// type and message's opening read by readTop's typed
	// (claude_code_typed.go): repeated, with the role's, the id's or the
	// content's value of each kind, changed in a byte, in white space,
	// cut, not valid, escaped, long, followed by more members read.
	{
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{"role":"user","content":"a"},"uuid":"u1"}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{"role":"user","content":"a"},"uuid":"u1"}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{"role":"user","content": "a"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{"role":"user","content":\t[{"type":"text","text":"x"}]}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{"role":"user","content":[{"type":"text","text":"x"}],"stop":null,"usage":{"a":1,"b":2}}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{"role":"user","content":[{"type":"text","text":"y"}],"stop":null,"usage":{"a":1,"b":2}}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{"role":"user","content":{"a":1}}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{"role":"user","content":5}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{"role":"user","content":}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{"role":"user","content":`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{"role":"user","content":"a"`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{"role":"user","content":"a","role":"x"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{"role":"user","content":"a","content":[1]}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{"role":"users","content":"a"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{"role":"user" ,"content":"a"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{"role":"user","contents":"a"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{ "role":"user","content":"a"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{"role":"user","content":"a"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{},"isMeta":true,"uuid":"u1"}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{},"requestId":"r","uuid":"u2"}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{ }}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{"content":"a"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"usex","message":{"role":"user","content":"a"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user" ,"message":{"role":"user","content":"a"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":null}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","messagf":{"role":"user","content":"a"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{"role":"user","content":"a"},"type":"assistant"}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"user","message":{"role":"user","content":"a"},"message":{"id":"x","content":"b"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"a"}],"stop_reason":null,"usage":{"input_tokens":10}},"requestId":"req_01","uuid":"u2"}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"id":"msg_02","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"b"}],"stop_reason":null,"usage":{"input_tokens":10}},"requestId":"req_01","uuid":"u3"}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"id":"msg_02","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":"c"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"id":"msg_0\"2","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":"c"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"id":"msg_0\n2","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":"c"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"id":"msg_0
2","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":"c"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"id":"msg_0é2","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":"c"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"id":"msg_0123456789012345678901234567890123456789","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":"c"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"id":"msg_012345678901234567890123456789012345","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":"c"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"id":"","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":"c"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"id":"x" ,"type":"message","role":"assistant","model":"claude-sonnet-4-5","content":"c"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"id":"x", "type":"message","role":"assistant","model":"claude-sonnet-4-5","content":"c"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"id":"x",}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"id":"x":"type":"message","role":"assistant","model":"claude-sonnet-4-5","content":"c"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"id":"x","content":"c"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"id":"x"},"uuid":"u4","timestamp":"2026-11-20T10:00:06.000Z"}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"id":"x"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"id":"x"`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"id":"x`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"id":1,"content":"c"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"id":["x"],"content":"c"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"ids":"x","content":"c"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"role":"assistant","content":"c"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"id":"msg_02","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":"c"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistanu","message":{"id":"msg_02","content":"c"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message" :{"id":"msg_02","content":"c"}}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":[{"id":"msg_02","content":"c"}]}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","type":"assistant","message":{"id":"msg_02","content":"c"},"message":{"role":"user","content":"d"}}`,
	},
	// More members read than a run keeps; a run too short to keep.
	{
		`{"p":1,"isMeta":true,"isMeta":false,"isSidechain":true,"isMeta":true,"isCompactSummary":true,"type":"user","message":{"content":"a"}}`,
		`{"p":2,"isMeta":true,"isMeta":false,"isSidechain":true,"isMeta":true,"isCompactSummary":true,"type":"user","message":{"content":"a"}}`,
		`{"p":2,"isMeta":true,"type":"user","message":{"content":"a"}}`,
		`{"p":3,"isMeta":true,"type":"user","message":{"content":"a"}}`,
	},
}

// TestClaudeCodeRun: a reader that read a session's records reads each
// as a reader that read none does (checkClaudeCodeRun); and runs and
// messages' tails were passed over.
func TestClaudeCodeRun(t *testing.T) {
	passed, tails := 0, 0
	add := func(p, tl int) { passed, tails = passed+p, tails+tl }
	for _, recs := range claudeCodeRunCases {
		add(checkClaudeCodeRun(t, recs))
	}
	// Every pair of the top level's cases, in both orders.
	for _, a := range claudeCodeTopCases {
		for _, b := range claudeCodeTopCases {
			add(checkClaudeCodeRun(t, []string{a.rec, b.rec, b.rec}))
		}
	}
	if passed < 20 {
		t.Errorf("%d runs passed over, want 20 or more", passed)
	}
	if tails < 20 {
		t.Errorf("%d messages' tails passed over, want 20 or more", tails)
	}
}

// FuzzClaudeCodeRun: whatever two records, the second is read after the
// first as it is alone.
func FuzzClaudeCodeRun(f *testing.F) {
	for _, recs := range claudeCodeRunCases {
		for k := 1; k < len(recs); k++ {
			f.Add(recs[k-1], recs[k])
		}
	}
	f.Fuzz(func(t *testing.T, a, b string) { checkClaudeCodeRun(t, []string{a, b, b}) })
}

// checkClaudeCodeRun reads recs in order with one reader, each as a new
// reader reads it alone: whether readTop reads it, what it reads, each
// view at the same place, and the message's index. It says how many
// runs the reader passed over.
func checkClaudeCodeRun(t *testing.T, recs []string) (passed, tails int) {
	t.Helper()
	c := &claudeCodeReader{}
	for _, rec := range recs {
		raw := []byte(rec)
		before, tail := string(c.run.bytes), string(c.msg.tail)
		// Hinted at its last uuid string, as the reader's next
		// record's where Claude Code writes it.
		if at := bytes.LastIndex(raw, []byte(`"uuid":"`)); at >= 0 {
			hintUUID(c, raw, at+7)
		} else {
			hintUUID(c, raw, -1)
		}
		var got claudeCodeTop
		fast := c.readTop(raw, &got)
		if before != "" && strings.Contains(rec, before) && string(c.run.bytes) == before {
			passed++
		}
		if tail != "" && strings.Contains(rec, tail) && string(c.msg.tail) == tail {
			tails++
		}
		ref := &claudeCodeReader{}
		var want claudeCodeTop
		if refFast := ref.readTop(raw, &want); fast != refFast {
			t.Fatalf("%q after %q: read %v, alone %v", rec, recs, fast, refFast)
		}
		if !fast {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q after %q: read %+v, alone %+v", rec, recs, got, want)
		}
		for _, v := range [][2]rawValue{{got.msg, want.msg}, {got.uuidVal, want.uuidVal}} {
			if v[0] != nil && offsetIn(raw, v[0]) != offsetIn(raw, v[1]) {
				t.Fatalf("%q: %q read at %d, alone at %d", rec, v[0], offsetIn(raw, v[0]), offsetIn(raw, v[1]))
			}
		}
		if got.hasMessage {
			checkMsgReads(t, rec, raw, c, c.msg.reads[:c.msg.n], ref, ref.msg.reads[:ref.msg.n])
		}
	}
	return passed, tails
}

// TestClaudeCodeParentHead: the words readTop compares a record's first
// bytes with are {"parentUuid":" (without which no record is passed by
// claudeCodeParent, and no test fails), and those it compares the
// member after a hinted uuid with ,"timestamp":".
func TestClaudeCodeParentHead(t *testing.T) {
	head := []byte(`{"parentUuid":"`)
	if word(head, 0) != parentHead0 || word(head, 7) != parentHead1 {
		t.Errorf("parentHead0, parentHead1 = %#x, %#x; want %#x, %#x", parentHead0, parentHead1, word(head, 0), word(head, 7))
	}
	ts := []byte(`,"timestamp":"`)
	if word(ts, 0) != timestampHead0 || word(ts, 6) != timestampHead1 {
		t.Errorf("timestampHead0, timestampHead1 = %#x, %#x; want %#x, %#x", timestampHead0, timestampHead1, word(ts, 0), word(ts, 6))
	}
}
