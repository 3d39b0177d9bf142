package replay

// A user or an assistant record's type and message's opening, as Claude
// Code writes them after the run of members it writes the same in each
// record (claude_code_same.go): "type":"user","message":{"role":"user",
// "content":... and "type":"assistant","message":{"id":"msg_...",...
// readTop walked them in every record, the type's key and value, the
// message's key, the role's or the id's key and value, and handed the
// type to claudeCodeTop.member. A record whose bytes after a run passed
// over are one of those openings is read as the walk reads it, with a
// compare or two (readTop's typed): the type's string, the message's
// object opened, its role read, or its id passed. The walk from a key
// to a key in the same object depends on the bytes alone, as a run's.
// Only a record whose run was passed over is read so: a record read
// alone (the tests' reference) is walked.

// userOpen and assistantOpen are a record's type and the opening of its
// message, from the type's key to the message's brace.
const (
	userOpen      = `"type":"user","message":{`
	assistantOpen = `"type":"assistant","message":{`
)

// typedType is where the type's string body starts in userOpen and
// assistantOpen, typedMessage how far past its end the message's brace
// stands.
const (
	typedType    = len(`"type":"`)
	typedMessage = len(`","message":`)
)

// userRoleContent is a user message's first member and second key, as
// Claude Code writes them; typedRole is where the role's string starts
// in it.
const (
	userRoleContent = `"role":"user","content":`
	typedRole       = len(`"role":`)
)

// requestIDKey and toolUseResultKey are the member Claude Code writes
// after an assistant's message and after a user's, to its value.
const (
	requestIDKey     = `,"requestId":"`
	toolUseResultKey = `,"toolUseResult":`
)

// The words readTop compares b's with (word): assistantOpen's at 0, 8,
// 16 and 22 (the first is userOpen's too), userOpen's at 0, 8, 16 and
// 17, userRoleContent's at 0, 8 and 16; idWord is {"id":" in a word's
// first six bytes (idMask).
var (
	assistantWords = wordsOf(assistantOpen, 0, 8, 16, 22)
	userWords      = wordsOf(userOpen, 0, 8, 16, 17)
	roleWords      = wordsOf(userRoleContent, 0, 8, 16)
	// requestIDKey's at 0 and 6, toolUseResultKey's at 0, 8 and 9.
	requestIDWords     = wordsOf(requestIDKey, 0, 6)
	toolUseResultWords = wordsOf(toolUseResultKey, 0, 8, 9)
	idWord             = uint64(word([]byte(`"id":"..`), 0)) & idMask
)

const idMask = 1<<48 - 1

// wordsOf is s's words at each offset of at (each at most len(s)-8).
func wordsOf(s string, at ...int) (w [4]uint64) {
	for k, a := range at {
		w[k] = word([]byte(s), a)
	}
	return w
}
