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
	// claudeCodeTop.member reads (claudeCodeTopLens), in order: their
	// keys, unquoted, at [key, keyEnd), their values at [val, end),
	// offsets in bytes.
	reads [claudeCodeRunReads]struct{ key, keyEnd, val, end int32 }
	n     int // how many of reads are kept
}

// claudeCodeRunMin is the shortest run kept: a shorter one saves less
// than its compare costs.
const claudeCodeRunMin = 16

// replay hands the run's members read to t, the run at b[i:].
func (r *claudeCodeRun) replay(t *claudeCodeTop, b []byte, i int) {
	for k := range r.reads[:r.n] {
		m := &r.reads[k]
		t.member(b[i+int(m.key):i+int(m.keyEnd)], b[i+int(m.val):i+int(m.end)])
	}
}

// isRunEnd says whether key (of a length in claudeCodeTopLens) is one
// that ends a run: a member read that Claude Code writes with another
// value in each record.
func isRunEnd(key []byte) bool {
	return string(key) == "type" || string(key) == "uuid" || string(key) == "message"
}
