package rules

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
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
	for _, key := range SortedKeys(table) {
		line := lines[key]
		p, known := LookupParam(key)
		if !known {
			msg := fmt.Sprintf("unknown key %s%s", key, suggest(key))
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
// in an inline table (loop_break = { max_turns_stuck = 40 }). go-toml/v2
// decodes without positions, so the file is scanned once more by line.
func keyLines(data []byte, path []string) map[string]int {
	out := map[string]int{}
	record := func(key string, n int) {
		if _, seen := out[key]; !seen {
			out[key] = n
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var table []string        // the current [header]; nil is the root table
	other := []string{"\x00"} // a table that is never ours
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[[") {
			table = other // an array of tables is never ours
			continue
		}
		if rest, ok := strings.CutPrefix(line, "["); ok {
			if parts, after, ok := splitKey(rest); ok && strings.HasPrefix(strings.TrimSpace(after), "]") {
				table = parts
			}
			// else: a value's continuation line ("[1, 2],"), the table goes on
			continue
		}
		parts, after, ok := splitKey(line)
		if !ok || !strings.HasPrefix(strings.TrimSpace(after), "=") {
			continue
		}
		full := append(append([]string(nil), table...), parts...)
		switch {
		case len(full) == len(path)+1 && slices.Equal(full[:len(path)], path):
			record(full[len(path)], n)
		case len(full) <= len(path) && slices.Equal(full, path[:len(full)]):
			// An inline table holding ours: every key = in it, on this line.
			value := strings.TrimSpace(after)[1:]
			for _, m := range inlineKeyRE.FindAllStringSubmatch(value, -1) {
				if ks, _, ok := splitKey(m[1]); ok && len(ks) > 0 {
					record(ks[len(ks)-1], n)
				}
			}
		}
	}
	return out
}

var inlineKeyRE = regexp.MustCompile(`[{,]\s*((?:[A-Za-z0-9_\-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_\-]+|"[^"]*"|'[^']*'))*)\s*=`)

// splitKey reads a TOML dotted key (bare, "basic" or 'literal' parts) at
// the start of s and returns its parts and what follows it.
func splitKey(s string) (parts []string, rest string, ok bool) {
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return nil, "", false
		}
		var part string
		switch s[0] {
		case '"':
			end := 1
			for end < len(s) && s[end] != '"' {
				if s[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(s) {
				return nil, "", false
			}
			u, err := strconv.Unquote(s[:end+1])
			if err != nil {
				return nil, "", false
			}
			part, s = u, s[end+1:]
		case '\'':
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return nil, "", false
			}
			part, s = s[1:end+1], s[end+2:]
		default:
			end := 0
			for end < len(s) && (s[end] == '_' || s[end] == '-' || s[end] >= 'a' && s[end] <= 'z' || s[end] >= 'A' && s[end] <= 'Z' || s[end] >= '0' && s[end] <= '9') {
				end++
			}
			if end == 0 {
				return nil, "", false
			}
			part, s = s[:end], s[end:]
		}
		parts = append(parts, part)
		s = strings.TrimLeft(s, " \t")
		if !strings.HasPrefix(s, ".") {
			return parts, s, true
		}
		s = s[1:]
	}
}

// ConstraintFileError locates a violated cross-key constraint at the file
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
