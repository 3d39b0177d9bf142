package replay

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// findWalkDir is FindSniffing as it was on filepath.WalkDir, opening
// <dir>/events at every directory: the finder must find the same.
func findWalkDir(args []string, includeTests bool, match func(string) bool, keep func(string) bool) (files []string, skipped []error, err error) {
	for _, arg := range args {
		st, err := os.Stat(arg)
		if err != nil {
			return nil, nil, err
		}
		if !st.IsDir() {
			files = append(files, arg)
			continue
		}
		filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				skipped = append(skipped, fmt.Errorf("directory skipped: %w", err))
				if d != nil && d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				if path != arg && !includeTests && IsTestDir(d.Name()) {
					return filepath.SkipDir
				}
				if path != arg && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				if match("0.json") {
					store := path
					if !IsEventStore(store) {
						store = filepath.Join(path, "events")
					}
					if IsEventStore(store) {
						files = append(files, store)
						return filepath.SkipDir
					}
				}
				return nil
			}
			if match(d.Name()) {
				if kind := irregular(path, d); kind != "" {
					skipped = append(skipped, &fs.PathError{Op: "skip", Path: path, Err: errors.New(kind + ", not a regular file")})
				} else if keep == nil || keep(path) {
					files = append(files, path)
				}
			}
			return nil
		})
	}
	return files, skipped, nil
}

func TestFinderAsWalkDir(t *testing.T) {
	root := rtTree(t,
		"a/episode_log.jsonl", "a/labels.json", "a/x.jsonl",
		"conv/events/0.json", "conv/events/1.json", "conv/metadata.json", // a conversation: its store
		"sessions/s1/events/event-00000-0123abcd.json",
		"notstore/events/readme.txt", "notstore/events/episode_log.jsonl", "notstore/episode_log.jsonl",
		"events/2.json", "events/episode_log.jsonl", // a store met as a directory of its own
		"deep/events/events/3.json",
		"test_x/episode_log.jsonl", "test-y/events/0.json", ".hidden/episode_log.jsonl",
		"b/c/d/episode_log.jsonl.gz", "b/c/episode_log.jsonl.zst", "b/Z/episode_log.jsonl", "b/_/episode_log.jsonl",
	)
	os.MkdirAll(filepath.Join(root, "empty", "events"), 0o755)
	os.MkdirAll(filepath.Join(root, "linked"), 0o755)
	os.Symlink(filepath.Join(root, "conv", "events"), filepath.Join(root, "linked", "events")) // a link named events
	os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "linkdir"))
	os.Symlink(filepath.Join(root, "a", "episode_log.jsonl"), filepath.Join(root, "b", "episode_log.jsonl"))
	os.Symlink(filepath.Join(root, "nowhere"), filepath.Join(root, "b", "Z", "episode_log.jsonl.gz"))
	os.Mkdir(filepath.Join(root, "b", "dir"), 0o755)
	os.Mkdir(filepath.Join(root, "b", "dir", "episode_log.jsonl"), 0o755) // a directory named as a log
	names := func(name string) bool { return slices.Contains(LogNames, name) }
	jsons := func(name string) bool { return AgentLogName(name) }
	for _, args := range [][]string{
		{root}, {root + "/"}, {filepath.Join(root, "conv")}, {filepath.Join(root, "conv", "events")},
		{filepath.Join(root, "linkdir")}, {filepath.Join(root, "linkdir") + "/"}, {filepath.Join(root, "b"), filepath.Join(root, "a")},
		{filepath.Join(root, "test_x")}, {filepath.Join(root, ".hidden")}, {filepath.Join(root, "a", "x.jsonl")},
	} {
		for _, tests := range []bool{false, true} {
			for mi, match := range []func(string) bool{names, jsons} {
				for ki, keep := range []func(string) bool{nil, func(p string) bool { return !strings.Contains(p, "Z") }} {
					got, gotSkip, gotErr := FindSniffing(args, tests, match, keep)
					want, wantSkip, wantErr := findWalkDir(args, tests, match, keep)
					if !slices.Equal(got, want) || fmt.Sprint(gotSkip) != fmt.Sprint(wantSkip) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
						t.Errorf("%v tests %v match %d keep %d:\n got %q %v %v\nwant %q %v %v", args, tests, mi, ki, got, gotSkip, gotErr, want, wantSkip, wantErr)
					}
				}
			}
		}
	}
}
