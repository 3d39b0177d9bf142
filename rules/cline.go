package rules

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"unsafe"

	"github.com/loopbreak/loopbreak/replay"
)

// Cline's repeated tool call check (RULES.md §11): each tool call is
// compared with the one before; the count of consecutive identical calls
// warns the model at cline_soft_threshold (a [WARNING] in its next turn)
// and escalates at cline_hard_threshold (the mistake limit: the task
// stops and asks the user).

// Keys of the Cline rule.
var (
	enableCline        = enableParam("enable_cline", "replay Cline's repeated tool call check")
	clineSoftThreshold = unread(intParam("cline_soft_threshold", 3, "identical consecutive calls that draw Cline's warning (LOOP_DETECTION_SOFT_THRESHOLD)", bound(1), nil), notZorkGPT)
	clineHardThreshold = unread(intParam("cline_hard_threshold", 5, "identical consecutive calls that reach Cline's mistake limit (LOOP_DETECTION_HARD_THRESHOLD)", bound(1), nil), notZorkGPT)
)

// Kinds of the Cline rule.
var (
	ClineFeedback = &Kind{Name: "feedback", Doc: "the soft threshold: live, a warning added to the model's next turn; the task goes on"}
	ClineStop     = &Kind{Name: "stop", Doc: "the hard threshold: live, the mistake limit is reached and the task stops for the user"}
)

// OriginCline and the other agents' origins (RULES.md §11).
const (
	OriginCline = "cline" // Cline's repeated tool call check
	OriginRoo   = "roo"   // Roo Code's ToolRepetitionDetector
	OriginGoose = "goose" // Goose's RepetitionInspector
)

// ClineRepeat replays Cline's checkRepeatedToolCall.
var ClineRepeat = &Rule{
	Name:    "cline_repeated_tool",
	Origin:  OriginCline,
	Title:   "Cline: the same tool call, consecutively, cline_soft_threshold and cline_hard_threshold times",
	Section: "docs/rules.md#cline_repeated_tool",
	Doc: "Cline's checkRepeatedToolCall (cline/cline src/core/task/loop-detection.ts, checkRepeatedToolCall and " +
		"toolCallSignature, at commit 60c5f9f299fe3a2eca7d4b8e46643dd26361f1d8; called by ToolExecutor after each " +
		"tool runs): a call with the same name and the same signature (its parameters as JSON, keys sorted, " +
		"task_progress left out) as the call before adds one to the count, any other call sets it to 1. It fires " +
		"feedback when the count equals cline_soft_threshold and stop when it equals cline_hard_threshold (equals: " +
		"a run of 7 fires at 3 and 5 only). Only tool calls are compared; messages between them change nothing.",
	Params:  []*Param{enableCline.Param, clineSoftThreshold.Param, clineHardThreshold.Param},
	Kinds:   []*Kind{ClineFeedback, ClineStop},
	Enabled: enableCline.Get, Applies: onPreset(replay.PresetCline), InputsDoc: "steps read as cline",
	Check: func(c *Config) error {
		if clineHardThreshold.Get(c) <= clineSoftThreshold.Get(c) {
			return &ConstraintError{Keys: []string{"cline_hard_threshold", "cline_soft_threshold"},
				Msg: "cline_hard_threshold must be > cline_soft_threshold"}
		}
		return nil
	},
	New: func(c *Config, _ *replay.Episode) Stepper {
		return &clineState{soft: clineSoftThreshold.Get(c), hard: clineHardThreshold.Get(c)}
	},
}

// clineState is checkRepeatedToolCall's TaskState: the last call's
// signature and the count. A signature written is written into one of
// two buffers taken in turn (the last and the current), so that a step
// allocates nothing once they have grown. A flat call's (every call the
// Cline reader writes: flatClineMembers) is not written: its name and
// members, sorted and each key once, are compared with the last call's
// kept so, views of its action (a string of the episode's table, whose
// bytes are never rewritten), where writing them copied every value and
// the compare read it again; a signature is written only to be compared
// with a call that is not flat.
type clineState struct {
	soft, hard int
	last, cur  []byte
	has        bool
	count      int
	members    []topMember // appendSortedTop's, reused
	// flatLast says the last call was flat: lastName and lastMembers are
	// its signature, and last is not.
	flatLast                bool
	lastName                string
	lastMembers, curMembers []topMember
}

func (s *clineState) Step(t *replay.Turn, env *Env) {
	action, ok := callActionOf(t, env)
	if !ok {
		return
	}
	if k, fired := s.call(action); fired {
		env.ReportBare(t.N, ClineRepeat, k)
	}
}

// call counts one call by its action and says what fires.
func (s *clineState) call(action string) (*Kind, bool) {
	if name, ms, flat := flatClineMembers(action, s.curMembers[:0]); flat {
		ms = uniqueSortedMembers(ms)
		same := false
		switch {
		case !s.has:
		case s.flatLast:
			same = name == s.lastName && sameMembers(ms, s.lastMembers)
		default:
			s.cur = appendFlatSignature(s.cur[:0], name, ms)
			same = bytes.Equal(s.cur, s.last)
		}
		s.curMembers, s.lastMembers = s.lastMembers, ms // both kept, grown
		s.lastName, s.flatLast = name, true
		return s.check(same)
	}
	s.cur = appendClineSignature(s.cur[:0], callOfAction(action), &s.members)
	if s.has && s.flatLast {
		s.last = appendFlatSignature(s.last[:0], s.lastName, s.lastMembers)
	}
	same := s.has && bytes.Equal(s.cur, s.last)
	s.last, s.cur, s.flatLast = s.cur, s.last, false
	return s.check(same)
}

// appendFlatSignature appends the signature of a flat call named name,
// its members ms sorted and each key once (uniqueSortedMembers), as
// appendClineSignature writes it: written only to be compared with a
// call that is not flat.
func appendFlatSignature(b []byte, name string, ms []topMember) []byte {
	b = append(b, name...)
	b = append(b, '\n')
	return appendMembers(b, ms)
}

// check counts one call, the same as the last or not, and says what
// fires.
func (s *clineState) check(same bool) (*Kind, bool) {
	if same {
		s.count++
	} else {
		s.count = 1
	}
	s.has = true
	switch s.count {
	case s.soft:
		return ClineFeedback, true
	case s.hard:
		return ClineStop, true
	}
	return nil, false
}

// clineIgnored are parameters toolCallSignature leaves out (IGNORED_PARAMS).
var clineIgnored = map[string]bool{"task_progress": true}

// appendClineSignature appends the name and toolCallSignature of a call
// to b: its top-level parameters, task_progress left out, keys sorted
// (in *members, appendSortedTop's).
func appendClineSignature(b []byte, c toolCall, members *[]topMember) []byte {
	b = append(b, c.name...)
	b = append(b, '\n')
	return appendSortedTop(b, c.args, clineIgnored, members)
}

// toolCall is a step's tool call: its name and its arguments as logged
// (raw JSON, nil when the action is not "name {json}").
type toolCall struct {
	name string
	args json.RawMessage
	raw  string // the whole action, as logged
}

// toolCallOf reads a turn's tool call from its action: "name {json}" as
// the agents' readers write it, or an action of another shape as a call
// of that name with no arguments. Steps that are no call (messages, a
// result without its call, a gap) give false.
func toolCallOf(t *replay.Turn, env *Env) (toolCall, bool) {
	action, ok := callActionOf(t, env)
	if !ok {
		return toolCall{}, false
	}
	return callOfAction(action), true
}

// callActionOf is the action of a turn's step that is a call (toolCallOf).
func callActionOf(t *replay.Turn, env *Env) (string, bool) {
	ep := env.Episode
	st, ok := env.stepOf(t)
	if !ok || st.Action == "" || (len(ep.Steps) > 0 && ep.Steps[t.N-ep.Turns[0].N].Kind != replay.StepAction) {
		return "", false
	}
	return st.Action, true
}

// callOfAction reads a call's action as toolCallOf does.
func callOfAction(action string) toolCall {
	name, args, found := strings.Cut(action, " ")
	if found && strings.HasPrefix(strings.TrimSpace(args), "{") && replay.ValidJSON(args) {
		// The action's own bytes, not a copy of them at every step: the
		// readers of args (sortedTop, canonicalJSON, json.Unmarshal)
		// never write them.
		return toolCall{name: name, args: unsafe.Slice(unsafe.StringData(args), len(args)), raw: action}
	}
	return toolCall{name: action, raw: action}
}

// sortedTop writes a JSON object with its top-level keys sorted (nested
// values as they are, compacted), leaving out the ignored keys; arguments
// that are not an object are returned compacted. It is what decoding into
// a map[string]json.RawMessage and writing the keys back in order gives
// (the last of a repeated key, keys escaped as json.Marshal escapes
// them), read in place when the keys need no escaping either way, as an
// agent's argument names never do (FuzzSortedTop holds the two to one
// another).
func sortedTop(args json.RawMessage, ignored map[string]bool) string {
	return string(appendSortedTop(nil, args, ignored, new([]topMember)))
}

// appendSortedTop appends sortedTop(args, ignored) to b, its members
// listed in *members: a rule's own list, reused from call to call (a
// list of 16 on the stack was zeroed at each call, 768 bytes, a tenth of
// the cost on a Cline log's calls).
func appendSortedTop(b []byte, args json.RawMessage, ignored map[string]bool, members *[]topMember) []byte {
	if len(args) == 0 {
		return append(b, "{}"...)
	}
	if out, ok := appendSortedTopInPlace(b, args, ignored, members); ok {
		return out
	}
	return append(b, sortedTopDecoded(args, ignored)...)
}

// topMember is one member of an object, its key and value as written.
type topMember struct{ key, val []byte }

// appendSortedTopInPlace appends sortedTop(args, ignored) to b for a
// valid object whose keys are plain printable ASCII other than
// json.Marshal's HTML characters (it reports false, b unchanged, for
// anything else).
func appendSortedTopInPlace(b, args []byte, ignored map[string]bool, members *[]topMember) ([]byte, bool) {
	i := skipJSONSpace(args, 0)
	if i >= len(args) || args[i] != '{' {
		return b, false
	}
	ms := (*members)[:0]
	for i = skipJSONSpace(args, i+1); i < len(args) && args[i] == '"'; {
		kEnd := replay.SkipString(args, i)
		key := args[i+1 : kEnd-1]
		for _, c := range key {
			if !plainKeyByte[c] {
				return b, false
			}
		}
		i = skipJSONSpace(args, skipJSONSpace(args, kEnd)+1) // past ':'
		vEnd := replay.SkipValue(args, i)
		if !ignored[string(key)] {
			ms = append(ms, topMember{key, args[i:vEnd]})
		}
		if i = skipJSONSpace(args, vEnd); i < len(args) && args[i] == ',' {
			i = skipJSONSpace(args, i+1)
		}
	}
	*members = ms[:0] // grown, kept for the next call
	return appendSortedMembers(b, ms), true
}

// appendSortedMembers appends the object of members ms, read in place,
// with its keys sorted and each key once.
func appendSortedMembers(b []byte, ms []topMember) []byte {
	return appendMembers(b, uniqueSortedMembers(ms))
}

// smallMembers is the most members uniqueSortedMembers sorts by its own
// insertion sort (slices' stable sort sorts runs of 20 so).
const smallMembers = 20

// uniqueSortedMembers sorts ms by key in place and keeps each key once,
// the last of a repeated key's (the one a map keeps).
func uniqueSortedMembers(ms []topMember) []topMember {
	// Sorted by key, a repeated key's members in the order written: the
	// last of each run is kept.
	// (slices.SortStableFunc, not sort.SliceStable: its reflection made
	// room escape to the heap, an allocation a call.)
	if len(ms) <= smallMembers {
		// An insertion sort written out: a call has a few members, which
		// slices.SortStableFunc sorted so too, through its closure and
		// generic wrapper at each compare. A member moves down past
		// greater keys only, so equal keys keep their order (stable).
		for i := 1; i < len(ms); i++ {
			for j := i; j > 0 && string(ms[j-1].key) > string(ms[j].key); j-- {
				ms[j-1], ms[j] = ms[j], ms[j-1]
			}
		}
	} else {
		slices.SortStableFunc(ms, func(a, b topMember) int { return bytes.Compare(a.key, b.key) })
	}
	out := ms[:0]
	for j, m := range ms {
		if j+1 < len(ms) && bytes.Equal(ms[j+1].key, m.key) {
			continue
		}
		out = append(out, m)
	}
	return out
}

// appendMembers appends the object of members ms, as they are.
func appendMembers(b []byte, ms []topMember) []byte {
	b = append(b, '{')
	for j, m := range ms {
		if j > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, m.key...)
		b = append(b, `":`...)
		if m.val[0] != '"' && bytes.ContainsAny(m.val, " \t\r\n") {
			b = append(b, compactJSON(m.val)...) // a string is compact as written
		} else {
			b = append(b, m.val...)
		}
	}
	return append(b, '}')
}

// sameMembers says two members' lists are the same keys and values as
// written: the same object appendMembers writes (a flat call's values
// are strings that hold no raw control byte, its keys neither, so no two
// lists write one object).
func sameMembers(a, b []topMember) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i].key, b[i].key) || !bytes.Equal(a[i].val, b[i].val) {
			return false
		}
	}
	return true
}

// plainKeyByte[c] says whether a key holding byte c is read in place
// (appendSortedTopInPlace): printable ASCII but for '\\' and
// json.Marshal's HTML characters. One load a byte, where each was six
// tests.
var plainKeyByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// skipJSONSpace returns the index of the first byte from i that is not
// JSON white space; a byte above ' ' (compact JSON's, nearly all) is
// told by one test.
func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// sortedTopDecoded is sortedTop through encoding/json, for keys that need
// unescaping or escaping.
func sortedTopDecoded(args json.RawMessage, ignored map[string]bool) string {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil {
		return compactJSON(args)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if !ignored[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.WriteString(compactJSON(m[k]))
	}
	b.WriteByte('}')
	return b.String()
}

func compactJSON(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

// onPreset runs a rule on steps logs read as one agent's.
func onPreset(preset string) func(*replay.Episode, *Config) bool {
	return func(ep *replay.Episode, _ *Config) bool {
		return ep.Format == replay.FormatSteps && ep.Preset == preset
	}
}

// canonicalJSON writes a JSON value with the keys of every object sorted
// (numbers as written): what an order-blind equality compares.
func canonicalJSON(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return compactJSON(raw)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return compactJSON(raw)
	}
	return strings.TrimSuffix(out.String(), "\n")
}
