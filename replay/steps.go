package replay

// Reading `steps` logs (one step of any agent per record) into the turn
// table, so the generic rules (RULES.md §8) and the peer detectors (§11)
// replay over any agent's log; attempts.go reads `attempts` logs.

import (
	"bufio"
	"fmt"
	"io"
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
var Presets = []string{PresetOpenHands, PresetOpenHandsV1, PresetGeminiCLI}

func init() {
	// The agents of agent_presets.go are presets and input formats both.
	Presets = append(Presets, agentPresets...)
	Formats = append(Formats, agentPresets...)
}

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
// output, score and location. A session holds one a step, so it is 16
// bytes: the exit code is an int32 in the row, one past int32 (logged,
// so read exactly) is kept beside the table (Episode.ExitCode reads
// either).
type StepInfo struct {
	Kind        StepKind
	Error       bool // the tool call failed
	HasExitCode bool // a shell command's result: Episode.ExitCode
	LLMLoop     bool // a logged LLM loop verdict (Gemini CLI's LLM_DETECTED_LOOP)
	NewPrompt   bool // a user prompt came in before this step (a detector may reset: Gemini CLI does)
	Thinking    bool // a message step holding the model's reasoning, not its text
	// wideExit: the exit code does not fit exit; it is in
	// Episode.wideExits.
	wideExit bool
	exit     int32
	// Canonical is the action with its arguments' keys sorted, when the
	// reader keeps the arguments in the order logged in the action (0: none).
	Canonical Sym
}

// ExitCode returns the exit code of Steps[i], false when it has none.
func (e *Episode) ExitCode(i int) (int, bool) {
	if uint(i) >= uint(len(e.Steps)) || !e.Steps[i].HasExitCode {
		return 0, false
	}
	if s := &e.Steps[i]; !s.wideExit {
		return int(s.exit), true
	}
	return e.wideExits[i], true
}

// setExitCode puts a step's exit code into info, the row of Steps[i]:
// in the row when it fits an int32 (a shell's do), in wideExits when not
// (a Windows status read unsigned, 4294967295: rare, and never clamped).
func (e *Episode) setExitCode(info *StepInfo, i, code int) {
	info.HasExitCode = true
	if code == int(int32(code)) {
		info.exit, info.wideExit = int32(code), false
		return
	}
	if e.wideExits == nil {
		e.wideExits = map[int]int{}
	}
	info.exit, info.wideExit = 0, true
	e.wideExits[i] = code
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

// stepReader turns records into steps for one preset (or the plain
// mapping): each implements one of valueStepReader, rawStepReader or
// docStepReader, which return the steps a record makes
// or why it was skipped. finish returns steps still pending at the end of
// the input.
type stepReader interface {
	finish() []stepRecord
}

// eachFinisher is a stepReader that holds its whole input until the end
// (the Gemini CLI's, whose records rewrite and rewind earlier messages):
// finishEach hands its steps over one at a time, each let go once added,
// where finish would hold them all in one slice beside the table.
type eachFinisher interface {
	finishEach(add func(stepRecord) error) error
}

// valueStepReader reads a record validated once and read in place, with
// no encoding/json (rawjson.go).
type valueStepReader interface {
	stepReader
	recordValue(v rawValue) ([]stepRecord, string)
}

// indexedValueStepReader is a valueStepReader that reads a record
// validated into a valueIndex (readDocumentIx) with it.
type indexedValueStepReader interface {
	valueStepReader
	recordValueIx(v rawValue, ix *valueIndex) ([]stepRecord, string)
}

// fieldReader reads the steps format through --field's paths.
type fieldReader struct {
	paths *stepPaths
	out   [1]stepRecord // the record's step, consumed before the next record
}

func newFieldReader(fields map[string]string) *fieldReader {
	return &fieldReader{paths: newStepPaths(fields)}
}

func (f *fieldReader) recordValue(v rawValue) ([]stepRecord, string) {
	r, reason := valueStep(v, f.paths)
	if reason != "" {
		return nil, reason
	}
	f.out[0] = r
	return f.out[:], ""
}

// recordRaw reads a line: validated and read in one pass.
func (f *fieldReader) recordRaw(raw []byte, _ int) ([]stepRecord, string) {
	r, reason := lineStep(raw, f.paths)
	if reason != "" {
		return nil, reason
	}
	f.out[0] = r
	return f.out[:], ""
}

func (*fieldReader) finish() []stepRecord { return nil }

// rawStepReader reads records from their JSON text, not decoded into a
// Go map, to keep what that loses (the order of a call's argument keys,
// which some agents' detectors compare; JavaScript's strings for the
// Gemini CLI's keys).
type rawStepReader interface {
	stepReader
	recordRaw(raw []byte, line int) ([]stepRecord, string)
}

// notingStepReader has notes for the episode at the end of the log.
type notingStepReader interface {
	notes() []string
}

func newStepReader(preset string, fields map[string]string) (stepReader, error) {
	switch preset {
	case "":
		return newFieldReader(fields), nil
	case PresetOpenHands:
		return &openHandsReader{}, nil
	case PresetOpenHandsV1:
		return &openHandsV1Reader{}, nil
	case PresetGeminiCLI:
		return &geminiReader{}, nil
	}
	if r := newAgentReader(preset); r != nil {
		return r, nil
	}
	return nil, fmt.Errorf("unknown preset %q (want %s)", preset, strings.Join(Presets, " or "))
}

// readSteps reads a steps log: one episode (one session) per file.
func readSteps(br *bufio.Reader, c *readContext) error {
	if c.opts.Preset == PresetOpenHands && isOpenHandsEval(peekStart(br)) {
		c.opts.spool.drop()             // nothing will read the input again
		return readOpenHandsEval(br, c) // one instance a line
	}
	sr, err := newStepReader(c.opts.Preset, c.opts.Fields)
	if err != nil {
		return err
	}
	t := newStepTable(c.defaultID, c.source)
	t.input = c.input
	t.ep.Preset, t.ep.Detected = c.opts.Preset, c.detected
	if h, ok := sr.(interface{ start(*Episode) }); ok {
		h.start(t.ep) // a reader that records more than steps
	}
	if id := agentEpisodeID(c.opts.Preset, c.source); id != "" {
		t.ep.ID = id
	}
	if n := agentNote(c.opts.Preset); n != "" {
		t.ep.Diag.note(n)
	}
	if c.opts.Stepper != nil {
		if t.mode = streamMode(sr, br, c.opts.rereadable); t.mode != readWhole {
			t.stepper = c.opts.Stepper(t.ep)
			// The outputs unescaped where the table keeps them.
			switch r := sr.(type) {
			case *fieldReader:
				r.paths.copies = &t.copies
				t.ep.outputsRecycled = true // it writes there only the outputs it hands over (stepcopy.go)
			case *openHandsReader:
				r.copies = &t.copies
			case *openHandsV1Reader:
				r.copies = &t.copies
			case *claudeCodeReader:
				r.copies = &t.copies
			}
			t.ep.Stepped = t.stepper
			t.ep.streamed = t.mode == stepBehind
		}
	}
	if g, ok := sr.(*geminiReader); !ok || !g.speculate {
		c.opts.spool.drop() // nothing will read the input again
	}
	d := &t.ep.Diag
	relevant := 0
	skip := func(line int, reason string) error { return c.skip(d, line, reason) }
	addOne := func(line int, r stepRecord) error {
		if reason := t.add(r); reason != "" {
			return skip(line, reason)
		}
		relevant++
		return nil
	}
	addAll := func(line int, recs []stepRecord) error {
		for _, r := range recs {
			if err := addOne(line, r); err != nil {
				return err
			}
		}
		return nil
	}
	fr, _ := sr.(*fieldReader)
	var rec stepRecord // fr's step, written and added in place
	handle := func(line int, raw []byte) error {
		d.Lines++
		if fr != nil {
			// The steps format's own reader, called straight: its one
			// step is written where the table reads it, not copied
			// into a slice of one and out again, and no interface is
			// asserted a line.
			reason := lineStepInto(&rec, raw, fr.paths)
			if reason == "" {
				reason = t.addRec(&rec)
				if reason == "" {
					relevant++
					return nil
				}
			}
			return skip(line, reason)
		}
		if rr, ok := sr.(rawStepReader); ok {
			recs, reason := rr.recordRaw(raw, line)
			if reason != "" {
				return skip(line, reason)
			}
			return addAll(line, recs)
		}
		if vr, ok := sr.(valueStepReader); ok {
			v, err := parseRecord(raw, true)
			if err != nil {
				return skip(line, err.Error())
			}
			recs, reason := vr.recordValue(v)
			if reason != "" {
				return skip(line, reason)
			}
			return addAll(line, recs)
		}
		return fmt.Errorf("%s: the %s reader reads whole documents only", c.source, c.opts.Preset)
	}

	// failed: a read replayed as read went wrong (gemini_stream.go).
	failed := func() bool {
		f, ok := sr.(interface{ speculationFailed() bool })
		return ok && f.speculationFailed()
	}
	if o, ok := sr.(interface {
		setOut(func([]stepRecord) error)
	}); ok {
		o.setOut(func(recs []stepRecord) error { return addAll(d.Lines, recs) })
	}
	if dr, ok := sr.(docStepReader); ok {
		add := func(line int, recs []stepRecord) error {
			d.Lines++
			if failed() {
				return errRereadWhole
			}
			return addAll(line, recs)
		}
		skipRec := func(line int, reason string) error {
			d.Lines++
			if failed() {
				return errRereadWhole
			}
			return skip(line, reason)
		}
		if err := dr.readDoc(br, add, skipRec); err != nil {
			de, ok := err.(*docError)
			if !ok {
				return err // a --strict problem, or the file cannot be read
			}
			d.Lines++
			if err := skip(de.line, de.reason); err != nil {
				return err
			}
		}
	} else if first := peekFirstByte(br); first == '[' || (first == '{' && (c.opts.Preset == PresetGeminiCLI || wholeDocument(c.opts.Preset)) && !isJSONL(br)) {
		skipElement := func(line int, reason string) error { d.Lines++; return skip(line, reason) }
		element := handle
		vr, inPlace := sr.(valueStepReader)
		// An element indexed as it is validated (readDocumentIx), for
		// a reader that walks it with the index.
		var ix valueIndex
		ixr, _ := sr.(indexedValueStepReader)
		if !inPlace {
			ixr = nil
		}
		if inPlace {
			// readDocument validated the element: read it as it stands.
			element = func(line int, raw []byte) error {
				d.Lines++
				v := rawValue(raw)
				if v.Kind() != '{' {
					return skip(line, errRecordNotObject.Error())
				}
				var recs []stepRecord
				var reason string
				if ixr != nil {
					recs, reason = ixr.recordValueIx(v, &ix)
				} else {
					recs, reason = vr.recordValue(v)
				}
				if reason != "" {
					return skip(line, reason)
				}
				return addAll(line, recs)
			}
		}
		var index *valueIndex // ix, when the reader walks an element with it
		if ixr != nil {
			index = &ix
		}
		if err := readDocumentIx(br, c.maxLine, inPlace, index, element, skipElement); err != nil {
			de, ok := err.(*docError)
			if !ok {
				if _, isLine := err.(*LineError); isLine {
					return err // a --strict problem
				}
				return fmt.Errorf("%s: %w", c.source, err)
			}
			d.Lines++
			if err := skip(de.line, de.reason); err != nil {
				return err
			}
		}
	} else {
		src := recordSource{br: br, max: c.maxLine, reuse: keepsNoLine(sr)}
		flat := fr != nil && fr.paths.flat && fr.paths.flatKeys.ok
		for {
			if flat {
				// A flat line read where it lies among the lines
				// buffered, its end found by its reading.
				if rest := src.pending(); len(rest) > 0 {
					if n, reason := flatLineStep(&rec, rest, fr.paths, src.max); n > 0 {
						lineNo := src.took(n)
						d.Lines++
						if reason == "" {
							reason = t.addRec(&rec)
						}
						if reason == "" {
							relevant++
						} else if perr := skip(lineNo, reason); perr != nil {
							return perr
						}
						continue
					}
				}
			}
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
	if fe, ok := sr.(eachFinisher); ok {
		if err := fe.finishEach(func(r stepRecord) error { return addOne(d.Lines, r) }); err != nil {
			return err
		}
	} else if err := addAll(d.Lines, sr.finish()); err != nil {
		return err
	}
	if nr, ok := sr.(notingStepReader); ok {
		for _, n := range nr.notes() {
			d.note(n)
		}
	}
	t.stepRest()
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
	ep.syms.ids, ep.syms.fold = symIndex{}, nil // the strings stay; the map that interned them goes
	ep.acts.ids, ep.acts.fold = symIndex{}, nil
	return c.emit(ep)
}
