package analyze

// Labelled episodes (issue 11): spans of turns a person judged stuck, and
// how each rule's firings score against them. false_termination judges a
// rule against the recording's own future; labels judge it against people.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"

	"github.com/loopbreak/loopbreak/replay"
)

// LabelsSidecar is the file name read next to each log.
const LabelsSidecar = "labels.json"

// LabelsSchemaVersion is the only schema_version a labels file may state.
const LabelsSchemaVersion = 1

// Span is an inclusive range of turn (or step, or attempt) numbers a
// person judged stuck: the unit is whatever the log numbers its firings by.
type Span struct {
	From int    `json:"from"`
	To   int    `json:"to"`
	Note string `json:"note,omitempty"`
}

// EpisodeLabels are one episode's spans, sorted and disjoint. No spans
// means the episode was labelled "never stuck": every firing is a false
// positive there.
type EpisodeLabels struct {
	Source string // the labels file they come from
	Stuck  []Span
}

// LabelsFile is a parsed labels file: either keyed by episode id (the
// "episodes" form) or one episode's spans (the sidecar's "stuck" form).
type LabelsFile struct {
	Path     string
	Episodes map[string]*EpisodeLabels // the "episodes" form
	Single   *EpisodeLabels            // the "stuck" form: the log's one episode
}

// LabelsError is a labels file that breaks the format: File, the JSON
// path of the offending value ($ is the document) and why.
type LabelsError struct {
	File, Path, Reason string
}

func (e *LabelsError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("%s: %s", e.File, e.Reason)
	}
	return fmt.Sprintf("%s: %s: %s", e.File, e.Path, e.Reason)
}

// maxLabelsBytes bounds a labels file: people write them, so anything
// larger is not one.
const maxLabelsBytes = 64 << 20

// ReadLabelsFile reads and validates a labels file.
func ReadLabelsFile(path string) (*LabelsFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxLabelsBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxLabelsBytes {
		return nil, &LabelsError{File: path, Reason: fmt.Sprintf("larger than %d MiB", maxLabelsBytes>>20)}
	}
	return ParseLabels(path, data)
}

// ParseLabels validates data as a labels file named name (for errors).
// Validation is strict: unknown keys, wrong types, non-integral or
// negative turns, from > to and overlapping spans are errors, each naming
// the JSON path.
func ParseLabels(name string, data []byte) (*LabelsFile, error) {
	fail := func(path, format string, a ...any) error {
		return &LabelsError{File: name, Path: path, Reason: fmt.Sprintf(format, a...)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fail("", "not JSON: %s", jsonErr(data, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fail("", "not JSON: more than one value")
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return nil, fail("$", "must be an object, got %s", jsonType(doc))
	}
	lf := &LabelsFile{Path: name}
	if v, ok := top["schema_version"]; ok {
		n, ok := v.(json.Number)
		if !ok || n.String() != strconv.Itoa(LabelsSchemaVersion) {
			return nil, fail("$.schema_version", "must be %d, got %s", LabelsSchemaVersion, jsonText(v))
		}
	}
	_, hasEps := top["episodes"]
	_, hasStuck := top["stuck"]
	switch {
	case hasEps && hasStuck:
		return nil, fail("$", `has both "episodes" and "stuck": use one form`)
	case !hasEps && !hasStuck:
		return nil, fail("$", `needs "episodes" (spans by episode id) or "stuck" (this log's spans)`)
	}
	for _, k := range sortedKeys(top) {
		if k != "schema_version" && k != "episodes" && k != "stuck" {
			return nil, fail("$."+k, "unknown key (want schema_version, episodes or stuck)")
		}
	}
	if hasStuck {
		spans, err := parseSpans(top["stuck"], "$.stuck", fail)
		if err != nil {
			return nil, err
		}
		lf.Single = &EpisodeLabels{Source: name, Stuck: spans}
		return lf, nil
	}
	eps, ok := top["episodes"].(map[string]any)
	if !ok {
		return nil, fail("$.episodes", "must be an object keyed by episode id, got %s", jsonType(top["episodes"]))
	}
	if id, lines, dup := repeatedEpisode(data); dup {
		// encoding/json keeps the last silently: which spans were meant?
		return nil, fail("$.episodes["+strconv.Quote(id)+"]", "listed twice, on lines %d and %d", lines[0], lines[1])
	}
	lf.Episodes = make(map[string]*EpisodeLabels, len(eps))
	for _, id := range sortedKeys(eps) {
		path := "$.episodes[" + strconv.Quote(id) + "]"
		if id == "" {
			return nil, fail(path, "an episode id must not be empty")
		}
		ep, ok := eps[id].(map[string]any)
		if !ok {
			return nil, fail(path, `must be an object such as {"stuck": [...]}, got %s`, jsonType(eps[id]))
		}
		for _, k := range sortedKeys(ep) {
			if k != "stuck" {
				return nil, fail(path+"."+k, "unknown key (want stuck)")
			}
		}
		var spans []Span
		if v, ok := ep["stuck"]; ok {
			var err error
			if spans, err = parseSpans(v, path+".stuck", fail); err != nil {
				return nil, err
			}
		}
		lf.Episodes[id] = &EpisodeLabels{Source: name, Stuck: spans}
	}
	return lf, nil
}

// repeatedEpisode finds the first episode id the "episodes" object of a
// valid labels document lists twice, with the lines of both keys.
func repeatedEpisode(data []byte) (id string, lines [2]int, found bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	lineAt := func() int { return bytes.Count(data[:dec.InputOffset()], []byte{'\n'}) + 1 }
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", lines, false
	}
	seen := map[string]int{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return "", lines, false
		}
		if k != "episodes" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return "", lines, false
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return "", lines, false
		}
		for dec.More() {
			kt, err := dec.Token()
			key, ok := kt.(string)
			if err != nil || !ok {
				return "", lines, false
			}
			line := lineAt() // the key just read ends on this line
			if first, dup := seen[key]; dup {
				return key, [2]int{first, line}, true
			}
			seen[key] = line
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return "", lines, false
			}
		}
		if _, err := dec.Token(); err != nil { // the episodes object's '}'
			return "", lines, false
		}
	}
	return "", lines, false
}

// parseSpans validates a list of spans and returns them sorted by From.
func parseSpans(v any, path string, fail func(path, format string, a ...any) error) ([]Span, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fail(path, "must be a list of spans, got %s", jsonType(v))
	}
	spans := make([]Span, 0, len(list))
	idx := make([]int, 0, len(list)) // position as written, for errors after sorting
	for i, item := range list {
		p := fmt.Sprintf("%s[%d]", path, i)
		obj, ok := item.(map[string]any)
		if !ok {
			return nil, fail(p, `must be an object {"from": N, "to": N}, got %s`, jsonType(item))
		}
		var s Span
		for _, k := range sortedKeys(obj) {
			switch k {
			case "from", "to":
			case "note":
				note, ok := obj[k].(string)
				if !ok {
					return nil, fail(p+".note", "must be a string, got %s", jsonType(obj[k]))
				}
				s.Note = note
			default:
				return nil, fail(p+"."+k, "unknown key (want from, to or note)")
			}
		}
		for _, f := range []struct {
			key string
			dst *int
		}{{"from", &s.From}, {"to", &s.To}} {
			raw, ok := obj[f.key]
			if !ok {
				return nil, fail(p, "missing %q", f.key)
			}
			n, err := turnNumber(raw)
			if err != nil {
				return nil, fail(p+"."+f.key, "%v", err)
			}
			*f.dst = n
		}
		if s.From > s.To {
			return nil, fail(p, "from (%d) is after to (%d)", s.From, s.To)
		}
		spans = append(spans, s)
		idx = append(idx, i)
	}
	order := make([]int, len(spans))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return spans[order[a]].From < spans[order[b]].From })
	sorted := make([]Span, len(spans))
	for k, i := range order {
		sorted[k] = spans[i]
		if k > 0 {
			prev := sorted[k-1]
			if prev.To >= spans[i].From { // inclusive spans: sharing a turn is overlapping
				return nil, fail(fmt.Sprintf("%s[%d]", path, idx[i]), "overlaps %s[%d] (%d–%d)", path, idx[order[k-1]], prev.From, prev.To)
			}
		}
	}
	return sorted, nil
}

// maxLabelTurn matches the readers' largest number: a steps log's step
// may be any integer up to 2^53 (replay.MaxStepNumber), above ZorkGPT's
// turns.
const maxLabelTurn = replay.MaxStepNumber

func turnNumber(v any) (int, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("must be an integer, got %s", jsonType(v))
	}
	i, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil {
		// 21.0 is 21, 1e12 is 10^12; 21.5 is not a turn. A value past
		// int64 is range-checked as a float, before any conversion.
		f, ferr := strconv.ParseFloat(n.String(), 64)
		switch {
		case (ferr != nil && !errors.Is(ferr, strconv.ErrRange)) || f != math.Trunc(f):
			return 0, fmt.Errorf("must be an integer, got %s", n)
		case f < 0:
			return 0, fmt.Errorf("must not be negative, got %s", n)
		case f > maxLabelTurn:
			return 0, fmt.Errorf("must be at most %d, got %s", maxLabelTurn, n)
		}
		i = int64(f)
	}
	if i < 0 {
		return 0, fmt.Errorf("must not be negative, got %d", i)
	}
	if i > maxLabelTurn {
		return 0, fmt.Errorf("must be at most %d, got %d", maxLabelTurn, i)
	}
	return int(i), nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil || len(b) > 40 {
		return jsonType(v)
	}
	return string(b)
}

// jsonErr words a decoding error with its line and column.
func jsonErr(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Offset <= int64(len(data)) {
		before := data[:se.Offset]
		line := bytes.Count(before, []byte{'\n'}) + 1
		col := int(se.Offset) - bytes.LastIndexByte(before, '\n') - 1
		return fmt.Sprintf("line %d, column %d: %v", line, col, err)
	}
	if err == io.EOF {
		return "empty file"
	}
	return err.Error()
}
