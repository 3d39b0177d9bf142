package partial

import (
	"os"
	"path/filepath"
)

// dedupe tells a log already found: the same cleaned path (a file given
// alone and inside a directory given too) or the same file (a link, a
// second mount), so no episode counts twice.
type dedupe struct {
	seen  map[string]bool
	infos []os.FileInfo
}

// dup reports whether path names a log seen before, remembering it.
func (d *dedupe) dup(path string) bool {
	if d.seen == nil {
		d.seen = map[string]bool{}
	}
	key := path
	if path != "-" {
		key = filepath.Clean(path)
	}
	if d.seen[key] {
		return true
	}
	d.seen[key] = true
	if path == "-" {
		return false
	}
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return false // a pipe is read as it is named
	}
	for _, prev := range d.infos {
		if os.SameFile(prev, st) {
			return true
		}
	}
	d.infos = append(d.infos, st)
	return false
}
