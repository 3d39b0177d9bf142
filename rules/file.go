package rules

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Config files: a loopbreak.toml holds [loop_break]; a pyproject.toml holds
// ZorkGPT's own [tool.zorkgpt.loop_break]. The keys are the same.
const (
	OwnFile       = "loopbreak.toml"
	PyprojectFile = "pyproject.toml"
)

// FileError is a configuration problem located in a file.
type FileError struct {
	File string
	Line int // 0 when unknown
	Key  string
	Msg  string
}

func (e *FileError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
}

// isPyproject tells which table a file uses, by its name.
func isPyproject(path string) bool {
	return strings.EqualFold(filepath.Base(path), PyprojectFile)
}

// tablePath returns the dotted table holding loop-break keys.
func tablePath(path string) []string {
	if isPyproject(path) {
		return []string{"tool", "zorkgpt", "loop_break"}
	}
	return []string{"loop_break"}
}

// Discover finds the configuration to use in dir when --config is absent:
// ./loopbreak.toml, else ./pyproject.toml if it has the table, else none.
func Discover(dir string) (string, error) {
	own := filepath.Join(dir, OwnFile)
	if _, err := os.Stat(own); err == nil {
		return own, nil
	}
	py := filepath.Join(dir, PyprojectFile)
	data, err := os.ReadFile(py)
	if err != nil {
		return "", nil
	}
	var doc map[string]any
	if toml.Unmarshal(data, &doc) != nil {
		// Let the load report the syntax error with its position.
		return py, nil
	}
	if _, ok := lookupTable(doc, tablePath(py)); ok {
		return py, nil
	}
	return "", nil
}

func lookupTable(doc map[string]any, path []string) (map[string]any, bool) {
	cur := doc
	for _, p := range path {
		next, ok := cur[p].(map[string]any)
		if !ok {
			return nil, false
		}
		cur = next
	}
	return cur, true
}

// LoadFile applies a config file over cfg. Unknown keys are errors in
// loopbreak.toml and warnings in pyproject.toml (the agent's file may carry
// keys newer than loopbreak). Errors name file, line, key and constraint.
func LoadFile(cfg *Config, path string) (warnings []string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, _ := de.Position()
			return nil, &FileError{File: path, Line: line, Msg: "invalid TOML: " + de.Error()}
		}
		return nil, &FileError{File: path, Msg: "invalid TOML: " + err.Error()}
	}
	tp := tablePath(path)
	table, ok := lookupTable(doc, tp)
	if !ok {
		if isPyproject(path) {
			warnings = append(warnings, fmt.Sprintf("%s: no [%s] table; using defaults", path, strings.Join(tp, ".")))
			return warnings, nil
		}
		return nil, &FileError{File: path, Msg: fmt.Sprintf("no [%s] table", strings.Join(tp, "."))}
	}
	lines := keyLines(data, tp)
	for _, key := range slices.Sorted(maps.Keys(table)) {
		line := lines[key]
		p, known := LookupParam(key)
		if !known {
			msg := fmt.Sprintf("unknown key %s%s", ShortKey(key), suggest(key))
			if isPyproject(path) {
				warnings = append(warnings, (&FileError{File: path, Line: line, Key: key, Msg: msg + " (ignored)"}).Error())
				continue
			}
			return nil, &FileError{File: path, Line: line, Key: key, Msg: msg}
		}
		v, cerr := p.Coerce(table[key])
		if cerr != nil {
			return nil, &FileError{File: path, Line: line, Key: key, Msg: fmt.Sprintf("%s %v", key, cerr)}
		}
		cfg.values[key] = v
		cfg.sources[key] = Source{Kind: "file", File: path, Line: line}
	}
	return warnings, nil
}

// keyLines finds the line of each key of the table named by path, written
// under its [header], as a dotted key (loop_break.max_turns_stuck = 40) or
// in an inline table (loop_break = { max_turns_stuck = 40 }). The decoder
// gives no positions, so go-toml's own parser walks the file once more: its
// key nodes carry their byte ranges, and strings are never mistaken for
// headers. The file already decoded, so a parse error only ends the walk.
func keyLines(data []byte, path []string) map[string]int {
	out := map[string]int{}
	var p unstable.Parser
	p.Reset(data)
	var table []string // the current [header]; nil is the root table
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table:
			table, _ = keyParts(&p, e.Key())
		case unstable.ArrayTable:
			table = []string{"\x00"} // an array of tables is never ours
		case unstable.KeyValue:
			collectKeys(&p, e, table, path, out)
		}
	}
	return out
}

// collectKeys records the line of kv's key when it names a key of the
// table at path, and descends into an inline table that holds that table.
func collectKeys(p *unstable.Parser, kv *unstable.Node, table, path []string, out map[string]int) {
	parts, last := keyParts(p, kv.Key())
	full := append(slices.Clip(table), parts...)
	switch {
	case len(full) == len(path)+1 && slices.Equal(full[:len(path)], path):
		if _, seen := out[full[len(path)]]; !seen {
			out[full[len(path)]] = p.Shape(last.Raw).Start.Line
		}
	case len(full) <= len(path) && slices.Equal(full, path[:len(full)]) && kv.Value().Kind == unstable.InlineTable:
		for it := kv.Value().Children(); it.Next(); {
			collectKeys(p, it.Node(), full, path, out)
		}
	}
}

// keyParts returns a dotted key's parts and its last part's node.
func keyParts(p *unstable.Parser, it unstable.Iterator) (parts []string, last *unstable.Node) {
	for it.Next() {
		last = it.Node()
		parts = append(parts, string(last.Data))
	}
	return parts, last
}

// LocateConstraint locates a violated cross-key constraint at the file
// line of the first key involved that the file set, if any.
func (c *Config) LocateConstraint(err error) error {
	var ce *ConstraintError
	if !errors.As(err, &ce) {
		return err
	}
	for _, k := range ce.Keys {
		if s := c.sources[k]; s.Kind == "file" {
			return &FileError{File: s.File, Line: s.Line, Key: k, Msg: ce.Msg}
		}
	}
	for _, k := range ce.Keys {
		if s := c.sources[k]; s.Kind == "flag" {
			return fmt.Errorf("--set %s: %s", k, ce.Msg)
		}
	}
	return err
}
