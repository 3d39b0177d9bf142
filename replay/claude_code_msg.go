package replay

// A Claude Code message's own members read as they are validated, as
// the record's are (claude_code_top.go), where the validating pass
// indexed the message whole: the reader reads its role and content
// alone, and only the content is indexed. The members after the
// content are written the same from record to record (an assistant
// message's "stop_reason":null,"usage":{...}, the usage the same in
// each record of one response), and the pass walked them in every
// record (3.3% of a session's reading). They are kept as bytes, the
// message's tail (claudeCodeMsg.tail): a message whose bytes after its
// content are the tail's is valid through them as the message the tail
// was taken from was (the walk from a value's end in the message's
// object to the message's closing brace depends on the bytes alone, and
// the tail holds no member read), so they are passed with one compare.
// Likewise the members from an assistant message's second (its first,
// the id, changes from response to response) to its content (its type,
// role and model: the message's head, claudeCodeMsg.head), the role
// among them kept as read; the walk from a key in the message's object
// to another depends on the bytes alone.

import "unsafe"

// claudeCodeHeadMin is the shortest head kept.
const claudeCodeHeadMin = 16

// claudeCodeMsgReads bounds the members of one message readTop keeps
// (role, content); a message with more is read whole by the caller.
const claudeCodeMsgReads = 4

// claudeCodeTailMin is the shortest tail kept: a shorter one saves less
// than its compare costs.
const claudeCodeTailMin = 16

// claudeCodeMsg is what readTop reads of the record's last message
// object: its role and content members in order (the members
// recordRaw's loop over the message reads), and the tail.
type claudeCodeMsg struct {
	reads [claudeCodeMsgReads]claudeCodeMsgRead
	n     int // how many of reads are the message's
	// open says readTop is in the message's object (its level 1).
	open bool
	// passed says the message's content was indexed by the pass: a
	// second content would drop the first's index.
	passed bool
	// from is where the message's tail starts, the end of its content's
	// value when no member read follows it; -1 when none.
	from int
	// tail is the last tail taken, a copy; none when empty.
	tail []byte
	// keys counts the message's keys walked.
	keys int
	// head is the last head taken, a copy (none when empty), and the
	// offsets in it of its role's value (-1: none); hfrom is where the
	// head being taken starts (-1: none), hrole its role's offsets.
	head            []byte
	headRole, hrole [2]int32
	hfrom           int
}

// claudeCodeMsgRead is a member of a message read: its key, "content"
// or "role", and where its value is in the record, [from, to). Offsets,
// not a string and a view: readTop writes them with no write barrier's
// test (the reader is on the heap), where a string and a slice written
// together were built on the stack and copied, some 20 instructions a
// member.
type claudeCodeMsgRead struct {
	content  bool
	from, to int32
}

// val is the member's value in the record at p (its base), sliced with
// no bounds check as notedMember slices a noted member's: readTop found
// it within the record.
func (r *claudeCodeMsgRead) val(p unsafe.Pointer) rawValue {
	return unsafe.Slice((*byte)(unsafe.Add(p, r.from)), r.to-r.from)
}

// start begins the reading of a message.
func (m *claudeCodeMsg) start() {
	m.n, m.open, m.passed, m.from = 0, true, false, -1
	m.keys, m.hfrom = 0, -1
}

// add keeps a member read, the content's or the role's, its value at
// [from, to) in the record; false when there are too many to keep.
func (m *claudeCodeMsg) add(content bool, from, to int) bool {
	if m.n == len(m.reads) {
		return false
	}
	r := &m.reads[m.n]
	r.content, r.from, r.to = content, int32(from), int32(to)
	m.n++
	return true
}

// close ends the message's object at b[i-1]: the bytes from its tail's
// start are kept as the tail when long enough.
func (m *claudeCodeMsg) close(b []byte, i int) {
	m.open = false
	if m.from >= 0 && i-m.from >= claudeCodeTailMin && string(b[m.from:i]) != string(m.tail) {
		m.tail = append(m.tail[:0], b[m.from:i]...)
	}
}

// msgKey is the member of a message that recordRaw reads named by the
// key at b[i:end] (its quotes included, no escape), or "".
func msgKey(b []byte, i, end int) string {
	switch k := b[i+1 : end-1]; {
	case len(k) == len("role") && string(k) == "role":
		return "role"
	case len(k) == len("content") && string(k) == "content":
		return "content"
	}
	return ""
}
