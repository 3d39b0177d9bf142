package replay

import "unsafe"

// A payload's keys told by their words. Codex writes a response item's
// payload with a few keys (type, call_id, name, arguments, output, ...),
// each found by its words' stops, then compared by a string switch
// (codexItem.member) to tell its field: here a key Codex writes is told
// by the words it opens with, its quotes and colon included, compared
// with those of the one key at their hash's slot (codexKeyTable), which
// also say where it ends. Any other key goes the stops' way, and reads
// the same (TestCodexKnownKey, TestCodexItemSame, FuzzCodexSkip).

// codexField is the codexItem field a payload's key names; codexOther,
// none. The fields whose value is kept whole (a rawValue) come first,
// then those read as strings (codexType on): codexItem holds each at its
// index (vals, views).
type codexField uint8

const (
	codexOther codexField = iota
	codexContent
	codexSummary
	codexAction
	codexMessage
	// The fields whose strings are long (a call's value, a tool's
	// output): payloadItem reads a string of theirs with no short
	// string's scan first (codexLong).
	codexArguments
	codexInput
	codexOutput
	// The fields read as strings (views of the line).
	codexType
	codexRole
	codexName
	codexCallID
)

// codexLong says f is a field whose string value is long (arguments,
// input, output).
func codexLong(f codexField) bool { return f-codexArguments <= codexOutput-codexArguments }

// codexFieldOf is the field key, unescaped, names.
func codexFieldOf(key []byte) codexField {
	switch string(key) {
	case "type":
		return codexType
	case "role":
		return codexRole
	case "name":
		return codexName
	case "call_id":
		return codexCallID
	case "content":
		return codexContent
	case "summary":
		return codexSummary
	case "arguments":
		return codexArguments
	case "input":
		return codexInput
	case "output":
		return codexOutput
	case "action":
		return codexAction
	case "message":
		return codexMessage
	}
	return codexOther
}

// codexKeys are the keys Codex writes (and status, which no field takes),
// each at its words' hash (codexKeyHash) in codexKeyTable.
var codexKeys = []struct {
	key string
	f   codexField
}{
	{"type", codexType}, {"role", codexRole}, {"name", codexName}, {"call_id", codexCallID},
	{"content", codexContent}, {"summary", codexSummary}, {"arguments", codexArguments},
	{"input", codexInput}, {"output", codexOutput}, {"action", codexAction},
	{"message", codexMessage}, {"status", codexOther},
}

// codexKeyEntry is a key's words as they open its member: its opening
// quote, its letters, its closing quote and colon (and, for a key of
// four letters, its value's opening quote: eight bytes), the first eight
// in w, the rest in tail (tmask, their bytes); colon is the colon's
// index from the opening quote.
type codexKeyEntry struct {
	w, tail, tmask uint64
	f              codexField
	colon          uint8
}

// codexKeyHash is the slot in codexKeyTable of a key's first word w: two
// of its letters' bits, which tell codexKeys apart (checked at start).
func codexKeyHash(w uint64) uint64 { return (w>>7 ^ w>>48) & 15 }

var codexKeyTable = codexKeyEntries()

func codexKeyEntries() (t [16]codexKeyEntry) {
	for _, k := range codexKeys {
		s := `"` + k.key + `":`
		colon := len(s) - 1
		if len(s) == 7 {
			s += `"` // a key of four letters: before a string
		}
		if len(s) < 8 || len(s) > 16 {
			// A programmer's error, found at start: the words would
			// read past the key, or leave its bytes uncompared.
			panic("replay: a Codex key of " + k.key + ", not of 4 to 14 letters")
		}
		var e codexKeyEntry
		b := []byte(s + "\x00\x00\x00\x00\x00\x00\x00\x00")
		e.w, e.tail = word(b, 0), word(b, 8)
		e.tmask = 1<<(8*(len(s)-8)) - 1
		e.tail &= e.tmask
		e.f, e.colon = k.f, uint8(colon)
		h := codexKeyHash(e.w)
		if t[h].w != 0 {
			panic("replay: Codex keys " + k.key + " and another at one hash")
		}
		t[h] = e
	}
	return t
}

// set reads a payload's member of field f as member does: a value kept
// whole at its field (vals), a string as a view (views), or false when
// it is not one. val is a string's quotes and body, with no byte over
// 0x7f, when plain (payloadItem found both; set's first two cases are
// written out there).
func (it *codexItem) set(f codexField, val rawValue, plain bool) (ok bool) {
	switch {
	case f < codexType:
		it.vals[f&(codexType-1)] = val
		return true
	case plain:
		it.views[f&3] = plainView(val)
		return true
	}
	it.views[f&3], ok = rawStringView(val) // name copied by callForms, call_id by stepQueue.push
	return ok
}

// plainView is the body of val, a string's quotes and body with no
// escape, sliced with no bounds check.
func plainView(val rawValue) string {
	return unsafe.String((*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(val)), 1)), len(val)-2)
}
