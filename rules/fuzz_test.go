package rules_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/rules"
)

// FuzzLoadConfig: arbitrary TOML, as loopbreak.toml and as pyproject.toml,
// never panics; a load either fails with a *FileError located inside the
// file or leaves every key with a value of its type inside its bounds.
func FuzzLoadConfig(f *testing.F) {
	for _, s := range []string{
		cfPyproject,
		"[loop_break]\nmax_turns_stuck = 30\nstuck_check_interval = 10.0\nrejection_threshold = 1\nenable_loop_detection = false\n",
		"[loop_break]\nmax_turns_stuck = \"x\"\n",
		"[loop_break]\nlocation_revisit_window = 25\n",
		"[loop_break]\nmax_turn_stuck = 40\n",
		"[loop_break]\nmax_turns_stuck = 1e19\ncamping_return_penalty = -inf\n",
		"[tool.zorkgpt]\nloop_break.max_turns_stuck = 0\n",
		"[tool.zorkgpt]\nloop_break = { max_turns_stuck = 30, enable_stuck_warnings = true }\n",
		"[[loop_break]]\nx = 1\n",
		"[loop_break]\n'max_turns_stuck' = 3\n\"stuck_check_interval\" = 2\n",
		"[loop_break]\nmax_turns_stuck = = 3\n",
		"[ tool . \"zorkgpt\" . loop_break ]\r\nmax_turns_stuck = 50\r\n",
		"x = \"\"\"\n[loop_break]\n\"\"\"\n[loop_break]\nmax_turns_stuck = 2020-01-01\n",
		"[tool.zorkgpt.loop_break]\nmax_turns_stuck = \"40\"\nenable_stuck_warnings = \"Yes\"\nenable_exploration_hints = 0\nlocation_revisit_penalty = \"-0.1\"\n",
		"[tool.zorkgpt]\n[tool.zorkgpt.loop_breaker]\nmax_turns_stuck = 30\n",
		"[tool.zorkgpt]\nloop_break = 5\n",
		"",
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, content string) {
		nLines := strings.Count(content, "\n") + 1
		for _, name := range []string{rules.OwnFile, rules.PyprojectFile} {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := rules.Default()
			warnings, err := rules.LoadFile(cfg, path)
			if err != nil {
				var fe *rules.FileError
				if !errors.As(err, &fe) {
					t.Fatalf("%s: error %v (%T), want *FileError", name, err, err)
				}
				if fe.File != path || fe.Line < 0 || fe.Line > nLines || !strings.HasPrefix(err.Error(), path) {
					t.Fatalf("%s: error %+v outside the file (%d lines)", name, *fe, nLines)
				}
				continue
			}
			for _, w := range warnings {
				if !strings.HasPrefix(w, path) {
					t.Fatalf("warning %q does not name the file", w)
				}
			}
			for _, p := range rules.Params() {
				v := cfg.Value(p.Key)
				got, cerr := p.Coerce(v)
				if cerr != nil || got != v {
					t.Fatalf("%s: %s = %v (%T) after a successful load: %v", name, p.Key, v, v, cerr)
				}
				if s := cfg.Source(p.Key); s.Kind == "file" && (s.File != path || s.Line < 0 || s.Line > nLines) {
					t.Fatalf("%s: %s source %+v", name, p.Key, s)
				}
			}
			_ = cfg.LocateConstraint(cfg.Validate())
		}
		if _, err := rules.Discover(dir); err != nil {
			t.Fatalf("Discover: %v", err)
		}
	})
}
