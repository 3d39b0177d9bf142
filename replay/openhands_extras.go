package replay

// An OpenHands observation's extras: the members the reader reads, its
// exit code and error.

// ohExtras are the members of an observation's extras the reader reads
// (the last of a repeated key, as Get reads it), found in one walk of
// extras: a command's observation asked it for six of them, one walk
// each, a tenth of the reading. They are read straight into m, by
// ohExtrasKeys' order, where readExtras read them into an array and
// returned them copied into named fields (~40 instructions an
// observation).
type ohExtras struct {
	m            [ohxN]rawValue
	metaExitCode [1]rawValue // metadata.exit_code
}

// ohExtrasKeys are the members of extras readExtras reads, at the places
// below (ohx...); ohExitCodeKey metadata's.
var (
	ohExtrasKeys  = newJSKeys("hidden", "agent_state", "reason", "command", "exit_code", "metadata")
	ohExitCodeKey = newJSKeys("exit_code")
)

const (
	ohxHidden = iota
	ohxAgentState
	ohxReason
	ohxCommand
	ohxExitCode
	ohxMetadata
	ohxN
)

// readExtras reads extras' members, and metadata's exit code, by
// jsFields (its names ASCII: read as encoding/json reads them, see
// eventFields), in a loop over the members the index noted where a
// callback was called for each, its name unquoted when escaped and
// switched on (and metadata's walked again for its exit code by get).
// x is zeroed on entry (jsFields sets only the members found).
func readExtras(ix *valueIndex, extras rawValue, x *ohExtras) {
	jsFields(ix, extras, ohExtrasKeys, x.m[:])
	if md := x.m[ohxMetadata]; md != nil && !notedExitCode(ix, md, &x.metaExitCode[0]) {
		jsFields(ix, md, ohExitCodeKey, x.metaExitCode[:])
	}
}

// notedExitCode sets *code to metadata md's exit_code as jsFields reads
// it (the last of a repeated name; nil when none), from the members the
// validating pass noted, in a loop for the one name: jsFields' loop, for
// any names, took ~35 instructions a member for metadata's eight (a
// command's observation: 1% of a V0 events log). It says false, and
// sets nothing, when md is not so noted or a name is escaped (or not
// UTF-8): jsFields reads those. TestReadExtras holds it to the members
// walk.
func notedExitCode(ix *valueIndex, md rawValue, code *rawValue) bool {
	if ix == nil || md.Kind() != '{' {
		return false
	}
	ms, ok := ix.noted(md)
	if !ok {
		return false
	}
	base := ix.base
	var c rawValue
	for k := range ms {
		m := &ms[k]
		if m.esc {
			return false
		}
		if m.keyEnd-m.key == int32(len("exit_code")) && string(base[m.key:m.keyEnd]) == "exit_code" {
			c = rawValue(base[m.val:m.end:m.end])
		}
	}
	*code = c
	return true
}

// exitCode is CmdOutputObservation.exit_code: metadata.exit_code (since
// Jan 2025), the exit_code field before, -1 (the default) when neither
// is logged (a null logged is null).
func (x *ohExtras) exitCode() rawValue {
	if c := x.metaExitCode[0]; c != nil {
		return c
	}
	if c := x.m[ohxExitCode]; c != nil {
		return c
	}
	return rawValue("-1")
}

// openHandsResult sets error and exit code from an observation: an
// ErrorObservation is an error; a command's exit code is in
// extras.metadata.exit_code (older versions: extras.exit_code).
func openHandsResult(r *stepRecord, obs string, x *ohExtras) {
	r.info.Error = obs == "error"
	code := x.metaExitCode[0]
	if !code.Present() {
		code = x.m[ohxExitCode]
	}
	if c, ok := rawInt(code); ok {
		r.setExitCode(c)
	}
}

// appendCanonicalExit appends the exit code v to buf, w.buf, as
// w.appendValue(v, true, nil) writes it: a plain integer (plainInt) as
// it stands, where canonicalNumber parsed and formatted it again
// (~370 instructions a command's observation, 0.9% of a V0 events
// log); any other value by appendValue. TestCanonicalExit holds the two
// together.
func appendCanonicalExit(buf []byte, w *canonWriter, v rawValue) []byte {
	if plainInt(v) {
		return append(buf, v...)
	}
	w.buf = buf
	w.appendValue(v, true, nil)
	return w.buf
}

// plainInt says v is an integer literal that canonicalNumber writes as
// it stands: an optional '-', then 1 to 18 digits (within int64, so
// ParseInt takes it), no leading zero but "0" itself, and not "-0"
// (written "0").
func plainInt(v rawValue) bool {
	d := v
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 || d[0] == '0' && len(v) > 1 {
		return false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// appendCommand is w.appendText(cmd): a string's text unescaped straight
// into w.buf (appendText, as Str decodes), where w.appendText made a
// string of it first when it holds an escape (a command of several
// lines: ~1,700 instructions each). TestAppendCommand holds the two
// together.
func appendCommand(w *canonWriter, cmd rawValue) {
	if cmd.Kind() == '"' {
		w.buf = appendText(w.buf, cmd[1:len(cmd)-1])
		return
	}
	w.appendText(cmd)
}
