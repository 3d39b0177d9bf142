package replay

// A message record that extends the one before it. The CLI writes a
// message again as it grows (chatRecordingService.js, @google/gemini-cli-core
// 0.61.0: recordToolCalls, and updateMessage's callers, write the whole
// message again under its id): a gemini message is written first as the
// model's text came, then again with its toolCalls, the same members in
// the same order before them, byte for byte. A fifth of a recording's
// message records begin with the whole of the record before them but its
// closing brace, which the validating pass read, indexed and walked once
// already: only the members after it are read here.

// geminiExtendMax bounds the value read alone after the kept record's
// members: validValueIx counts a value's nesting from where it starts, one
// level below the record's own object when read whole, so a value nested
// maxNesting-1 deep passes alone and not within the record; such a value
// is at least twice that long.
const geminiExtendMax = 2 * (maxNesting - 1)

// geminiKeepMax bounds the record kept: a copy of it is held.
const geminiKeepMax = 64 << 10

// geminiPrev is the last message record read whole (or extended), valid
// JSON.parse input, kept for the next record that extends it: its bytes,
// from its opening brace to its closing one, and where its fields
// (geminiRecordKeys, as jsFields read them: the last of a repeated name)
// lie in them, start -1 for a field it lacks.
type geminiPrev struct {
	raw    []byte
	fields [len(geminiFields{})][2]int32
}

// keep keeps raw, a record read whole from its first byte to its last,
// valid, and its fields f (slices of raw), when it is a gemini message
// without tool calls (a string id; a record with a member is one whose
// bytes but its last end just after a member's value and white space,
// where another member or the closing brace may follow), else nothing:
// the CLI writes such a message again with its toolCalls after its
// members, and those it writes again with other tool calls or results
// (recordToolCalls), which do not begin with them; a copy of each user
// message (two fifths of a recording's bytes) would be made for nothing.
func (p *geminiPrev) keep(raw []byte, f *geminiFields) {
	if f[1].Kind() != '"' || string(f[6]) != `"gemini"` || f[8] != nil || len(raw) > geminiKeepMax {
		p.raw = p.raw[:0]
		return
	}
	p.raw = append(p.raw[:0], raw...)
	for k, v := range f {
		if v == nil {
			p.fields[k] = [2]int32{-1, -1}
			continue
		}
		at := offsetIn(raw, v)
		p.fields[k] = [2]int32{int32(at), int32(at + len(v))}
	}
}

// recordExtending reads raw when it extends the record kept: its first
// bytes are the kept record's but its closing brace, then members (a
// comma, a key, a value: at most one, which is validated and indexed into
// g.ix) and its closing brace, nothing after it. That is exactly when
// raw is valid JSON, as validValueIx reads it, that begins with those
// bytes: the kept record's bytes up to its brace leave the validating
// pass after a member's value, where the members that follow are read
// here as it reads them. Its fields are then the kept record's, at the
// same places, and those of the members that follow (the last of a
// repeated name, as jsFields). ok is false for any other record (and
// for a record this reads otherwise than readRecordRaw would, two
// members after or a value too deep), which the caller reads whole.
func (g *geminiReader) recordExtending(raw []byte, line int) (recs []stepRecord, reason string, ok bool) {
	p := &g.prev
	n := len(p.raw) - 1
	if n <= 0 || len(raw) <= n || string(raw[:n]) != string(p.raw[:n]) {
		return nil, "", false
	}
	var f geminiFields
	for k, s := range p.fields {
		if s[0] >= 0 {
			f[k] = raw[s[0]:s[1]]
		}
	}
	indexed := false
	i := skipSpace(raw, n)
	for ; i < len(raw) && raw[i] == ','; i = skipSpace(raw, i) {
		k := skipSpace(raw, i+1)
		if indexed || k >= len(raw) || raw[k] != '"' {
			return nil, "", false
		}
		kEnd, esc := validString(raw, k)
		if kEnd < 0 {
			return nil, "", false
		}
		j := skipSpace(raw, kEnd)
		if j >= len(raw) || raw[j] != ':' {
			return nil, "", false
		}
		j = skipSpace(raw, j+1)
		i = validValueIx(raw, j, &g.ix)
		if i < 0 || g.ix.nonFinite || i-j >= geminiExtendMax {
			return nil, "", false
		}
		indexed = true
		// As jsFields reads a member it scans (set: a name not UTF-8
		// matches no name sought, all of them ASCII).
		geminiRecordKeys.set(raw[k+1:kEnd-1], esc, raw[j:i], f[:])
	}
	if i != len(raw)-1 || raw[i] != '}' {
		return nil, "", false
	}
	if !indexed {
		g.ix.reset(raw) // nothing of raw indexed: not the last record's index
	}
	g.lastLine = line
	p.keep(raw, &f)
	recs, reason = g.readFields(&g.ix, &f, line)
	return recs, reason, true
}
