package rules_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/rules"
)

// cfWrite writes content to dir/name and returns the path.
func cfWrite(t testing.TB, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// cfLoad loads content written as name in a fresh directory.
func cfLoad(t testing.TB, name, content string) (*rules.Config, string, []string, error) {
	t.Helper()
	path := cfWrite(t, t.TempDir(), name, content)
	cfg := rules.Default()
	warnings, err := rules.LoadFile(cfg, path)
	return cfg, path, warnings, err
}

// cfFileError asserts err is a *FileError at path:line for key, whose
// message contains every want.
func cfFileError(t testing.TB, err error, path string, line int, key string, want ...string) {
	t.Helper()
	var fe *rules.FileError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T), want *rules.FileError", err, err)
	}
	if fe.File != path || fe.Line != line || fe.Key != key {
		t.Errorf("error at %s:%d key %q, want %s:%d key %q (%v)", fe.File, fe.Line, fe.Key, path, line, key, err)
	}
	prefix := fmt.Sprintf("%s:%d: ", path, line)
	if line == 0 {
		prefix = path + ": "
	}
	if !strings.HasPrefix(err.Error(), prefix) {
		t.Errorf("error %q does not start with %q", err, prefix)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
}

func cfParam(t testing.TB, key string) *rules.Param {
	p, ok := rules.LookupParam(key)
	if !ok {
		t.Fatalf("no key %s", key)
	}
	return p
}

const cfPyproject = `[project]
name = "zorkgpt"
version = "0.4.0"

[tool.poetry.dependencies]
python = "^3.11"

[tool.zorkgpt]
max_turns_per_episode = 500

[tool.zorkgpt.loop_break]
# Progress velocity
enable_velocity_detection = true
max_turns_stuck = 30
stuck_check_interval = 10

# Location penalty
enable_location_penalty = false
location_revisit_penalty = -0.25
location_revisit_window = 5

[tool.zorkgpt.orchestrator]
max_turns_stuck = 999
`

func TestLoadFilePyproject(t *testing.T) {
	cfg, path, warnings, err := cfLoad(t, "pyproject.toml", cfPyproject)
	// ZorkGPT does not read enable_velocity_detection (RULES.md §1).
	wantWarn := path + ":13: enable_velocity_detection: ZorkGPT ignores this key; the live agent would terminate stuck episodes whatever this says"
	if err != nil || len(warnings) != 1 || warnings[0] != wantWarn {
		t.Fatalf("err %v, warnings %q, want [%q]", err, warnings, wantWarn)
	}
	for key, want := range map[string]any{
		"enable_velocity_detection": true, "max_turns_stuck": 30, "stuck_check_interval": 10,
		"enable_location_penalty": false, "location_revisit_penalty": -0.25, "location_revisit_window": 5,
	} {
		if got := cfg.Value(key); got != want {
			t.Errorf("%s = %v (%T), want %v (%T)", key, got, got, want, want)
		}
	}
	for key, line := range map[string]int{"max_turns_stuck": 14, "enable_location_penalty": 18, "location_revisit_window": 20} {
		if src := cfg.Source(key); src.Kind != "file" || src.File != path || src.Line != line || src.String() != fmt.Sprintf("%s:%d", path, line) {
			t.Errorf("%s source %+v, want %s:%d", key, src, path, line)
		}
	}
	if src := cfg.Source("rejection_threshold"); src.Kind != "default" || src.String() != "default" {
		t.Errorf("unset key source %+v", src)
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("validate: %v", err)
	}
}

func TestLoadFileOwn(t *testing.T) {
	content := "# loopbreak settings\n[loop_break]\nmax_turns_stuck = 50\n\"stuck_check_interval\" = 5\n  rejection_threshold=0.4 # inline comment\n\n[other]\nmax_turns_stuck = 1\n"
	cfg, path, warnings, err := cfLoad(t, "loopbreak.toml", content)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("err %v, warnings %q", err, warnings)
	}
	if cfg.Value("max_turns_stuck") != 50 || cfg.Value("stuck_check_interval") != 5 || cfg.Value("rejection_threshold") != 0.4 {
		t.Errorf("values %v", cfg.Map())
	}
	for key, line := range map[string]int{"max_turns_stuck": 3, "stuck_check_interval": 4, "rejection_threshold": 5} {
		if src := cfg.Source(key); src.File != path || src.Line != line {
			t.Errorf("%s source %+v, want line %d", key, src, line)
		}
	}
	// CRLF files and spaced, quoted headers give the same lines.
	crlf := "[ \"loop_break\" ]\r\nmax_turns_stuck = 50\r\n"
	cfg, _, _, err = cfLoad(t, "loopbreak.toml", crlf)
	if err != nil || cfg.Source("max_turns_stuck").Line != 2 {
		t.Errorf("CRLF: %v, source %+v", err, cfg.Source("max_turns_stuck"))
	}
	py := "[ tool . zorkgpt . loop_break ]  # ours\r\n\r\nmax_turns_stuck = 45\r\n"
	cfg, _, _, err = cfLoad(t, "pyproject.toml", py)
	if err != nil || cfg.Value("max_turns_stuck") != 45 || cfg.Source("max_turns_stuck").Line != 3 {
		t.Errorf("spaced header: %v, source %+v", err, cfg.Source("max_turns_stuck"))
	}
}

// Every key: a value of the wrong type is an error naming file:line, the
// key and the type wanted.
func TestLoadFileTypeErrors(t *testing.T) {
	bad := map[rules.Type][]struct{ lit, got string }{
		rules.Int: {{`"thirty"`, `string "thirty"`}, {`"30.5"`, `string "30.5"`}, {`""`, `string ""`}, {`true`, `boolean true`},
			{`2.5`, `2.5`}, {`[1]`, `an array`}, {`{ a = 1 }`, `a table`}, {`nan`, "NaN"}, {`inf`, "Inf"}},
		rules.Float: {{`"half"`, `string "half"`}, {`"nan"`, `string "nan"`}, {`false`, `boolean false`}, {`[0.5]`, `an array`}, {`nan`, "NaN"}, {`-inf`, "-Inf"}},
		rules.Bool: {{`2`, `integer 2`}, {`-1`, `integer -1`}, {`"maybe"`, `string "maybe"`}, {`"truee"`, `string "truee"`},
			{`0.0`, `number 0`}, {`1.0`, `number 1`}, {`[]`, `an array`}},
	}
	want := map[rules.Type]string{rules.Int: "must be an integer", rules.Float: "must be", rules.Bool: "must be true or false"}
	for _, p := range rules.Params() {
		for _, b := range bad[p.Type] {
			for _, file := range []string{"loopbreak.toml", "pyproject.toml"} {
				header := "[loop_break]"
				if file == "pyproject.toml" {
					header = "[tool.zorkgpt.loop_break]"
				}
				content := fmt.Sprintf("%s\n# comment\n%s = %s\n", header, p.Key, b.lit)
				_, path, _, err := cfLoad(t, file, content)
				cfFileError(t, err, path, 3, p.Key, p.Key+" "+want[p.Type], b.got)
			}
		}
	}
}

// Every bounded key: a value outside its range is an error naming
// file:line, the key, the bounds and the value.
func TestLoadFileRangeErrors(t *testing.T) {
	n := 0
	for _, p := range rules.Params() {
		var vals []float64
		if p.Min != nil {
			vals = append(vals, *p.Min-1, *p.Min-0.5)
		}
		if p.Max != nil {
			vals = append(vals, *p.Max+1, *p.Max+0.5)
		}
		for _, v := range vals {
			if p.Type == rules.Int && v != float64(int(v)) {
				continue
			}
			lit := rules.FormatValue(v)
			if p.Type == rules.Int {
				lit = fmt.Sprint(int(v))
			}
			content := fmt.Sprintf("[loop_break]\n\n%s = %s\n", p.Key, lit)
			_, path, _, err := cfLoad(t, "loopbreak.toml", content)
			cfFileError(t, err, path, 3, p.Key, p.Key+" must be", p.Constraint(), "got "+rules.FormatBound(v))
			n++
		}
		// the bounds themselves are accepted
		for _, b := range []*float64{p.Min, p.Max} {
			if b == nil {
				continue
			}
			lit := rules.FormatValue(*b)
			if p.Type == rules.Int {
				lit = fmt.Sprint(int(*b))
			}
			cfg, _, _, err := cfLoad(t, "loopbreak.toml", fmt.Sprintf("[loop_break]\n%s = %s\n", p.Key, lit))
			if err != nil {
				t.Errorf("%s = %s: %v", p.Key, lit, err)
			} else if got := fmt.Sprint(cfg.Value(p.Key)); got != lit && got != fmt.Sprint(*b) {
				t.Errorf("%s = %s read as %s", p.Key, lit, got)
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d range cases; the registry has fewer bounded keys than expected", n)
	}
}

func TestLoadFileNumberCoercion(t *testing.T) {
	cfg, _, _, err := cfLoad(t, "loopbreak.toml", "[loop_break]\nmax_turns_stuck = 30.0\nstuck_check_interval = 1e1\nrejection_threshold = 1\ncamping_return_penalty = 0\nstuck_warning_threshold = 0x14\n")
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]any{"max_turns_stuck": 30, "stuck_check_interval": 10, "rejection_threshold": 1.0, "camping_return_penalty": 0.0, "stuck_warning_threshold": 20} {
		if got := cfg.Value(key); got != want {
			t.Errorf("%s = %v (%T), want %v (%T)", key, got, got, want, want)
		}
	}
	// A large integral float is still range-checked.
	_, path, _, err := cfLoad(t, "loopbreak.toml", "[loop_break]\nlocation_revisit_window = 2e3\n")
	cfFileError(t, err, path, 2, "location_revisit_window", "must be in [2, 20], got 2000")
}

// An integral float too large for an int is refused naming the value written.
func TestLoadFileIntOverflow(t *testing.T) {
	_, path, _, err := cfLoad(t, "loopbreak.toml", "[loop_break]\nmax_turns_stuck = 1e19\n")
	if err == nil {
		t.Fatal("1e19 accepted for an int key")
	}
	cfFileError(t, err, path, 2, "max_turns_stuck")
	if strings.Contains(err.Error(), "-9.2") || !strings.Contains(err.Error(), "1e+19") {
		t.Errorf("error %q should name the value written, 1e+19", err)
	}
}

func TestLoadFileUnknownKeys(t *testing.T) {
	// loopbreak.toml: an error with the line and a suggestion
	_, path, _, err := cfLoad(t, "loopbreak.toml", "[loop_break]\nmax_turns_stuck = 30\nmax_turn_stuck = 40\n")
	cfFileError(t, err, path, 3, "max_turn_stuck", "unknown key max_turn_stuck", "did you mean max_turns_stuck?")
	_, path, _, err = cfLoad(t, "loopbreak.toml", "[loop_break]\nzzzzzzzzzzzz = 1\n")
	cfFileError(t, err, path, 2, "zzzzzzzzzzzz", "unknown key zzzzzzzzzzzz")
	if strings.Contains(err.Error(), "did you mean") {
		t.Errorf("suggestion for a far key: %v", err)
	}
	// pyproject.toml: warnings, known keys still applied
	cfg, path, warnings, err := cfLoad(t, "pyproject.toml", "[tool.zorkgpt.loop_break]\nmax_turns_stuck = 30\nenable_new_feature = true\nstuck_check_intervall = 5\n")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Value("max_turns_stuck") != 30 || cfg.Value("stuck_check_interval") != 10 {
		t.Errorf("values %v", cfg.Map())
	}
	want := []string{
		path + ":3: unknown key enable_new_feature",
		path + ":4: unknown key stuck_check_intervall (did you mean stuck_check_interval?) (ignored)",
	}
	if len(warnings) != 2 {
		t.Fatalf("warnings %q", warnings)
	}
	for i, w := range want {
		if !strings.HasPrefix(warnings[i], w) {
			t.Errorf("warning %q, want prefix %q", warnings[i], w)
		}
	}
	// pyproject.toml matched case-insensitively
	_, _, warnings, err = cfLoad(t, "PyProject.TOML", "[tool.zorkgpt.loop_break]\nnope = 1\n")
	if err != nil || len(warnings) != 1 {
		t.Errorf("PyProject.TOML: %v %q", err, warnings)
	}
}

func TestLoadFileNoTable(t *testing.T) {
	_, path, _, err := cfLoad(t, "loopbreak.toml", "[loopbreak]\nmax_turns_stuck = 30\n")
	cfFileError(t, err, path, 0, "", "no [loop_break] table")
	_, path, _, err = cfLoad(t, "loopbreak.toml", "loop_break = 5\n")
	cfFileError(t, err, path, 0, "", "no [loop_break] table")
	// any other name reads [loop_break]
	cfg, _, _, err := cfLoad(t, "strict.toml", "[loop_break]\nmax_turns_stuck = 31\n")
	if err != nil || cfg.Value("max_turns_stuck") != 31 {
		t.Errorf("other file name: %v", err)
	}
	cfg, path, warnings, err := cfLoad(t, "pyproject.toml", "[tool.zorkgpt]\nmax_turns = 5\n[loop_break]\nmax_turns_stuck = 3\n")
	if err != nil || len(warnings) != 1 || warnings[0] != path+": [tool.zorkgpt] has no loop_break table; ZorkGPT and loopbreak use the defaults" {
		t.Errorf("pyproject without the table: %v %q", err, warnings)
	}
	if cfg.Value("max_turns_stuck") != 40 {
		t.Errorf("max_turns_stuck %d, want the default 40", cfg.Value("max_turns_stuck"))
	}
	if _, err := rules.LoadFile(rules.Default(), filepath.Join(t.TempDir(), "missing.toml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestLoadFileInvalidTOML(t *testing.T) {
	for _, tc := range []struct {
		content string
		line    int
	}{
		{"[loop_break]\nmax_turns_stuck = = 3\n", 2},
		{"[loop_break]\nmax_turns_stuck = 30\n\n\nstuck_check_interval = \n", 5},
		{"[loop_break]\nmax_turns_stuck = 30\nmax_turns_stuck = 31\n", 3},
		{"[loop_break\nmax_turns_stuck = 30\n", 1},
		{"[loop_break]\n[loop_break]\n", 2},
		{"[loop_break]\r\nname = \"unterminated\r\n", 2},
	} {
		_, path, _, err := cfLoad(t, "loopbreak.toml", tc.content)
		cfFileError(t, err, path, tc.line, "", "invalid TOML")
	}
}

// Keys written as dotted keys or an inline table still get their line in errors.
func TestLoadFileLineOfDottedKeys(t *testing.T) {
	for _, tc := range []struct {
		name, file, content string
		line                int
	}{
		{"dotted under [tool.zorkgpt]", "pyproject.toml", "[tool.zorkgpt]\nmax_turns = 5\nloop_break.max_turns_stuck = 0\n", 3},
		{"inline table", "pyproject.toml", "[tool.zorkgpt]\nloop_break = { max_turns_stuck = 0 }\n", 2},
		{"top-level dotted", "loopbreak.toml", "loop_break.max_turns_stuck = 0\n", 1},
		{"literal-quoted key", "loopbreak.toml", "[loop_break]\n'max_turns_stuck' = 0\n", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, path, _, err := cfLoad(t, tc.file, tc.content)
			cfFileError(t, err, path, tc.line, "max_turns_stuck", "must be in [1, 1000]")
		})
	}
}

// Cross-key constraints point at the file line of the first key the file set.
func TestLocateConstraint(t *testing.T) {
	cfg, path, _, err := cfLoad(t, "loopbreak.toml", "[loop_break]\nstuck_check_interval = 10\nmax_turns_stuck = 5\n")
	if err != nil {
		t.Fatal(err)
	}
	verr := cfg.Validate()
	var ce *rules.ConstraintError
	if !errors.As(verr, &ce) {
		t.Fatalf("validate: %v", verr)
	}
	cfFileError(t, cfg.LocateConstraint(verr), path, 3, "max_turns_stuck", "max_turns_stuck (5) must be >= stuck_check_interval (10)")
	// set by --set: named as such
	cfg = rules.Default()
	if err := cfg.SetString("stuck_warning_threshold=45"); err != nil {
		t.Fatal(err)
	}
	if err := cfg.LocateConstraint(cfg.Validate()); err == nil || !strings.HasPrefix(err.Error(), "--set stuck_warning_threshold: ") {
		t.Errorf("flag constraint: %v", err)
	}
	plain := errors.New("x")
	if cfg.LocateConstraint(plain) != plain {
		t.Error("other errors pass through")
	}
}

func TestDiscover(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"none", nil, ""},
		{"own", map[string]string{"loopbreak.toml": "[loop_break]\n"}, "loopbreak.toml"},
		{"own wins", map[string]string{"loopbreak.toml": "", "pyproject.toml": cfPyproject}, "loopbreak.toml"},
		{"pyproject with the table", map[string]string{"pyproject.toml": cfPyproject}, "pyproject.toml"},
		// ZorkGPT's file without the loop-break table: returned, so that the
		// load warns about it (a misspelt table is not silently skipped)
		{"pyproject without the table", map[string]string{"pyproject.toml": "[tool.zorkgpt]\nmax_turns = 5\n[loop_break]\nx = 1\n"}, "pyproject.toml"},
		{"pyproject with loop_break not a table", map[string]string{"pyproject.toml": "[tool.zorkgpt]\nloop_break = 5\n"}, "pyproject.toml"},
		{"pyproject without [tool.zorkgpt]", map[string]string{"pyproject.toml": "[tool.black]\nline-length = 88\n[loop_break]\nx = 1\n"}, ""},
		// an unparsable pyproject is returned so the load reports its error
		{"invalid pyproject", map[string]string{"pyproject.toml": "[tool\n"}, "pyproject.toml"},
		{"other files ignored", map[string]string{"setup.cfg": "[loop_break]\n", "config.toml": "[loop_break]\n"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tc.files {
				cfWrite(t, dir, name, content)
			}
			got, err := rules.Discover(dir)
			want := ""
			if tc.want != "" {
				want = filepath.Join(dir, tc.want)
			}
			if err != nil || got != want {
				t.Errorf("Discover = %q, %v; want %q", got, err, want)
			}
		})
	}
}

// The errors users see, as the CLI prints them.
func ExampleLoadFile() {
	dir, _ := os.MkdirTemp("", "loopbreak-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "loopbreak.toml")
	for _, content := range []string{
		"[loop_break]\nmax_turns_stuck = 0\n",
		"[loop_break]\nmax_turns_stuck = \"forty\"\n",
		"[loop_break]\nlocation_revisit_window = 25\n",
		"[loop_break]\nmax_turn_stuck = 40\n",
	} {
		os.WriteFile(path, []byte(content), 0o644)
		_, err := rules.LoadFile(rules.Default(), path)
		fmt.Println(strings.TrimPrefix(err.Error(), dir+string(filepath.Separator)))
	}
	// Output:
	// loopbreak.toml:2: max_turns_stuck must be in [1, 1000], got 0
	// loopbreak.toml:2: max_turns_stuck must be an integer, got string "forty"
	// loopbreak.toml:2: location_revisit_window must be in [2, 20], got 25
	// loopbreak.toml:2: unknown key max_turn_stuck (did you mean max_turns_stuck?)
}

func TestParamCoerceDirect(t *testing.T) {
	p := cfParam(t, "max_turns_stuck")
	for _, v := range []any{int(5), int64(5), 5.0} {
		if got, err := p.Coerce(v); err != nil || got != 5 {
			t.Errorf("Coerce(%T %v) = %v, %v", v, v, got, err)
		}
	}
	if _, err := p.Coerce(nil); err == nil {
		t.Error("nil accepted")
	}
	f := cfParam(t, "rejection_threshold")
	if got, err := f.Coerce(int64(1)); err != nil || got != 1.0 {
		t.Errorf("float from int64: %v %v", got, err)
	}
}

// --set values go through the same coercion and bounds as file values.
func TestParamParseAndSetString(t *testing.T) {
	for _, tc := range []struct {
		kv, err string
		want    any
	}{
		{"max_turns_stuck=30", "", 30},
		{" max_turns_stuck = 30.0 ", "", 30},
		{"max_turns_stuck=1e2", "", 100},
		{"max_turns_stuck=abc", `--set max_turns_stuck: must be an integer, got "abc"`, nil},
		{"max_turns_stuck=2.5", "--set max_turns_stuck: must be an integer, got 2.5", nil},
		{"max_turns_stuck=0", "--set max_turns_stuck: must be in [1, 1000], got 0", nil},
		{"max_turns_stuck=1001", "--set max_turns_stuck: must be in [1, 1000], got 1001", nil},
		{"rejection_threshold=0.25", "", 0.25},
		{"rejection_threshold=2", "--set rejection_threshold: must be in [0, 1], got 2", nil},
		{"rejection_threshold=NaN", "--set rejection_threshold: must be a finite number, got NaN", nil},
		{"rejection_threshold=x", `--set rejection_threshold: must be a number, got "x"`, nil},
		{"enable_loop_detection=false", "", false},
		{"enable_loop_detection=0", "", false},
		{"enable_loop_detection=yes", `--set enable_loop_detection: must be true or false, got "yes"`, nil},
		{"max_turn_stuck=3", "--set max_turn_stuck: unknown key (did you mean max_turns_stuck?)", nil},
		{"max_turns_stuck", `--set "max_turns_stuck": want key=value`, nil},
		{"=3", `--set "=3": want key=value`, nil},
	} {
		cfg := rules.Default()
		err := cfg.SetString(tc.kv)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("SetString(%q) = %v, want %q", tc.kv, err, tc.err)
			}
			continue
		}
		key := strings.TrimSpace(strings.SplitN(tc.kv, "=", 2)[0])
		if err != nil || cfg.Value(key) != tc.want || cfg.Source(key).String() != "--set" {
			t.Errorf("SetString(%q): %v, value %v (%T), source %v", tc.kv, err, cfg.Value(key), cfg.Value(key), cfg.Source(key))
		}
	}
	cfg := rules.Default()
	if err := cfg.Set("camping_window", int64(12), rules.Source{Kind: "file", File: "f.toml"}); err != nil || cfg.Value("camping_window") != 12 || cfg.Source("camping_window").String() != "f.toml" {
		t.Errorf("Set: %v", err)
	}
	if err := cfg.Set("camping_window", "12", rules.Source{}); err != nil || cfg.Value("camping_window") != 12 {
		t.Errorf("Set string of an integer: %v", err)
	}
	if err := cfg.Set("camping_window", "twelve", rules.Source{}); err == nil || err.Error() != `camping_window must be an integer, got string "twelve"` {
		t.Errorf("Set string: %v", err)
	}
	if err := cfg.Set("nope", 1, rules.Source{}); err == nil || !strings.HasPrefix(err.Error(), `unknown key "nope"`) {
		t.Errorf("Set unknown: %v", err)
	}
	for v, want := range map[any]string{0.5: "0.5", -1.0: "-1.0", 1e21: "1000000000000000000000.0", 3: "3", true: "true"} {
		if got := rules.FormatValue(v); got != want {
			t.Errorf("FormatValue(%v) = %q, want %q", v, got, want)
		}
	}
}

// Lines after an array of tables, or inside a multi-line array, do not
// move keys to the wrong table or lose their lines.
func TestLoadFileLineAfterArrays(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		line          int
	}{
		{"after [[profiles]]", "[[profiles]]\nloop_break.max_turns_stuck = 99\n[loop_break]\nmax_turns_stuck = 0\n", 4},
		{"multi-line array", "[loop_break]\nx_list = [\n  [1, 2],\n]\nmax_turns_stuck = 0\n", 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, path, _, err := cfLoad(t, "loopbreak.toml", tc.content)
			cfFileError(t, err, path, tc.line, "max_turns_stuck", "must be in [1, 1000]")
		})
	}
}

// Table-like text inside a multi-line string is not a header: the line
// comes from the TOML parser, not from scanning lines.
func TestLoadFileLineAfterMultilineString(t *testing.T) {
	for _, tc := range []struct {
		name, file, content string
		line                int
	}{
		{"basic string", "pyproject.toml", "[tool.other]\ndoc = \"\"\"\n[tool.zorkgpt.loop_break]\nmax_turns_stuck = 0\n\"\"\"\n[tool.zorkgpt.loop_break]\nmax_turns_stuck = 0\n", 7},
		{"literal string", "loopbreak.toml", "[other]\ndoc = '''\n[loop_break]\nmax_turns_stuck = 0\n'''\n[loop_break]\nstuck_check_interval = 10\nmax_turns_stuck = 0\n", 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, path, _, err := cfLoad(t, tc.file, tc.content)
			cfFileError(t, err, path, tc.line, "max_turns_stuck", "must be in [1, 1000]")
		})
	}
}

// RULES.md §1, configuration parity: what ZorkGPT's loader coerces is
// accepted, and each coercion is noted at its file, line and key.
func TestLoadFileCoercions(t *testing.T) {
	for _, tc := range []struct {
		key, lit string
		want     any
		note     string // after "file:3: "
	}{
		{"max_turns_stuck", `40.0`, 40, `max_turns_stuck = 40.0: a float; ZorkGPT reads it as 40`},
		{"max_turns_stuck", `"40"`, 40, `max_turns_stuck = "40": a string; ZorkGPT reads it as 40`},
		{"stuck_check_interval", `"+5"`, 5, `stuck_check_interval = "+5": a string; ZorkGPT reads it as 5`},
		{"location_revisit_penalty", `"-0.25"`, -0.25, `location_revisit_penalty = "-0.25": a string; ZorkGPT reads it as -0.25`},
		{"enable_stuck_warnings", `0`, false, `enable_stuck_warnings = 0: an integer; ZorkGPT reads it as false`},
		{"enable_stuck_warnings", `1`, true, `enable_stuck_warnings = 1: an integer; ZorkGPT reads it as true`},
		{"enable_stuck_warnings", `"Yes"`, true, `enable_stuck_warnings = "Yes": a string; ZorkGPT reads it as true`},
		{"enable_location_penalty", `"OFF"`, false, `enable_location_penalty = "OFF": a string; ZorkGPT reads it as false`},
		{"enable_location_penalty", `"t"`, true, `enable_location_penalty = "t": a string; ZorkGPT reads it as true`},
		{"enable_location_penalty", `"N"`, false, `enable_location_penalty = "N": a string; ZorkGPT reads it as false`},
		{"enable_exploration_hints", `"0"`, false, `enable_exploration_hints = "0": a string; ZorkGPT reads it as false`},
		{"enable_exploration_hints", `"True"`, true, `enable_exploration_hints = "True": a string; ZorkGPT reads it as true`},
		// a key ZorkGPT does not read is coerced the same way, noted without
		// claiming ZorkGPT reads it
		{"camping_window", `"12"`, 12, `camping_window = "12": a string; read as 12`},
		// no note: the value has the key's type (an integer for a number key
		// is TOML's own spelling of 0.0)
		{"max_turns_stuck", `40`, 40, ``},
		{"location_revisit_penalty", `0`, 0.0, ``},
		{"enable_stuck_warnings", `false`, false, ``},
	} {
		t.Run(tc.key+"="+tc.lit, func(t *testing.T) {
			cfg, path, warnings, err := cfLoad(t, "loopbreak.toml", "[loop_break]\n\n"+tc.key+" = "+tc.lit+"\n")
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.Value(tc.key); got != tc.want {
				t.Errorf("%s = %v (%T), want %v (%T)", tc.key, got, got, tc.want, tc.want)
			}
			var want []string
			if tc.note != "" {
				want = []string{path + ":3: " + tc.note}
			}
			if strings.Join(warnings, "\n") != strings.Join(want, "\n") {
				t.Errorf("warnings %q, want %q", warnings, want)
			}
		})
	}
	// Coerced values are range-checked like written ones.
	_, path, _, err := cfLoad(t, "pyproject.toml", "[tool.zorkgpt.loop_break]\nstuck_warning_threshold = \"4\"\n")
	cfFileError(t, err, path, 2, "stuck_warning_threshold", "must be in [5, 100], got 4")
}

// Keys ZorkGPT does not read are warned about in a pyproject.toml (the
// live agent runs as if they were absent), never in loopbreak.toml; their
// values still apply to the replay (a what-if).
func TestLoadFileKeysZorkGPTIgnores(t *testing.T) {
	const design = "ZorkGPT ignores this key; the live agent would run without oscillation and camping detection"
	content := "[tool.zorkgpt.loop_break]\nenable_velocity_detection = false\nmax_turns_stuck = 30\nenable_loop_detection = true\n" +
		"oscillation_return_penalty = -0.5\ncamping_threshold = 4\nrejection_threshold = 0.4\n"
	cfg, path, warnings, err := cfLoad(t, "pyproject.toml", content)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{ // in file order
		path + ":2: enable_velocity_detection: ZorkGPT ignores this key; the live agent would terminate stuck episodes whatever this says",
		path + ":4: enable_loop_detection: " + design,
		path + ":5: oscillation_return_penalty: " + design,
		path + ":6: camping_threshold: " + design,
		path + ":7: rejection_threshold: " + design,
	}
	if strings.Join(warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warnings, "\n"), strings.Join(want, "\n"))
	}
	if cfg.Value("enable_velocity_detection") != false || cfg.Value("camping_threshold") != 4 || cfg.Value("rejection_threshold") != 0.4 {
		t.Errorf("values not applied: %v", cfg.Map())
	}
	own := strings.Replace(content, "[tool.zorkgpt.loop_break]", "[loop_break]", 1)
	if _, _, warnings, err := cfLoad(t, "loopbreak.toml", own); err != nil || len(warnings) != 0 {
		t.Errorf("loopbreak.toml: %v, warnings %q", err, warnings)
	}
	// Every key of a rule ZorkGPT does not ship carries what the live
	// agent does instead.
	for _, r := range rules.Registry {
		for _, p := range r.Params {
			if (r.Origin != rules.OriginZorkGPT) != (p.Unread != "") && p != rules.EnableVelocityDetection.Param {
				t.Errorf("%s (%s rule): Unread %q", p.Key, r.Origin, p.Unread)
			}
		}
	}
}

// A pyproject.toml with [tool.zorkgpt] but no loop_break table runs ZorkGPT
// with its defaults; the warning names the nearest table, a likely typo.
func TestLoadFileMissingLoopBreakTable(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		line          int
		warn          string // "" when the load fails
		errWant       string
	}{
		{name: "loop_breaker header", content: "[tool.zorkgpt]\nx = 1\n\n[tool.zorkgpt.loop_breaker]\nmax_turns_stuck = 30\n", line: 4,
			warn: "[tool.zorkgpt] has no loop_break table but has loop_breaker: did you mean loop_break? ZorkGPT ignores loop_breaker and runs with the defaults; so does this analysis"},
		{name: "loop-break as a dotted key", content: "[tool.zorkgpt]\nllm = { a = 1 }\nloop-break.max_turns_stuck = 30\n", line: 3,
			warn: "[tool.zorkgpt] has no loop_break table but has loop-break: did you mean loop_break? ZorkGPT ignores loop-break and runs with the defaults; so does this analysis"},
		{name: "LoopBreak inline", content: "[tool.zorkgpt]\nLoopBreak = { max_turns_stuck = 30 }\n", line: 2,
			warn: "[tool.zorkgpt] has no loop_break table but has LoopBreak: did you mean loop_break? ZorkGPT ignores LoopBreak and runs with the defaults; so does this analysis"},
		{name: "nearest of several", content: "[tool.zorkgpt.orchestrator]\na = 1\n[tool.zorkgpt.loopbreaks]\nb = 1\n[tool.zorkgpt.loopbreak.sub]\nc = 1\n", line: 5,
			warn: "[tool.zorkgpt] has no loop_break table but has loopbreak: did you mean loop_break? ZorkGPT ignores loopbreak and runs with the defaults; so does this analysis"},
		{name: "nothing near", content: "[tool.zorkgpt.orchestrator]\nmax_turns_per_episode = 500\n",
			warn: "[tool.zorkgpt] has no loop_break table; ZorkGPT and loopbreak use the defaults"},
		{name: "no [tool.zorkgpt] at all", content: "[tool.black]\nline-length = 88\n",
			warn: "no [tool.zorkgpt.loop_break] table; using defaults"},
		{name: "loop_break not a table", content: "[tool.zorkgpt]\nloop_break = 5\n", line: 2,
			errWant: "tool.zorkgpt.loop_break is integer 5, not a table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, path, warnings, err := cfLoad(t, "pyproject.toml", tc.content)
			if tc.errWant != "" {
				cfFileError(t, err, path, tc.line, "loop_break", tc.errWant)
				return
			}
			loc := path
			if tc.line > 0 {
				loc = fmt.Sprintf("%s:%d", path, tc.line)
			}
			if err != nil || len(warnings) != 1 || warnings[0] != loc+": "+tc.warn {
				t.Errorf("err %v, warnings %q, want [%q]", err, warnings, loc+": "+tc.warn)
			}
			if cfg.Value("max_turns_stuck") != 40 {
				t.Errorf("max_turns_stuck = %v, want the default 40", cfg.Value("max_turns_stuck"))
			}
		})
	}
}

// The notes and warnings users see, as the CLI prints them (after
// "loopbreak: warning: ").
func ExampleLoadFile_warnings() {
	dir, _ := os.MkdirTemp("", "loopbreak-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "pyproject.toml")
	for _, content := range []string{
		"[tool.zorkgpt.loop_break]\nmax_turns_stuck = \"40\"\nenable_stuck_warnings = \"yes\"\n",
		"[tool.zorkgpt]\n\n[tool.zorkgpt.loop_breaker]\nmax_turns_stuck = 30\n",
	} {
		os.WriteFile(path, []byte(content), 0o644)
		warnings, _ := rules.LoadFile(rules.Default(), path)
		for _, w := range warnings {
			fmt.Println(strings.TrimPrefix(w, dir+string(filepath.Separator)))
		}
	}
	// Output:
	// pyproject.toml:2: max_turns_stuck = "40": a string; ZorkGPT reads it as 40
	// pyproject.toml:3: enable_stuck_warnings = "yes": a string; ZorkGPT reads it as true
	// pyproject.toml:3: [tool.zorkgpt] has no loop_break table but has loop_breaker: did you mean loop_break? ZorkGPT ignores loop_breaker and runs with the defaults; so does this analysis
}
