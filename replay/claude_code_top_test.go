package replay

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// claudeCodeTopCases are records and whether readTop reads them.
var claudeCodeTopCases = []struct {
	rec  string
	fast bool
}{
	{`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/calc","sessionId":"3f1c2a9e-7b4d-4e21-9c55-0a8e6d2f1b37","version":"2.0.61","gitBranch":"main","type":"user","message":{"role":"user","content":"The divide test fails. Fix it."},"uuid":"c0000000-0000-4000-8000-000000000001","timestamp":"2026-11-20T10:00:03.000Z"}`, true},
	{`{"parentUuid":"c0000000-0000-4000-8000-000000000002","isSidechain":false,"type":"assistant","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"go test ./...","description":"Run the tests"}}],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":20}},"requestId":"req_01","uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, true},
	{`{"parentUuid":"c0000000-0000-4000-8000-000000000003","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01","type":"tool_result","content":"--- FAIL: TestDivide (0.00s)\n    calc_test.go:12: Divide(1, 0): want error\nFAIL","is_error":true}]},"toolUseResult":{"stdout":"--- FAIL","stderr":"","interrupted":false,"isImage":false,"file":{"filePath":"/a/b.go","numLines":[1,2.5,-3e2]}},"uuid":"c0000000-0000-4000-8000-000000000004","timestamp":"2026-11-20T10:00:12.000Z"}`, true},
	{`{"type":"summary","summary":"Fix failing calculator test","leafUuid":"c0000000-0000-4000-8000-000000000020"}`, true},
	{`{"parentUuid":"c0","isSidechain":false,"type":"system","subtype":"informational","content":"Tip: press Esc to interrupt","isMeta":false,"level":"info","uuid":"c0000000-0000-4000-8000-000000000018"}`, true},
	{`{"type":"file-history-snapshot","messageId":"c1","snapshot":{"messageId":"c1","trackedFileBackups":{},"timestamp":"2026-11-20T10:00:03.000Z"},"isSnapshotUpdate":false}`, true},
	{`{"type":"user","isCompactSummary":true,"isMeta":null,"message":{"content":[{"type":"text","text":"Summary"}]},"uuid":"u4"}`, true},
	{`{"type":"user","isSidechain":true,"message":{"content":"x"},"uuid":"3F2B6C1E-9A4D-4E8B-B1C2-0D9E8F7A6B5C"}`, true},
	// A message followed by the member Claude Code writes after it
	// (readTop's closed): a requestId of each length and kind, escaped,
	// with white space, cut, last, not valid; a toolUseResult of each
	// kind, with white space, cut, not valid; keys of their lengths; a
	// message that is the first member, empty, written twice.
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestId":"req_01","uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, true},
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestId":"req_01" ,"uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, true},
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestId":"req_01", "uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, true},
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestId":"req_01"                                        }`, true},
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestId":"req_01"                                         }`, true},
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestId":"req_0123456789012345678901234567890123456789","uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, true},
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestId":"req_01234567890123456789012345678901234","uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, true},
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestId":"","uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, true},
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestId":"req\"01","uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, true},
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestId":"req\u0030","uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, true},
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestId":"req
01","uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, false},
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestId":"ré","uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, true},
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestId":1,"uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, true},
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestId":"r",                                        }`, false},
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestId":"r","uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"`, false},
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestId":"r","uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}}`, false},
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestId":"rxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx`, false},
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestId":"                                        `, false},
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestId":"req_01":"uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, false},
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestId":"req_01"}"uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, false},
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestIdx":"r","uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, true},
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestId":"r","message":{"content":"d"},"type":"user","uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, true},
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestId":"r","message":null,"uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, true},
	{`{"type":"assistant","message":{"id":"m","content":"c"},"requestId":"r","type":1,"uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, true},
	{`{"type":"assistant","message":{"id":"m","content":"c"} ,"requestId":"r","uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, true},
	{`{"type":"user","message":{"role":"user","content":"c"},"toolUseResult":"out","uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, true},
	{`{"type":"user","message":{"role":"user","content":"c"},"toolUseResult":"a long output of more than forty bytes, \n with escapes","uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, true},
	{`{"type":"user","message":{"role":"user","content":"c"},"toolUseResult":[{"type":"text","text":"x"}],"uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, true},
	{`{"type":"user","message":{"role":"user","content":"c"},"toolUseResult":{"stdout":"x","file":{"n":[1,2.5,-3e2,true,null]}},"uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, true},
	{`{"type":"user","message":{"role":"user","content":"c"},"toolUseResult": "out","uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, true},
	{`{"type":"user","message":{"role":"user","content":"c"},"toolUseResult":	"out"}`, true},
	{`{"type":"user","message":{"role":"user","content":"c"},"toolUseResult":5}`, true},
	{`{"type":"user","message":{"role":"user","content":"c"},"toolUseResult":NaN}`, false},
	{`{"type":"user","message":{"role":"user","content":"c"},"toolUseResult":}`, false},
	{`{"type":"user","message":{"role":"user","content":"c"},"toolUseResult":`, false},
	{`{"type":"user","message":{"role":"user","content":"c"},"toolUseResult":"o`, false},
	{`{"type":"user","message":{"role":"user","content":"c"},"toolUseResult" :"out"}`, true},
	{`{"type":"user","message":{"role":"user","content":"c"},"toolUseResulx":"out"}`, true},
	{`{"type":"user","message":{"role":"user","content":"c"},"toolUseResult":"out","message":{"role":"user","content":"d"}}`, true},
	{`{"message":{"content":"c"},"requestId":"r","type":"assistant","uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, true},
	{`{"message":{"content":"c"},"toolUseResult":"r","isSidechain":true,"isMeta":true,"cwd":"/home/dev/calc","type":"user"}`, true},
	{`{"message":{},"requestId":"r","type":"assistant","uuid":"c0000000-0000-4000-8000-000000000003","timestamp":"2026-11-20T10:00:09.000Z"}`, true},
	{`{"type":"user","message":{"content":"c"},"isMeta":true,"message":{"content":"d"},"toolUseResult":"r"}`, true},
	// A uuid string hinted (checkClaudeCodeTop hints each): 36 bytes
	// prefetchUUID parses, then more, an escape, a quote; nested in a
	// value walked and in the message; repeated.
	{`{"type":"user","message":{"content":"x"},"uuid":"c0000000-0000-4000-8000-000000000001x","timestamp":"t"}`, true},
	{`{"type":"user","message":{"content":"x"},"uuid":"c0000000-0000-4000-8000-000000000001\n"}`, true},
	{`{"type":"user","message":{"content":"x"},"uuid":"c0000000-0000-4000-8000-000000000001","uuid":"c0000000-0000-4000-8000-000000000002"}`, true},
	{`{"type":"user","toolUseResult":{"uuid":"c0000000-0000-4000-8000-000000000001"},"message":{"content":"x","uuid":"c0000000-0000-4000-8000-000000000002"},"uuid":"c0000000-0000-4000-8000-000000000003"}`, true},
	{`{"uuid":"c0000000-0000-4000-8000-000000000001"}`, true},
	{`{"type":"user","message":{"content":"x"},"uuid":"c0000000-0000-4000-8000-000000000001","timestamp":"2026-11-20T10:00:03.000Z"}`, true},
	{`{"type":"user","uuid":"c0000000-0000-4000-8000-000000000001","timestamp":"2026-11-20T10:00:03.000Z"}`, true},
	{`{"uuid":"c0000000-0000-4000-8000-000000000001","timestamp":"2026-11-20T10:00:03.000Z"}`, true},
	{`{"type":"user","message":{"content":"x"},"uuid":"c0000000-0000-4000-8000-000000000001","timestamq":"2026-11-20T10:00:03.000Z"}`, true},
	{`{"type":"user","message":{"content":"x"},"uuid":"c0000000-0000-4000-8000-000000000001","timestamp":"2026-11-20T10:00:03.000"}`, true},
	{`{"type":"user","message":{"content":"x"},"uuid":"c0000000-0000-4000-8000-000000000001","timestamp":"2026-11-20T10:00:03.000ZZ"}`, true},
	{`{"type":"user","message":{"content":"x"},"uuid":"c0000000-0000-4000-8000-000000000001","timestamp":"2026-11-20T10:00:03.000" }`, true},
	{`{"type":"user","message":{"content":"x"},"uuid":"c0000000-0000-4000-8000-000000000001","timestamp":"2026-11-20T10:00:03.000Zx}`, false},
	{`{"type":"user","message":{"content":"x"},"uuid":"c0000000-0000-4000-8000-000000000001","timestamp":""026-11-20T10:00:03.000Z"}`, false},
	{`{"type":"user","message":{"content":"x"},"uuid":"c0000000-0000-4000-8000-000000000001","timestamp":"\026-11-20T10:00:03.000Z"}`, false},
	{"{\"type\":\"user\",\"message\":{\"content\":\"x\"},\"uuid\":\"c0000000-0000-4000-8000-000000000001\",\"timestamp\":\"\x01026-11-20T10:00:03.000Z\"}", false},
	{`{"type":"user","message":{"content":"x"},"uuid":"c0000000-0000-4000-8000-000000000001","timestamp":"2026-11-2"T10:00:03.000Z"}`, false},
	{`{"type":"user","message":{"content":"x"},"uuid":"c0000000-0000-4000-8000-000000000001","timestamp":"2026-11-2\T10:00:03.000Z"}`, false},
	{"{\"type\":\"user\",\"message\":{\"content\":\"x\"},\"uuid\":\"c0000000-0000-4000-8000-000000000001\",\"timestamp\":\"2026-11-2\x01T10:00:03.000Z\"}", false},
	{`{"type":"user","message":{"content":"x"},"uuid":"c0000000-0000-4000-8000-000000000001","timestamp":"2026-11-20T10:00:"3.000Z"}`, false},
	{`{"type":"user","message":{"content":"x"},"uuid":"c0000000-0000-4000-8000-000000000001","timestamp":"2026-11-20T10:00:\3.000Z"}`, false},
	{"{\"type\":\"user\",\"message\":{\"content\":\"x\"},\"uuid\":\"c0000000-0000-4000-8000-000000000001\",\"timestamp\":\"2026-11-20T10:00:\x013.000Z\"}", false},
	{`{"type":"user","message":{"content":"x"},"uuid":"c0000000-0000-4000-8000-000000000001","timestamp":"2026-11-20T10:00:03.000""}`, false},
	{`{"type":"user","message":{"content":"x"},"uuid":"c0000000-0000-4000-8000-000000000001","timestamp":"2026-11-20T10:00:03.000\"}`, false},
	{"{\"type\":\"user\",\"message\":{\"content\":\"x\"},\"uuid\":\"c0000000-0000-4000-8000-000000000001\",\"timestamp\":\"2026-11-20T10:00:03.000\x01\"}", false},
	{`{"uuid":"c0000000-0000-4000-8000-000000000001""}`, false},
	{`{"uuid":"c0000000-0000-4000-8000-000000000001`, false},
	{`{}`, true},
	{`{ }`, true},
	{`{"type":"assistant"}`, true},
	// White space, numbers, literals, empty and nested values passed over.
	{`{ "type" : "user" , "message" : { "content" : "a" } , "uuid" : "u" , "n" : [ 1 , 2 ] , "o" : { } }`, true},
	{"{\"type\":\"user\",\n\t\"message\":{\"content\":\"a\"},\r\n\"x\":{\n}}", true},
	{`{"type":"user","message":{"content":"a"},"n":[-1,0,0.5,-2.5e+10,1E-3,10,true,false,null,{},[],""]}`, true},
	{`{"type":"user","message":{"content":"a"},"x":{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":[1,2,{"j":"k"}]}}}}}}}}}}`, true},
	{`{"type":"user","message":{"content":"a"},"x":"a string of more than forty bytes, with \"escapes\"\n and more"}`, true},
	{`{"type":"user","message":{"content":"a"},"a key of more than sixteen bytes":1,"uuid":"a uuid of more than sixteen bytes"}`, true},
	{"{\"type\":\"user\",\"message\":{\"content\":\"\xff\xfe\"},\"\xe9t\xe9\":\"\xe9\",\"\xff\xfe\xfd\xfc\":1}", true},
	// The last of a repeated name; fields of the wrong type; a message
	// that is not an object (and one that is, then is not).
	{`{"type":"user","uuid":"a","type":"assistant","uuid":"b","message":{"content":"y"}}`, true},
	{`{"type":"user","message":{"content":"y"},"type":"assistant"}`, true},
	{`{"type":"user","message":{"content":"y"},"message":null}`, true},
	{`{"type":"user","message":null,"message":{"content":"y"}}`, true},
	{`{"type":"user","message":"text"}`, true},
	{`{"type":"user","message":["text"]}`, true},
	{`{"type":1,"message":{"content":"y"}}`, true},
	{`{"type":"user","isSidechain":"no","isMeta":1,"uuid":{"a":1},"isCompactSummary":[],"message":{"content":"y"}}`, true},
	{`{"type":"user","message":{"content":5}}`, false},
	// A message's members read by readTop (claude_code_msg.go): role and
	// content of each kind, repeated, in either order, among others, with
	// white space; those it leaves to the whole record's reading.
	{`{"type":"assistant","message":{"id":"msg_01","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"a"}],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":20}},"uuid":"u"}`, true},
	{`{"type":"user","message":{"content":"a","role":"user","rolf":1,"contenu":[1]}}`, true},
	{`{"type":"user","message":{"role":"user","role":"assistant","content":"a","content":"b"}}`, true},
	{`{"type":"user","message":{"content":"a","content":[{"type":"text","text":"b"}],"content":"c"}}`, true},
	{`{"type":"user","message":{"content":{"type":"text"}}}`, true},
	{`{"type":"user","message":{ "role" : "user" , "content" : [ ] , "x" : { "content" : [ ] } }}`, true},
	{`{"type":"user","message":{"x":{"role":1,"content":5},"y":[{"content":{}}]}}`, true},
	{`{"type":"user","message":{}}`, true},
	{`{"type":"user","message":{ }}`, true},
	{`{"type":"user","message":{"content":[],"content":[]}}`, false},
	{`{"type":"user","message":{"content":null}}`, false},
	{`{"type":"user","message":{"role":1,"content":"a"}}`, false},
	{`{"type":"user","message":{"role":null,"content":"a"}}`, false},
	{`{"type":"user","message":{"role":"a","role":"b","role":"c","role":"d","content":"x"}}`, false},
	{`{"type":"user","message":{"content":"a","usage":{"n":NaN}}}`, false},
	{`{"type":"user","message":{"content":[NaN]}}`, false},
	{`{"type":"user","message":{"cont\u0065nt":"a"}}`, false},
	{`{"type":"user","message":{"content":"a",}}`, false},
	{`{"type":"user","message":{"content":"a"]}`, false},
	{`{"type":"user","message":{"content":"a"`, false},
	{`{"type":"user","message":{"content":"a\q"}}`, false},
	{`{"type":"user","message":{"role":"a\q","content":"a"}}`, false},
	// Names of the lengths read that are not read (version: message's).
	{`{"type":"user","version":{"a":1},"cwdx":[1],"messagf":{"content":"z"},"message":{"content":"y"}}`, true},
	// A message written twice: the last read, and indexed.
	{`{"type":"user","message":{"content":"a"},"message":{"content":[{"type":"text","text":"b"}]}}`, true},
	{`{"type":"user","message":{"content":[{"type":"text","text":"b"}]},"message":{"content":"a"}}`, true},
	{`{"type":"user","message":{"content":[{"type":"text","text":"b"}]},"message":null,"message":{"content":[{"type":"text","text":"c"}]},"uuid":"u"}`, true},
	// An escaped key, NaN or an infinity.
	{`{"type":"user","m\u0065ssage":{"content":"a"}}`, false},
	{`{"typ\u0065":"user","message":{"content":"a"}}`, false},
	{`{"type":"user","a key with an \"escape\"":1}`, false},
	{`{"type":"user","message":{"content":"a"},"n":NaN}`, false},
	{`{"type":"user","message":{"content":"a"},"n":-Infinity}`, false},
	{`{"type":"user","message":{"content":"a"},"n":[1,Infinity]}`, false},
	{`{"type":"user","message":{"content":[{"type":"tool_use","input":{"x":NaN}}]}}`, false},
	{`{"type":"user","message":{"content":"a"},"x":{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":[NaN]}}}}}}}}}}`, false},
	{`{"type":"user","message":{"content":"a"},"x":{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":["NaN"]}}}}}}}}}}`, false},
	// Keys told with no call (readTop's key): ending in the first
	// word, the second, a later one (logicalParentUuid), the record's
	// last bytes; their first stop an escape, a control byte, none; a
	// byte over 0x7f; nested; space before the colon.
	{`{"type":"user","thinkingMetadata":{"level":"high","disabled":false},"logicalParentUuid":"u","isVisibleInTranscriptOnly":true}`, true},
	{`{"type":"user","toolUseResult":{"a key of more than twenty-four bytes":{"another one, still longer than that":1}},"uuid":"u"}`, true},
	{`{"type":"user","a key of more than twenty-four bytes, ré, é":1}`, true},
	{`{"type":"user","a key of more than twenty-four \"bytes":1}`, false},
	{`{"type":"user","a key of more than twenty-four bytes\"":1}`, false},
	{"{\"type\":\"user\",\"a key of more than twenty-four\tbytes\":1}", false},
	{`{"type":"user","a key of more than twenty-four bytes" : 1}`, true},
	{`{"a":1}`, true},
	{`{"abcd":1,"e":[]}`, true},
	{`{"type":"user","ab":1}`, true},
	{`{"type":"user","ab" :1}`, true},
	{`{"type":"user","a\"":1}`, false},
	{"{\"type\":\"user\",\"a\x01\":1}", false},
	{`{"type":"user","a\":1}`, false},
	{`{"type":"user","a key of more than twenty-four bytes\":1,"x":2}`, false},
	{`{"type":"user","abcdefghijklmno\":1,"x":2}`, false},
	{`{"type":"user","abcdefghijklmnop":1,"x":2}`, true},
	{`{"type":"user","abcdefghijklmno\:1,"x":2}`, false},
	{`{"type":"user","a key of more than twenty-four bytes\:1,"x":2}`, false},
	{`{"type":"user","a\:1}`, false},
	{`{"type":"user","abcdef}`, false},
	{`{"type":"user","abcdefghijklmnopqrstuvwxyz}`, false},
	{`{"type":"user","é":1}`, true},
	// Not valid JSON, or not a record read here.
	{`{"type":"user","message":{"content":"x"},}`, false},
	{`{"type":"user","message":{"content":"x"}}}`, false},
	{`{"type":"user","message":{"content":"x"}} `, false},
	{` {"type":"user","message":{"content":"x"}}`, false},
	{`{"type":"user","message":{"content":"x"}`, false},
	{`{"type":"user","message":{"content":"x"},"n":01}`, false},
	{`{"type":"user","message":{"content":"x"},"n":1.}`, false},
	{`{"type":"user","message":{"content":"x"},"n":-}`, false},
	{`{"type":"user","message":{"content":"x"},"n":tru}`, false},
	{`{"type":"user","message":{"content":"x"},"n":[1,]}`, false},
	{`{"type":"user","message":{"content":"x"},"n":{"a"}}`, false},
	{`{"type":"user","message":{"content":"x"},"n":{"a":1]}`, false},
	{`{"type":"user","message":{"content":"x"},"n":[1}}`, false},
	{`{"type":"user","message":{"content":"x",}}`, false},
	{"{\"type\":\"user\",\"message\":{\"content\":\"x\x01\"}}", false},
	{`{"type":"user","message":{"content":"x\q"}}`, false},
	{`{"type":"user" "message":{}}`, false},
	{`{"type":"user",1:2}`, false},
	{`{"type"}`, false},
	{`["type"]`, false},
	{`{"type":"user"}{}`, false},
	{`null`, false},
	{`{"type":"user","x":` + strings.Repeat("[", maxNesting-2) + strings.Repeat("]", maxNesting-2) + `}`, false},
	{`{"type":"user","x":` + strings.Repeat("[", maxNesting-1) + strings.Repeat("]", maxNesting-1) + `}`, false},
	{`{"type":"user","message":` + strings.Repeat(`{"a":`, maxNesting-1) + `1` + strings.Repeat("}", maxNesting-1) + `}`, false},
}

// TestClaudeCodeTop: readTop reads a record exactly when the case says
// so, the top level it reads and the message's index as the validating
// pass and the noted members' loop read them (checkClaudeCodeTop).
func TestClaudeCodeTop(t *testing.T) {
	for _, c := range claudeCodeTopCases {
		if fast := checkClaudeCodeTop(t, c.rec); fast != c.fast {
			t.Errorf("%q: readTop read it %v, want %v", c.rec, fast, c.fast)
		}
	}
}

// FuzzClaudeCodeTop: whatever the record, what readTop reads is valid
// JSON with no NaN or infinity, read as readTopIndexed reads it, and the
// reader reads it as the encoding/json reader did.
func FuzzClaudeCodeTop(f *testing.F) {
	for _, c := range claudeCodeTopCases {
		if len(c.rec) < 1000 {
			f.Add(c.rec)
		}
	}
	f.Fuzz(func(t *testing.T, rec string) { checkClaudeCodeTop(t, rec) })
}

// checkClaudeCodeTop: when readTop reads rec, readTopIndexed reads it
// (valid, no NaN nor infinity) into the same claudeCodeTop, each view at
// the same place, and the message's members and content blocks read
// from readTop's index are those read from the record's; and a message,
// rec, rec again and a message after it read as the encoding/json reader
// reads them (rec under 4,096 bytes). fast says readTop read rec.
func checkClaudeCodeTop(t *testing.T, rec string) (fast bool) {
	t.Helper()
	raw := []byte(rec)
	// Read with no uuid hint, then hinted at each "uuid" string, as
	// prefetchUUID hints it where the last record's uuid stood.
	fast = checkClaudeCodeTopHinted(t, raw, -1)
	for at := 0; ; at++ {
		k := bytes.Index(raw[at:], []byte(`"uuid":"`))
		if k < 0 {
			break
		}
		at += k
		if hinted := checkClaudeCodeTopHinted(t, raw, at+7); hinted != fast {
			t.Fatalf("%q: read %v hinted at %d, %v with no hint", rec, hinted, at+7, fast)
		}
	}
	session := `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]},"uuid":"3f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5c"}` + "\n" +
		rec + "\n" + rec + "\n" +
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"a.go"}]},"uuid":"4f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5c"}`
	// The deep records are left out: encoding/json nests deeper than
	// validValue, for either path.
	if !strings.Contains(rec, "\n") && len(rec) < 4096 {
		compareReaders(t, []byte(session), &claudeCodeReaderOld{}, newClaudeCodeReader())
	}
	return fast
}

// hintUUID hints raw's uuid string at (its opening quote; -1: none) as
// recordRaw does before readTop: prefetchUUID, the last record's uuid
// having stood there, counted from the end.
func hintUUID(c *claudeCodeReader, raw []byte, at int) {
	c.uuidFromEnd = 0
	if at >= 0 {
		c.uuidFromEnd = len(raw) - at
	}
	c.prefetchUUID(raw)
}

// checkClaudeCodeTopHinted is checkClaudeCodeTop's reading of raw, the
// uuid string at hint hinted (hintUUID).
func checkClaudeCodeTopHinted(t *testing.T, raw []byte, hint int) (fast bool) {
	t.Helper()
	rec := string(raw)
	c := &claudeCodeReader{}
	hintUUID(c, raw, hint)
	var got claudeCodeTop
	if fast = c.readTop(raw, &got); fast {
		ref := &claudeCodeReader{}
		var want claudeCodeTop
		if why := ref.readTopIndexed(raw, &want); why != "" {
			t.Fatalf("%q: read, but not by readTopIndexed: %s", rec, why)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: read %+v, want %+v", rec, got, want)
		}
		for _, v := range [][2]rawValue{{got.msg, want.msg}, {got.uuidVal, want.uuidVal}} {
			if v[0] != nil && offsetIn(raw, v[0]) != offsetIn(raw, v[1]) {
				t.Fatalf("%q: %q read at %d, want %d", rec, v[0], offsetIn(raw, v[0]), offsetIn(raw, v[1]))
			}
		}
		if got.hasMessage {
			// The role and content readTop read, as the noted members'
			// loop reads them from the message's index, and the blocks
			// read from each content.
			var wr []claudeCodeMsgRead
			ref.ix.members(want.msg, func(k []byte, esc bool, val rawValue) bool {
				if k := string(keyBytes(k, esc)); k == "role" || k == "content" {
					from := offsetIn(raw, val)
					wr = append(wr, claudeCodeMsgRead{k == "content", int32(from), int32(from + len(val))})
				}
				return true
			})
			checkMsgReads(t, rec, raw, c, c.msg.reads[:c.msg.n], ref, wr)
		}
	}
	return fast
}

// checkMsgReads: the message's members read by c (got) are those of
// want, read by ref, each at the same place, and the content blocks read
// from each through c's index are those read through ref's.
func checkMsgReads(t *testing.T, rec string, raw []byte, c *claudeCodeReader, got []claudeCodeMsgRead, ref *claudeCodeReader, want []claudeCodeMsgRead) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%q: the message's members read %+v, want %+v", rec, got, want)
	}
	for k := range got {
		g, w := got[k], want[k]
		if g != w {
			t.Fatalf("%q: the message's members read %+v, want %+v", rec, got, want)
		}
		if !g.content && raw[g.from] != '"' {
			// recordRaw reads no role readTop kept: each a string.
			t.Fatalf("%q: a role read of another kind than a string's, %+v", rec, g)
		}
		if g.key() == "content" {
			gb, gs, gk, gw := readBlocksRawText(&c.ix, raw[g.from:g.to], nil)
			wb, ws, wk, ww := readBlocksRawText(&ref.ix, raw[w.from:w.to], nil)
			if !reflect.DeepEqual(gb, wb) || gs != ws || gk != wk || gw != ww {
				t.Fatalf("%q: the message's blocks %+v, want %+v", rec, gb, wb)
			}
		}
	}
}

// key is the member's key (the reader knows it by content).
func (r *claudeCodeMsgRead) key() string {
	if r.content {
		return "content"
	}
	return "role"
}
