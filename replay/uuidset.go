package replay

// idSet is a set of record ids (Claude Code's uuids), one entry a record
// read: a resumed session writes some records again, and a record whose
// id was read is read once. An id written as Claude Code writes it (a
// lowercase UUID, crypto.randomUUID's 8-4-4-4-12 hex digits) is kept as
// its 16 bytes; any other string as itself, so two ids are one exactly
// when their strings are. A 100 MB session of 134,000 records kept each
// uuid as a string in a map[string]bool: a copy and a map entry, about
// 100 bytes a record, and 7% of its reading's CPU hashing and growing
// the map.
type idSet struct {
	uuids map[[16]byte]struct{}
	other map[string]struct{}
}

// add adds id and says whether it was there already.
func (s *idSet) add(id string) (seen bool) {
	if u, ok := parseUUID(id); ok {
		if s.uuids == nil {
			s.uuids = map[[16]byte]struct{}{}
		}
		if _, seen = s.uuids[u]; !seen {
			s.uuids[u] = struct{}{}
		}
		return seen
	}
	if s.other == nil {
		s.other = map[string]struct{}{}
	}
	if _, seen = s.other[id]; !seen {
		s.other[string([]byte(id))] = struct{}{} // id may be a view of the line
	}
	return seen
}

// parseUUID reads a lowercase 8-4-4-4-12 hex UUID: each is the one
// string that gives its 16 bytes (uppercase is another string, kept as
// itself).
func parseUUID(s string) (u [16]byte, ok bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, false
	}
	j := 0
	for i := 0; i < 36; {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			i++
			continue
		}
		hi, ok1 := lowerHex(s[i])
		lo, ok2 := lowerHex(s[i+1])
		if !ok1 || !ok2 {
			return u, false
		}
		u[j] = hi<<4 | lo
		i, j = i+2, j+1
	}
	return u, true
}

func lowerHex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}
