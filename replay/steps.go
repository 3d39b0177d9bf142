package replay

// Reading `steps` logs (one step of any agent per record) into the turn
// table, so the generic rules (RULES.md §8) and the peer detectors (§11)
// replay over any agent's log; attempts.go reads `attempts` logs.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Log formats (Options.Format, Episode.Format).
const (
	FormatAuto     = "auto"
	FormatZorkGPT  = "zorkgpt"
	FormatSteps    = "steps"
	FormatAttempts = "attempts"
)

// Formats lists the values --input-format accepts.
var Formats = []string{FormatAuto, FormatZorkGPT, FormatSteps, FormatAttempts}

// Presets of the steps format: mappings of a framework's own log.
const (
	PresetOpenHands = "openhands"
	PresetGeminiCLI = "gemini-cli"
)

// Presets lists the values --preset accepts.
var Presets = []string{PresetOpenHands, PresetGeminiCLI}

// StepKind is what a step is (RULES.md §11).
type StepKind uint8

const (
	StepAction       StepKind = iota // a tool call: action, output, error, exit code
	StepMessage                      // agent text, in the output
	StepCondensation                 // a context trim
)

func (k StepKind) String() string {
	switch k {
	case StepMessage:
		return "message"
	case StepCondensation:
		return "condensation"
	}
	return "action"
}

// StepInfo is what a steps log says about a turn besides its action,
// output, score and location.
type StepInfo struct {
	Kind        StepKind
	Error       bool // the tool call failed
	HasExitCode bool // a shell command's result
	ExitCode    int
	LLMLoop     bool // a logged LLM loop verdict (Gemini CLI's LLM_DETECTED_LOOP)
}

// StepFields are the fields of a step record, as --field names them.
var StepFields = []string{"step", "action", "output", "error", "kind", "score", "location", "exit_code", "llm_loop"}

// ParseFieldMap reads --field values, "field=path" with path a dotted
// path into nested objects ("output=result.text"), into a map for
// Options.Fields.
func ParseFieldMap(specs []string) (map[string]string, error) {
	m := map[string]string{}
	for _, spec := range specs {
		name, path, ok := strings.Cut(spec, "=")
		name, path = strings.TrimSpace(name), strings.TrimSpace(path)
		if !ok || name == "" || path == "" {
			return nil, fmt.Errorf("--field %q: want field=path, e.g. step=iteration or output=result.text", spec)
		}
		known := false
		for _, f := range StepFields {
			known = known || f == name
		}
		if !known {
			return nil, fmt.Errorf("--field %s: unknown field; want one of %s", name, strings.Join(StepFields, ", "))
		}
		for _, part := range strings.Split(path, ".") {
			if part == "" {
				return nil, fmt.Errorf("--field %s=%s: empty name in the dotted path", name, path)
			}
		}
		m[name] = path
	}
	return m, nil
}

// stepRecord is one step before it enters the table.
type stepRecord struct {
	n                  int
	info               StepInfo
	action, output     string
	location           string
	hasLoc             bool
	score              float64
	hasScore, hasStep  bool
	hasAction, hasText bool
}

// maxStepGapRows bounds the rows filled for gaps in step numbers in one
// file, as the ZorkGPT builder bounds its own: a corrupt step number costs
// a skipped line, not a table of millions of empty rows.
const maxStepGapRows = 100_000

// stepTable builds one episode from step records in log order.
type stepTable struct {
	ep      *Episode
	source  string
	intern  map[string]string
	gapRows int
}

func newStepTable(id, source string) *stepTable {
	return &stepTable{
		ep:     &Episode{ID: id, Source: source, Format: FormatSteps, LocationKey: KeyRoomName, RecordedEnd: EndUnknown, Rejected: map[int][]string{}},
		source: source,
		intern: map[string]string{},
	}
}

func (t *stepTable) str(s string) string {
	if v, ok := t.intern[s]; ok {
		return v
	}
	t.intern[s] = s
	return s
}

// add appends a record; a non-empty reason says why it was skipped.
func (t *stepTable) add(r stepRecord) string {
	if !r.hasStep {
		return "no step number"
	}
	if !r.hasAction && !r.hasText {
		return fmt.Sprintf("step %d has neither an action nor an output", r.n)
	}
	if r.n < 0 || r.n > MaxTurnNumber {
		return fmt.Sprintf("step number %d out of range", r.n)
	}
	ep := t.ep
	var prev *Turn
	if len(ep.Turns) > 0 {
		prev = &ep.Turns[len(ep.Turns)-1]
		if r.n <= prev.N {
			return fmt.Sprintf("step %d does not follow step %d", r.n, prev.N)
		}
		if gap := r.n - prev.N - 1; gap > 0 {
			if t.gapRows+gap > maxStepGapRows {
				return fmt.Sprintf("step %d is %d steps after step %d (gaps of a file are capped at %d steps)", r.n, gap+1, prev.N, maxStepGapRows)
			}
			t.gapRows += gap
			ep.Diag.Gaps += gap
			ep.Diag.note(fmt.Sprintf("steps %s missing: filled with steps that change nothing", gapSpan(prev.N+1, r.n-1)))
			for n := prev.N + 1; n < r.n; n++ {
				p := &ep.Turns[len(ep.Turns)-1]
				ep.Turns = append(ep.Turns, Turn{N: n, Score: p.Score, LocStart: p.LocEnd, LocEnd: p.LocEnd, Filled: true})
				ep.Outputs = append(ep.Outputs, "")
				ep.Steps = append(ep.Steps, StepInfo{Kind: StepAction})
			}
			prev = &ep.Turns[len(ep.Turns)-1]
		}
	}
	turn := Turn{N: r.n}
	if prev != nil {
		turn.Score, turn.LocStart, turn.LocEnd = prev.Score, prev.LocEnd, prev.LocEnd
	}
	if r.hasScore {
		turn.Score = r.score
		ep.HasScore = true
	}
	if r.hasLoc {
		loc := t.str(FoldName(r.location))
		if prev == nil {
			turn.LocStart = loc
		}
		turn.Moved = prev != nil && loc != turn.LocStart
		turn.LocEnd = loc
		if ep.RoomNames == nil {
			ep.RoomNames = map[string]string{}
		}
		if _, ok := ep.RoomNames[loc]; !ok {
			ep.RoomNames[loc] = strings.TrimSpace(r.location)
		}
	}
	if r.info.Kind == StepAction && strings.TrimSpace(r.action) != "" {
		turn.Action, turn.HasAction = t.str(r.action), true
	}
	ep.Turns = append(ep.Turns, turn)
	ep.Outputs = append(ep.Outputs, t.str(r.output))
	ep.Steps = append(ep.Steps, r.info)
	return ""
}

func gapSpan(a, b int) string {
	if a == b {
		return strconv.Itoa(a)
	}
	return fmt.Sprintf("%d–%d", a, b)
}

// recordSource yields a file's JSON records with the line each starts on.
// A JSONL file is one record a line; a file whose first byte is '[' is one
// JSON array (an OpenHands trajectory); a file holding a single object
// with a "messages" array is a Gemini CLI session (expanded by the preset).
type recordSource struct {
	br   *bufio.Reader
	max  int
	line int
}

type arrayRecord struct {
	line int
	raw  json.RawMessage
}

// errArray reports a whole-file document that cannot be read.
type docError struct {
	line   int
	reason string
}

func (e *docError) Error() string { return e.reason }

// nextLine returns the next non-blank line (nil at the end) and its number;
// tooLong is set for a line over max bytes (skipped, not held).
func (s *recordSource) nextLine() (line []byte, lineNo int, tooLong bool, err error) {
	for {
		var buf []byte
		n := 0
		for {
			chunk, e := s.br.ReadSlice('\n')
			n += len(chunk)
			if n <= s.max+2 {
				buf = append(buf, chunk...)
			} else {
				tooLong = true
				buf = nil
			}
			if e == bufio.ErrBufferFull {
				continue
			}
			err = e
			break
		}
		if n == 0 && err != nil {
			return nil, s.line, false, err
		}
		s.line++
		if tooLong {
			return nil, s.line, true, err
		}
		line = bytes.TrimSpace(buf)
		if len(line) == 0 {
			if err != nil {
				return nil, s.line, false, err
			}
			continue
		}
		return line, s.line, false, err
	}
}

// readDocument reads a whole-file JSON value: an array of records, or an
// object (a Gemini CLI session), with the line each element starts on.
func readDocument(r io.Reader, max int) ([]arrayRecord, json.RawMessage, error) {
	data, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if err != nil {
		return nil, nil, err
	}
	if len(data) > max {
		return nil, nil, &docError{line: 1, reason: fmt.Sprintf("a JSON document longer than %d bytes", max)}
	}
	lineAt := func(off int64) int { return 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n")) }
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		if !json.Valid(trimmed) {
			return nil, nil, &docError{line: 1, reason: "not a valid JSON document"}
		}
		return nil, trimmed, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // '['
		return nil, nil, &docError{line: 1, reason: "not a JSON array: " + err.Error()}
	}
	var out []arrayRecord
	for dec.More() {
		start := dec.InputOffset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			// The rest of the array cannot be delimited: keep what was read.
			return out, nil, &docError{line: lineAt(start), reason: "invalid JSON in the array: " + err.Error()}
		}
		// InputOffset points before the separator and spaces: skip them.
		at := start
		for at < int64(len(data)) && (data[at] == ',' || data[at] == ' ' || data[at] == '\n' || data[at] == '\r' || data[at] == '\t') {
			at++
		}
		out = append(out, arrayRecord{line: lineAt(at), raw: raw})
	}
	return out, nil, nil
}

// decodeObject decodes one record, numbers kept as json.Number.
func decodeObject(raw []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if san, ok := sanitizeNonFinite(raw); ok {
			return decodeObject(san)
		}
		return nil, fmt.Errorf("invalid JSON")
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value on the line")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not a JSON object")
	}
	return m, nil
}

// lookup follows a dotted path into nested objects.
func lookup(m map[string]any, path string) (any, bool) {
	var cur any = m
	for _, part := range strings.Split(path, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[part]; !ok {
			return nil, false
		}
	}
	return cur, cur != nil
}

// asText reads a value as text: a string as is, anything else as its
// compact JSON (a structured tool result is still an output).
func asText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// asInt reads an integral number, or a string holding one.
func asInt(v any) (int, bool) {
	var f float64
	switch x := v.(type) {
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return 0, false
		}
	case string:
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(x), 64); err != nil {
			return 0, false
		}
	case float64:
		f = x
	default:
		return 0, false
	}
	if f != math.Trunc(f) || math.Abs(f) > MaxTurnNumber*10 {
		return 0, false
	}
	return int(f), true
}

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
	case float64:
		return x, true
	}
	return 0, false
}

// asBool reads a flag: a boolean, a non-zero number, or a string such as
// "true" / "error".
func asBool(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case json.Number:
		f, err := x.Float64()
		return err == nil && f != 0
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "", "false", "0", "no", "ok", "success", "none", "null":
			return false
		}
		return true
	}
	return false
}

// mapStep reads one record of the steps format through fields (field →
// dotted path; a field not in the map is read under its own name).
func mapStep(m map[string]any, fields map[string]string) (stepRecord, string) {
	path := func(f string) string {
		if p, ok := fields[f]; ok {
			return p
		}
		return f
	}
	var r stepRecord
	if v, ok := lookup(m, path("step")); ok {
		n, ok := asInt(v)
		if !ok {
			return r, fmt.Sprintf("step %s is not an integer", asText(v))
		}
		r.n, r.hasStep = n, true
	}
	if v, ok := lookup(m, path("action")); ok {
		r.action, r.hasAction = asText(v), true
	}
	if v, ok := lookup(m, path("output")); ok {
		r.output, r.hasText = asText(v), true
	}
	r.info.Kind = StepAction
	if v, ok := lookup(m, path("kind")); ok {
		switch k := strings.ToLower(strings.TrimSpace(asText(v))); k {
		case "action", "":
		case "message":
			r.info.Kind = StepMessage
		case "condensation":
			r.info.Kind = StepCondensation
		default:
			return r, fmt.Sprintf("kind %q is not action, message or condensation", k)
		}
	} else if !r.hasAction {
		r.info.Kind = StepMessage // text without a call is the agent speaking
	}
	if v, ok := lookup(m, path("error")); ok {
		r.info.Error = asBool(v)
	}
	if v, ok := lookup(m, path("exit_code")); ok {
		if c, ok := asInt(v); ok {
			r.info.ExitCode, r.info.HasExitCode = c, true
		}
	}
	if v, ok := lookup(m, path("llm_loop")); ok {
		r.info.LLMLoop = asBool(v)
	}
	if v, ok := lookup(m, path("score")); ok {
		if f, ok := asFloat(v); ok {
			r.score, r.hasScore = f, true
		}
	}
	if v, ok := lookup(m, path("location")); ok {
		if s := asText(v); strings.TrimSpace(s) != "" {
			r.location, r.hasLoc = s, true
		}
	}
	return r, ""
}

// stepReader turns records into steps for one preset (or the plain
// mapping); record returns the steps a record makes, or why it was
// skipped. finish returns steps still pending at the end of the input.
type stepReader interface {
	record(m map[string]any) ([]stepRecord, string)
	finish() []stepRecord
}

type fieldReader struct{ fields map[string]string }

func (f fieldReader) record(m map[string]any) ([]stepRecord, string) {
	r, reason := mapStep(m, f.fields)
	if reason != "" {
		return nil, reason
	}
	return []stepRecord{r}, ""
}

func (fieldReader) finish() []stepRecord { return nil }

func newStepReader(preset string, fields map[string]string) (stepReader, error) {
	switch preset {
	case "":
		return fieldReader{fields}, nil
	case PresetOpenHands:
		return &openHandsReader{}, nil
	case PresetGeminiCLI:
		return &geminiReader{}, nil
	}
	return nil, fmt.Errorf("unknown preset %q (want %s)", preset, strings.Join(Presets, " or "))
}

// readSteps reads a steps log: one episode (one session) per file.
func readSteps(br *bufio.Reader, c *readContext) error {
	sr, err := newStepReader(c.opts.Preset, c.opts.Fields)
	if err != nil {
		return err
	}
	t := newStepTable(c.defaultID, c.source)
	t.ep.Preset, t.ep.Detected = c.opts.Preset, c.detected
	d := &t.ep.Diag
	relevant := 0
	skip := func(line int, reason string) error {
		d.Skipped++
		e := &LineError{File: c.source, Line: line, Reason: reason}
		d.problem(e.Error())
		if c.opts.Strict {
			return e
		}
		return nil
	}
	addAll := func(line int, recs []stepRecord) error {
		for _, r := range recs {
			if reason := t.add(r); reason != "" {
				if err := skip(line, reason); err != nil {
					return err
				}
				continue
			}
			relevant++
		}
		return nil
	}
	handle := func(line int, raw []byte) error {
		d.Lines++
		m, err := decodeObject(raw)
		if err != nil {
			return skip(line, err.Error())
		}
		if msgs, ok := m["messages"].([]any); ok && c.opts.Preset == PresetGeminiCLI {
			// A whole Gemini CLI session: each message is a record.
			for _, msg := range msgs {
				mm, ok := msg.(map[string]any)
				if !ok {
					if err := skip(line, "a message that is not an object"); err != nil {
						return err
					}
					continue
				}
				if err := handleRecord(sr, mm, line, skip, addAll); err != nil {
					return err
				}
			}
			return nil
		}
		return handleRecord(sr, m, line, skip, addAll)
	}

	if first := peekFirstByte(br); first == '[' || (first == '{' && c.opts.Preset == PresetGeminiCLI && !isJSONL(br)) {
		recs, doc, err := readDocument(br, c.maxLine)
		if doc != nil {
			if err := handle(1, doc); err != nil {
				return err
			}
		}
		for _, rec := range recs {
			if err := handle(rec.line, rec.raw); err != nil {
				return err
			}
		}
		if err != nil {
			var de *docError
			if de2, ok := err.(*docError); ok {
				de = de2
			} else {
				return fmt.Errorf("%s: %w", c.source, err)
			}
			d.Lines++
			if err := skip(de.line, de.reason); err != nil {
				return err
			}
		}
	} else {
		src := recordSource{br: br, max: c.maxLine}
		for {
			line, lineNo, tooLong, err := src.nextLine()
			if tooLong {
				d.Lines++
				if perr := skip(lineNo, fmt.Sprintf("line longer than %d bytes", c.maxLine)); perr != nil {
					return perr
				}
			} else if line != nil {
				if perr := handle(lineNo, line); perr != nil {
					return perr
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				return fmt.Errorf("%s:%d: %w", c.source, lineNo+1, err)
			}
		}
	}
	// Steps still pending at the end (an OpenHands call without its
	// observation) are charged to the last line read.
	if err := addAll(d.Lines, sr.finish()); err != nil {
		return err
	}
	if relevant == 0 {
		ne := &NoEventsError{File: c.source, Lines: d.Lines, Skipped: d.Skipped, What: "steps"}
		if len(d.Problems) > 0 {
			ne.First = d.Problems[0]
		}
		return ne
	}
	ep := t.ep
	if ep.RoomNames == nil {
		ep.RoomNames = map[string]string{}
	}
	return c.emit(ep)
}

func handleRecord(sr stepReader, m map[string]any, line int, skip func(int, string) error, addAll func(int, []stepRecord) error) error {
	recs, reason := sr.record(m)
	if reason != "" {
		return skip(line, reason)
	}
	return addAll(line, recs)
}

func peekFirstByte(br *bufio.Reader) byte {
	for n := 1; ; n++ {
		b, err := br.Peek(n)
		if len(b) < n || err != nil {
			return 0
		}
		switch c := b[n-1]; c {
		case ' ', '\t', '\r', '\n':
			if n >= 4096 {
				return 0
			}
			continue
		default:
			return c
		}
	}
}

// isJSONL says the buffered start of the input holds a complete object on
// its first line followed by more: JSONL rather than one pretty-printed
// document.
func isJSONL(br *bufio.Reader) bool {
	b, _ := br.Peek(br.Size())
	b = bytes.TrimLeft(b, " \t\r\n")
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return false
	}
	return json.Valid(b[:i]) && len(bytes.TrimSpace(b[i:])) > 0
}

// sortedKeys lists a map's keys in order, for deterministic actions.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
