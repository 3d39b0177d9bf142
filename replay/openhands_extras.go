package replay

// An OpenHands observation's extras: the members the reader reads, its
// exit code and error.

// ohExtras are the members of an observation's extras the reader reads
// (the last of a repeated key, as Get reads it), found in one walk of
// extras: a command's observation asked it for six of them, one walk
// each, a tenth of the reading.
type ohExtras struct {
	hidden, agentState, reason, command, exitCodeField rawValue
	metaExitCode                                       rawValue // metadata.exit_code
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
func readExtras(ix *valueIndex, extras rawValue) ohExtras {
	var f [ohxN]rawValue
	jsFields(ix, extras, ohExtrasKeys, f[:])
	var code [1]rawValue
	jsFields(ix, f[ohxMetadata], ohExitCodeKey, code[:])
	return ohExtras{hidden: f[ohxHidden], agentState: f[ohxAgentState], reason: f[ohxReason],
		command: f[ohxCommand], exitCodeField: f[ohxExitCode], metaExitCode: code[0]}
}

// exitCode is CmdOutputObservation.exit_code: metadata.exit_code (since
// Jan 2025), the exit_code field before, -1 (the default) when neither
// is logged (a null logged is null).
func (x *ohExtras) exitCode() rawValue {
	if c := x.metaExitCode; c != nil {
		return c
	}
	if c := x.exitCodeField; c != nil {
		return c
	}
	return rawValue("-1")
}

// openHandsResult sets error and exit code from an observation: an
// ErrorObservation is an error; a command's exit code is in
// extras.metadata.exit_code (older versions: extras.exit_code).
func openHandsResult(r *stepRecord, obs string, x *ohExtras) {
	r.info.Error = obs == "error"
	code := x.metaExitCode
	if !code.Present() {
		code = x.exitCodeField
	}
	if c, ok := rawInt(code); ok {
		r.setExitCode(c)
	}
}
