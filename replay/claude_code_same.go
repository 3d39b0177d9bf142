package replay

// The members Claude Code writes the same in each record. A session's
// user and assistant records open with the same members, most with the
// same bytes each time: after parentUuid, isSidechain, userType, cwd,
// sessionId, version and gitBranch, then type, message, uuid... readTop
// validated them byte by byte in every record. The run of members
// between a record's first and its first type, message or uuid (the
// members read that change from record to record) is kept as its bytes
// (claudeCodeRun); a record whose bytes after its first member are the
// run's is valid through them as the record the run was taken from was
// (the walk from a value's end at the top level to a key there depends
// on the bytes alone), so they are passed over with one compare, the
// members claudeCodeTop.member reads handed to it as the walk would
// have handed them.

// claudeCodeRunReads bounds the members read (isSidechain, isMeta,
// isCompactSummary) a run holds; a run with more is not kept.
const claudeCodeRunReads = 4

// claudeCodeRun is the run of top-level members the last record that
// had one had after its first member, from the comma after the first
// member's value to the opening quote of its first type, message or
// uuid key.
type claudeCodeRun struct {
	bytes []byte // the run's bytes, a copy; none when empty
	// reads are the run's members whose key has a length
	// claudeCodeTop.member reads (claudeCodeTopLens), in order.
	reads [claudeCodeRunReads]claudeCodeRunRead
	n     int // how many of reads are kept
}

// claudeCodeRunRead is a member of a run that claudeCodeTop.member
// reads: its key, unquoted, at [key, keyEnd) in the run's bytes, its
// value at [val, end). A flag written true, false or null is read once,
// when the run is taken: field names it (runSide, runMeta,
// runCompact), on is its value; a flag of another type (field 0) is
// handed to member each time. A member of a name member does not read
// (version, of message's length: field runSkip) is not kept.
type claudeCodeRunRead struct {
	key, keyEnd, val, end int32
	field                 uint8
	on                    bool
}

// The flags of claudeCodeTop a run's member sets (claudeCodeRunRead),
// and runSkip, a member member does not read.
const (
	runSide = 1 + iota
	runMeta
	runCompact
	runSkip
)

// runField is the flag of claudeCodeTop that member sets from key and
// val, and to what, when val is a flag's (rawBool reads it); 0 for a
// flag of another type; runSkip for a key that names no flag (a run
// holds no other name member reads: type, uuid and message end it).
func runField(key []byte, val rawValue) (field uint8, on bool) {
	switch string(key) {
	case "isSidechain":
		field = runSide
	case "isMeta":
		field = runMeta
	case "isCompactSummary":
		field = runCompact
	default:
		return runSkip, false
	}
	on, ok := rawBool(val)
	if !ok {
		return 0, false
	}
	return field, on
}

// runFirst is readTop's run start (from) until its record's first
// member is read.
const runFirst = -2

// claudeCodeRunMin is the shortest run kept: a shorter one saves less
// than its compare costs.
const claudeCodeRunMin = 16

// replay hands the run's members read to t, the run at b[i:].
func (r *claudeCodeRun) replay(t *claudeCodeTop, b []byte, i int) {
	for k := range r.reads[:r.n] {
		switch m := &r.reads[k]; m.field {
		case runSide:
			t.side = m.on
		case runMeta:
			t.meta = m.on
		case runCompact:
			t.compact = m.on
		default:
			t.member(b[i+int(m.key):i+int(m.keyEnd)], b[i+int(m.val):i+int(m.end)])
		}
	}
}

// isRunEnd says whether key (of a length in claudeCodeTopLens) is one
// that ends a run: a member read that Claude Code writes with another
// value in each record.
func isRunEnd(key []byte) bool {
	return string(key) == "type" || string(key) == "uuid" || string(key) == "message"
}

// claudeCodeParent is the text of the last uuid readTop took as
// prefetchUUID parsed it (36 hex digits and dashes), as five words, the
// last overlapping the fourth: the next record's parentUuid, as Claude
// Code chains a session's records, each the child of the one before. A
// record that opens with {"parentUuid": and those bytes in a string
// (two words and five compared) has a valid first member, not read
// (parentUuid is not read), where its key and value were walked.
type claudeCodeParent struct {
	w   [5]uint64 // bytes 0-7, 8-15, 16-23, 24-31 and 28-35
	set bool
}

// keep keeps u, a uuid's 36 bytes as prefetchUUID parsed them.
func (p *claudeCodeParent) keep(u []byte) {
	_ = u[35]
	p.w = [5]uint64{word(u, 0), word(u, 8), word(u, 16), word(u, 24), word(u, 28)}
	p.set = true
}

// parentHead0 and parentHead1 are the words at a record's bytes 0-7
// and 7-14 when it opens with {"parentUuid":" (the string's quote).
const (
	parentHead0 = uint64('{') | uint64('"')<<8 | uint64('p')<<16 | uint64('a')<<24 |
		uint64('r')<<32 | uint64('e')<<40 | uint64('n')<<48 | uint64('t')<<56
	parentHead1 = uint64('t') | uint64('U')<<8 | uint64('u')<<16 | uint64('i')<<24 |
		uint64('d')<<32 | uint64('"')<<40 | uint64(':')<<48 | uint64('"')<<56
)

// timestampHead0 and timestampHead1 are the words at a member's bytes
// 0-7 and 6-13 when it is ,"timestamp":" (the string's quote).
const (
	timestampHead0 = uint64(',') | uint64('"')<<8 | uint64('t')<<16 | uint64('i')<<24 |
		uint64('m')<<32 | uint64('e')<<40 | uint64('s')<<48 | uint64('t')<<56
	timestampHead1 = uint64('s') | uint64('t')<<8 | uint64('a')<<16 | uint64('m')<<24 |
		uint64('p')<<32 | uint64('"')<<40 | uint64(':')<<48 | uint64('"')<<56
)
