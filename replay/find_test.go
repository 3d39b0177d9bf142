package replay

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func rtTree(t *testing.T, files ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestFindLogs(t *testing.T) {
	root := rtTree(t,
		"game_files/episodes/2025-11-04T09:35:24/episode_log.jsonl",
		"game_files/episodes/2025-11-03T12:38:53/episode_log.jsonl",
		"game_files/episodes/2025-11-03T12:38:53/notes.txt",
		"game_files/episodes/2025-11-05T10:00:00/episode_log.jsonl.gz",
		"game_files/episodes/2025-11-05T10:00:00/episode_log.json",
		"game_files/episodes/2025-11-05T10:00:00/old/episode_log.jsonl",
		"game_files/episodes/test_smoke/episode_log.jsonl",
		"game_files/episodes/test-ci/episode_log.jsonl",
		"game_files/episodes/testing/episode_log.jsonl", // not a test dir
		"game_files/episodes/.trash/episode_log.jsonl",
		"game_files/episodes/2025-11-06T00:00:00/test_sub/episode_log.jsonl",
		"game_files/episode_log.jsonl",
		"loose.jsonl",
	)
	rel := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			if p == "-" {
				out = append(out, p)
				continue
			}
			r, err := filepath.Rel(root, p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	j := func(p string) string { return filepath.Join(root, filepath.FromSlash(p)) }
	ep := "game_files/episodes/"

	got, err := FindLogs([]string{j("game_files")}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"game_files/episode_log.jsonl",
		ep + "2025-11-03T12:38:53/episode_log.jsonl",
		ep + "2025-11-04T09:35:24/episode_log.jsonl",
		ep + "2025-11-05T10:00:00/episode_log.jsonl.gz",
		ep + "2025-11-05T10:00:00/old/episode_log.jsonl",
		ep + "testing/episode_log.jsonl",
	}
	if !slices.Equal(rel(got), want) {
		t.Errorf("scan:\n got %q\nwant %q", rel(got), want)
	}

	got, _ = FindLogs([]string{j("game_files/episodes")}, true)
	wantTests := []string{
		ep + "2025-11-03T12:38:53/episode_log.jsonl",
		ep + "2025-11-04T09:35:24/episode_log.jsonl",
		ep + "2025-11-05T10:00:00/episode_log.jsonl.gz",
		ep + "2025-11-05T10:00:00/old/episode_log.jsonl",
		ep + "2025-11-06T00:00:00/test_sub/episode_log.jsonl",
		ep + "test-ci/episode_log.jsonl",
		ep + "test_smoke/episode_log.jsonl",
		ep + "testing/episode_log.jsonl",
	}
	if !slices.Equal(rel(got), wantTests) {
		t.Errorf("with tests:\n got %q\nwant %q", rel(got), wantTests)
	}

	// argument order kept; explicit files and a test dir named as the root are read; "-" passes through
	got, err = FindLogs([]string{j("loose.jsonl"), "-", j(ep + "test_smoke"), j(ep + "2025-11-04T09:35:24"), j(ep + "2025-11-05T10:00:00/episode_log.json")}, false)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"loose.jsonl", "-", ep + "test_smoke/episode_log.jsonl", ep + "2025-11-04T09:35:24/episode_log.jsonl", ep + "2025-11-05T10:00:00/episode_log.json"}
	if !slices.Equal(rel(got), want) {
		t.Errorf("explicit:\n got %q\nwant %q", rel(got), want)
	}

	if _, err := FindLogs([]string{j("nope")}, false); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing argument: %v", err)
	}
	if got, err := FindLogs(nil, false); err != nil || len(got) != 0 {
		t.Errorf("no arguments: %v %v", got, err)
	}
	// a directory with no logs gives nothing, not an error
	if got, err := FindLogs([]string{j(ep + "2025-11-03T12:38:53/notes.txt"), t.TempDir()}, false); err != nil || len(got) != 1 {
		t.Errorf("empty dir: %v %v", got, err)
	}
}

func TestIsTestDir(t *testing.T) {
	for name, want := range map[string]bool{"test_smoke": true, "test-1": true, "test": false, "testing": false, "Test_x": false, "2025-11-03T12:38:53": false, "my_test_x": false} {
		if IsTestDir(name) != want {
			t.Errorf("IsTestDir(%q) = %v", name, !want)
		}
	}
}

// An unreadable sub-directory costs its own logs, like an unreadable file:
// reported, and the walk goes on (issue 9 item 9).
func TestFindUnreadableDir(t *testing.T) {
	root := rtTree(t, "a/episode_log.jsonl", "b/x/episode_log.jsonl", "c/episode_log.jsonl")
	bad := filepath.Join(root, "b")
	// Root may read any directory: make b unreadable, whoever runs the
	// test.
	defer func(r func(string) ([]fs.DirEntry, error)) { readDir = r }(readDir)
	readDir = func(name string) ([]fs.DirEntry, error) {
		if name == bad {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
		}
		return os.ReadDir(name)
	}
	files, skipped, err := Find([]string{root}, false)
	if err != nil || len(files) != 2 || len(skipped) != 1 {
		t.Fatalf("files %v, skipped %v, err %v", files, skipped, err)
	}
	if want := "directory skipped: open " + bad + ": permission denied"; skipped[0].Error() != want {
		t.Errorf("skipped %q, want %q", skipped[0], want)
	}
	if !errors.Is(skipped[0], fs.ErrPermission) {
		t.Errorf("%v is not fs.ErrPermission", skipped[0])
	}
}

// The same with a real permission, where the user can lose it.
func TestFindUnreadableDirChmod(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any directory")
	}
	root := rtTree(t, "a/episode_log.jsonl", "b/x/episode_log.jsonl")
	bad := filepath.Join(root, "b")
	os.Chmod(bad, 0)
	defer os.Chmod(bad, 0o755)
	files, skipped, err := Find([]string{root}, false)
	if err != nil || len(files) != 1 || len(skipped) != 1 || !errors.Is(skipped[0], fs.ErrPermission) {
		t.Fatalf("files %v, skipped %v, err %v", files, skipped, err)
	}
}

// DetectKnown tells a recognised log from the zorkgpt fallback, which a
// directory scan must not pick up by content.
func TestDetectKnown(t *testing.T) {
	for _, c := range []struct {
		in             string
		format, preset string
		known          bool
	}{
		{`{"event_type": "turn_start"}`, FormatZorkGPT, "", true},
		{`{"task_id": "a", "status": "open"}`, FormatAttempts, "", true},
		{`{"step": 1, "action": "ls"}`, FormatSteps, "", true},
		{`[{"action": "run", "args": {}}]`, FormatSteps, PresetOpenHands, true},
		{`[]`, FormatSteps, PresetOpenHands, false},
		{"{\n  \"sessionId\": \"s\",\n  \"messages\": []\n}", FormatSteps, PresetGeminiCLI, true},
		{`{"todo": ["a"]}`, FormatZorkGPT, "", false},
		{``, FormatZorkGPT, "", false},
		{`not json`, FormatZorkGPT, "", false},
	} {
		f, p, k := DetectKnown([]byte(c.in))
		if f != c.format || p != c.preset || k != c.known {
			t.Errorf("DetectKnown(%q) = %s, %q, %v; want %s, %q, %v", c.in, f, p, k, c.format, c.preset, c.known)
		}
		if f2, p2 := DetectFormat([]byte(c.in)); f2 != f || p2 != p {
			t.Errorf("DetectFormat(%q) = %s, %q; DetectKnown %s, %q", c.in, f2, p2, f, p)
		}
	}
}

// SniffLog sees through gzip, and FindSniffing keeps only what keep
// accepts.
func TestSniffLog(t *testing.T) {
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`{"task_id": "a", "status": "open"}` + "\n"))
	zw.Close()
	os.WriteFile(filepath.Join(dir, "a.jsonl.gz"), gz.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "b.json"), []byte(`{"todo": 1}`), 0o644)
	if f, _, known := SniffLog(filepath.Join(dir, "a.jsonl.gz")); f != FormatAttempts || !known {
		t.Errorf("gzip attempts log sniffed as %s, %v", f, known)
	}
	files, _, err := FindSniffing([]string{dir}, false, AgentLogName, func(p string) bool {
		_, _, known := SniffLog(p)
		return known
	})
	if err != nil || len(files) != 1 || filepath.Base(files[0]) != "a.jsonl.gz" {
		t.Errorf("found %v, %v", files, err)
	}
}

// TestFindBeside: each log found says whether the walk saw no sidecar in
// its directory; a log named as an argument is not known.
func TestFindBeside(t *testing.T) {
	root := rtTree(t,
		"eps/a/episode_log.jsonl", "eps/a/labels.json",
		"eps/b/episode_log.jsonl",
		"eps/b/c/episode_log.jsonl", "eps/b/c/labels.json",
		"eps/d/episode_log.jsonl")
	named := filepath.Join(root, "eps", "d", "episode_log.jsonl")
	match := func(n string) bool { return n == "episode_log.jsonl" }
	files, absent, skipped, err := FindBeside([]string{filepath.Join(root, "eps"), named, "-"}, false, match, nil, "labels.json")
	if err != nil || len(skipped) > 0 {
		t.Fatal(err, skipped)
	}
	var got []string
	for i, f := range files {
		rel, _ := filepath.Rel(root, f)
		if f == "-" {
			rel = f
		}
		got = append(got, filepath.ToSlash(rel)+map[bool]string{true: " none", false: " ?"}[absent[i]])
	}
	want := []string{"eps/a/episode_log.jsonl ?", "eps/b/c/episode_log.jsonl ?", "eps/b/episode_log.jsonl none", "eps/d/episode_log.jsonl none", "eps/d/episode_log.jsonl ?", "- ?"}
	if !slices.Equal(got, want) {
		t.Errorf("FindBeside =\n%q\nwant\n%q", got, want)
	}
	// Without a sidecar name nothing is known.
	_, absent, _, _ = FindBeside([]string{filepath.Join(root, "eps")}, false, match, nil, "")
	if slices.Contains(absent, true) || len(absent) != 4 {
		t.Errorf("absent without a sidecar name = %v", absent)
	}
}
