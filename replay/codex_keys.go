package replay

// A payload's keys told by their words. Codex writes a response item's
// payload with a few keys (type, call_id, name, arguments, output, ...),
// each found by its words' stops, then compared by a string switch
// (codexItem.member) to tell its field: here a key Codex writes is told
// by one or two compares of the words it opens with, its quotes and
// colon included, which also say where it ends (codexKnownKey). Any
// other key goes the stops' way, and reads the same (TestCodexKnownKey,
// TestCodexItemSame, FuzzCodexSkip).

// codexField is the codexItem field a payload's key names; codexOther,
// none.
type codexField uint8

const (
	codexOther codexField = iota
	codexType
	codexRole
	codexName
	codexCallID
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
)

// codexLong says f is a field whose string value is long (arguments,
// input, output).
func codexLong(f codexField) bool { return f >= codexArguments }

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

// The words a key Codex writes opens with, read little-endian from its
// opening quote: the key of four letters, its closing quote and colon
// and its string value's opening quote; of five, up to its colon; of
// six, up to its closing quote (then a colon); of seven or nine, its
// first seven or seven letters (then the rest and a colon, keyTail7 and
// keyTail9).
const (
	keyType    = 0x223a226570797422 // "type":"
	keyRole    = 0x223a22656c6f7222 // "role":"
	keyName    = 0x223a22656d616e22 // "name":"
	keyInput   = 0x3a227475706e6922 // "input":
	keyOutput  = 0x2274757074756f22 // "output"
	keyStatus  = 0x2273757461747322 // "status"
	keyAction  = 0x226e6f6974636122 // "action"
	keyCallID  = 0x64695f6c6c616322 // "call_id
	keyContent = 0x746e65746e6f6322 // "content
	keySummary = 0x7972616d6d757322 // "summary
	keyMessage = 0x6567617373656d22 // "message
	keyArgumen = 0x6e656d7567726122 // "argumen
	keyTail7   = 0x3a22             // ": after a key of seven letters
	keyTail9   = 0x3a227374         // ts": after "argumen
)

// codexKnownKey tells the key at raw[j], its opening quote, when it is
// one Codex writes (and status, which no field takes), j+16 <= len(raw):
// its field and the index of the colon after it; kEnd is -1 for any
// other key, or one written otherwise (an escape, a space).
func codexKnownKey(raw []byte, j int) (f codexField, kEnd int) {
	switch w := word(raw, j); w {
	case keyType:
		return codexType, j + 6
	case keyRole:
		return codexRole, j + 6
	case keyName:
		return codexName, j + 6
	case keyInput:
		return codexInput, j + 7
	case keyOutput, keyStatus, keyAction:
		if byteAt(raw, j+8) != ':' {
			break
		}
		switch w {
		case keyOutput:
			return codexOutput, j + 8
		case keyAction:
			return codexAction, j + 8
		}
		return codexOther, j + 8
	case keyCallID, keyContent, keySummary, keyMessage:
		if word(raw, j+8)&0xffff != keyTail7 {
			break
		}
		switch w {
		case keyCallID:
			return codexCallID, j + 9
		case keyContent:
			return codexContent, j + 9
		case keySummary:
			return codexSummary, j + 9
		}
		return codexMessage, j + 9
	case keyArgumen:
		if word(raw, j+8)&0xffffffff == keyTail9 {
			return codexArguments, j + 11
		}
	}
	return codexOther, -1
}

// set reads a payload's member of field f as member does.
func (it *codexItem) set(f codexField, val rawValue, plain bool) (ok bool) {
	var view *string // only compared, or copied, while the line is read (a view of it)
	switch f {
	case codexType:
		view = &it.Type
	case codexRole:
		view = &it.Role
	case codexName:
		view = &it.Name // copied by callForms when it makes a call's forms
	case codexCallID:
		view = &it.CallID // copied by keepID when a call waits on it
	case codexContent:
		it.Content = val
		return true
	case codexSummary:
		it.Summary = val
		return true
	case codexArguments:
		it.Arguments = val
		return true
	case codexInput:
		it.Input = val
		return true
	case codexOutput:
		it.Output = val
		return true
	case codexAction:
		it.Action = val
		return true
	case codexMessage:
		it.Message = val
		return true
	default:
		return true
	}
	if plain {
		*view = bytesString(val[1 : len(val)-1])
		return true
	}
	*view, ok = rawStringView(val)
	return ok
}
