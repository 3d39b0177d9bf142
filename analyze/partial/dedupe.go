package partial

import (
	"os"
	"path/filepath"
)

// dedupe tells a log already found: the same cleaned path (a file given
// alone and inside a directory given too) or the same file (a link, a
// second mount), so no episode counts twice. Files are told apart by
// their device and inode where the system has them (fileKey), so N logs
// cost N map lookups; elsewhere each is compared with every earlier one
// (os.SameFile).
type dedupe struct {
	seen  map[string]bool
	keys  map[fileKey]bool
	infos []os.FileInfo // without fileKey
}

// dup reports whether path names a log seen before, remembering it, and
// whether its stat found a regular file (read then without a stat of its
// own: replay.StreamRegularFile) and of what size (-1 when not regular).
func (d *dedupe) dup(path string) (dup, regular bool, size int64) {
	if d.seen == nil {
		d.seen = map[string]bool{}
		d.keys = map[fileKey]bool{}
	}
	key := path
	if path != "-" {
		key = filepath.Clean(path)
	}
	if d.seen[key] {
		return true, false, -1
	}
	d.seen[key] = true
	if path == "-" {
		return false, false, -1
	}
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return false, false, -1 // a pipe is read as it is named
	}
	if k, ok := keyOf(st); ok {
		if d.keys[k] {
			return true, false, -1
		}
		d.keys[k] = true
		return false, true, st.Size()
	}
	for _, prev := range d.infos {
		if os.SameFile(prev, st) {
			return true, false, -1
		}
	}
	d.infos = append(d.infos, st)
	return false, true, st.Size()
}
