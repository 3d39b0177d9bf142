package rules

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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
// ./loopbreak.toml, else ./pyproject.toml if it has a [tool.zorkgpt] table
// (ZorkGPT's own file: without the loop-break table LoadFile warns and
// uses the defaults, so a misspelt table is not silently skipped), else
// none.
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
	tp := tablePath(py)
	if _, ok := lookupTable(doc, tp[:len(tp)-1]); ok {
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

// LoadFile applies a config file over cfg. It accepts what ZorkGPT's
// loader accepts and refuses what it refuses (RULES.md §1, configuration
// parity); errors name file, line, key and constraint. Warnings, in file
// order, are notes the user should read: each coercion ZorkGPT would apply
// silently ("40" read as 40); in a pyproject.toml, unknown keys (the agent's
// file may carry keys newer than loopbreak), keys ZorkGPT ignores and a
// missing or misspelt loop_break table. Unknown keys are errors in
// loopbreak.toml.
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
	py := isPyproject(path)
	table, ok := lookupTable(doc, tp)
	if !ok {
		if py {
			if parent, ok := lookupTable(doc, tp[:len(tp)-1]); ok && parent[tp[len(tp)-1]] != nil {
				// ZorkGPT calls .get on it and crashes: refuse it too.
				return nil, &FileError{File: path, Line: tableLine(data, tp), Key: tp[len(tp)-1],
					Msg: fmt.Sprintf("%s is %s, not a table", strings.Join(tp, "."), describe(parent[tp[len(tp)-1]]))}
			}
			return append(warnings, missingTable(doc, data, path, tp)), nil
		}
		return nil, &FileError{File: path, Msg: fmt.Sprintf("no [%s] table", strings.Join(tp, "."))}
	}
	lines := keyLines(data, tp)
	type located struct {
		line int
		msg  string
	}
	var notes []located
	warn := func(line int, key, msg string) {
		notes = append(notes, located{line, (&FileError{File: path, Line: line, Key: key, Msg: msg}).Error()})
	}
	for _, key := range slices.Sorted(maps.Keys(table)) {
		line := lines[key]
		p, known := LookupParam(key)
		if !known {
			msg := fmt.Sprintf("unknown key %s%s", ShortKey(key), suggest(key))
			if py {
				warn(line, key, msg+" (ignored)")
				continue
			}
			return nil, &FileError{File: path, Line: line, Key: key, Msg: msg}
		}
		v, how, cerr := p.coerce(table[key])
		if cerr != nil {
			return nil, &FileError{File: path, Line: line, Key: key, Msg: fmt.Sprintf("%s %v", key, cerr)}
		}
		if how != "" {
			reader := "ZorkGPT reads it as"
			if p.Unread != "" {
				reader = "read as" // ZorkGPT does not read it at all
			}
			warn(line, key, fmt.Sprintf("%s = %s: %s; %s %s", key, tomlValue(table[key]), how, reader, FormatValue(v)))
		}
		if py && p.Unread != "" {
			warn(line, key, fmt.Sprintf("%s: ZorkGPT ignores this key; the live agent would %s", key, p.Unread))
		}
		cfg.values[key] = v
		cfg.sources[key] = Source{Kind: "file", File: path, Line: line}
	}
	// In file order, so they read top to bottom; keys are visited by name.
	slices.SortStableFunc(notes, func(a, b located) int { return a.line - b.line })
	for _, n := range notes {
		warnings = append(warnings, n.msg)
	}
	return warnings, nil
}

// tomlValue writes a decoded value as the file spelt it, near enough.
func tomlValue(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return FormatValue(v)
}

// missingTable is the warning for a pyproject.toml without the loop-break
// table. ZorkGPT then runs with its defaults, and so does loopbreak, but
// a misspelt table ([tool.zorkgpt.loop_breaker]) is more likely than an
// intended one: the nearest table under [tool.zorkgpt] is named.
func missingTable(doc map[string]any, data []byte, path string, tp []string) string {
	parent, ok := lookupTable(doc, tp[:len(tp)-1])
	if !ok {
		return fmt.Sprintf("%s: no [%s] table; using defaults", path, strings.Join(tp, "."))
	}
	want := tp[len(tp)-1]
	best, bestD := "", 4
	for _, name := range slices.Sorted(maps.Keys(parent)) {
		if _, isTable := parent[name].(map[string]any); !isTable {
			continue
		}
		norm := strings.ReplaceAll(strings.ToLower(name), "-", "_")
		if d := EditDistance(norm, want); d < bestD {
			best, bestD = name, d
		}
	}
	parentName := strings.Join(tp[:len(tp)-1], ".")
	if best == "" {
		return fmt.Sprintf("%s: [%s] has no %s table; ZorkGPT and loopbreak use the defaults", path, parentName, want)
	}
	at := append(slices.Clip(tp[:len(tp)-1]), best)
	return (&FileError{File: path, Line: tableLine(data, at),
		Msg: fmt.Sprintf("[%s] has no %s table but has %s: did you mean %s? ZorkGPT ignores %s and runs with the defaults; so does this analysis",
			parentName, want, best, want, best)}).Error()
}

// tableLine returns the line where the table at path is first written:
// its [header], or the first key written under it as a dotted key or an
// inline table; 0 when not found.
func tableLine(data []byte, path []string) int {
	var p unstable.Parser
	p.Reset(data)
	var table []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table:
			parts, last := keyParts(&p, e.Key())
			if len(parts) >= len(path) && slices.Equal(parts[:len(path)], path) {
				return p.Shape(last.Raw).Start.Line
			}
			table = parts
		case unstable.ArrayTable:
			table = []string{"\x00"}
		case unstable.KeyValue:
			parts, last := keyParts(&p, e.Key())
			full := append(slices.Clip(table), parts...)
			if len(full) >= len(path) && slices.Equal(full[:len(path)], path) {
				return p.Shape(last.Raw).Start.Line
			}
		}
	}
	return 0
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
