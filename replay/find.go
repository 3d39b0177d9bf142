package replay

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// LogNames are the file names a directory scan picks up.
var LogNames = []string{"episode_log.jsonl", "episode_log.jsonl.gz"}

// IsTestDir reports whether a directory holds test episodes (test_*,
// test-*), which scans skip unless asked.
func IsTestDir(name string) bool {
	return strings.HasPrefix(name, "test_") || strings.HasPrefix(name, "test-")
}

// FindLogs expands arguments into log files, in argument order and, within
// a directory, in lexical order. Files named explicitly are always read;
// directories are searched for episode_log.jsonl[.gz], skipping test
// episode directories unless includeTests. "-" stands for stdin.
func FindLogs(args []string, includeTests bool) ([]string, error) {
	var out []string
	for _, arg := range args {
		if arg == "-" {
			out = append(out, arg)
			continue
		}
		st, err := os.Stat(arg)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, arg)
			continue
		}
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != arg && !includeTests && IsTestDir(d.Name()) {
					return filepath.SkipDir
				}
				if path != arg && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			for _, n := range LogNames {
				if d.Name() == n {
					out = append(out, path)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
