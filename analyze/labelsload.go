package analyze

// Finding each episode's labels: the --labels file, then each log's sidecar.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
)

// Labels finds each episode's labels: --labels first, then the sidecar
// labels.json next to its log. It is built before the run (every file
// validated up front, so a bad file stops the run before any output) and
// is safe for concurrent use.
type Labels struct {
	explicit *LabelsFile
	sidecars map[string]*LabelsFile // log directory → its labels.json; nil: none

	// unreadable words each sidecar that is there but cannot be read (a
	// symlink to a file this user may not read, a loop, a directory):
	// like an unreadable log, it is reported and the run goes on.
	unreadable []string

	mu     sync.Mutex
	singly map[string]string       // log path → episode the "stuck" form labelled
	used   map[*EpisodeLabels]bool // labels handed to an episode
}

// LoadLabels reads explicit (the --labels file; "" for none) and the
// sidecar of every log in logs. noSidecar, when set, says by index which
// logs' directories a walk listed without a sidecar in them
// (partial.LogSet.NoSidecar): those are not looked for again. It returns
// nil, nil when there are no labels at all.
func LoadLabels(explicit string, logs []string, noSidecar []bool) (*Labels, error) {
	l := &Labels{sidecars: map[string]*LabelsFile{}, singly: map[string]string{}, used: map[*EpisodeLabels]bool{}}
	found := false
	if explicit != "" {
		lf, err := ReadLabelsFile(explicit)
		if err != nil {
			return nil, err
		}
		if lf.Single != nil {
			return nil, &LabelsError{File: explicit, Path: "$", Reason: `--labels needs the "episodes" form (spans by episode id); {"stuck": [...]} belongs in a labels.json next to one log`}
		}
		l.explicit, found = lf, true
	}
	for i, log := range logs {
		if log == "-" {
			continue
		}
		dir := filepath.Dir(log)
		if _, seen := l.sidecars[dir]; seen {
			continue
		}
		if i < len(noSidecar) && noSidecar[i] {
			l.sidecars[dir] = nil
			continue
		}
		path := filepath.Join(dir, LabelsSidecar)
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			// No entry at all, not even a dangling link: one system
			// call for what nearly every directory of a corpus lacks
			// (opening it, then telling a link by Lstat, took two).
			l.sidecars[dir] = nil
			continue
		}
		lf, err := ReadLabelsFile(path)
		var le *LabelsError
		switch {
		case errors.Is(err, os.ErrNotExist) && !isLink(path):
			l.sidecars[dir] = nil
			continue
		case err != nil && !errors.As(err, &le):
			l.sidecars[dir] = nil
			l.unreadable = append(l.unreadable, fmt.Sprintf("%s: unreadable (%s): its labels are not used", path, ioReason(err)))
			continue
		case err != nil:
			return nil, err // a labels file that breaks the format stops the run
		}
		l.sidecars[dir], found = lf, true
	}
	if !found && len(l.unreadable) == 0 {
		return nil, nil
	}
	return l, nil
}

// isLink says path is a symbolic link (a dangling one is unreadable,
// not absent).
func isLink(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

// ioReason is an I/O error without the path the warning names already.
func ioReason(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// For returns the labels of episode id read from log, nil when it is
// unlabelled (it then counts nowhere). The --labels file wins over a
// sidecar for the episodes it lists. A sidecar's "stuck" form labels its
// log's one episode: a second episode of that log is an error, since the
// spans cannot say which episode they mean.
func (l *Labels) For(log, id string) (*EpisodeLabels, error) {
	if l == nil {
		return nil, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var lf *LabelsFile
	if log != "-" {
		lf = l.sidecars[filepath.Dir(log)]
	}
	if l.explicit != nil {
		if e := l.explicit.Episodes[id]; e != nil {
			l.used[e] = true
			if lf != nil { // shadowed, not forgotten: no warning for it
				if lf.Single != nil {
					l.used[lf.Single] = true
				} else if se := lf.Episodes[id]; se != nil {
					l.used[se] = true
				}
			}
			return e, nil
		}
	}
	if lf == nil {
		return nil, nil
	}
	if lf.Single == nil {
		e := lf.Episodes[id]
		if e != nil {
			l.used[e] = true
		}
		return e, nil
	}
	if prev, ok := l.singly[log]; ok && prev != id {
		return nil, &LabelsError{File: lf.Path, Path: "$.stuck", Reason: fmt.Sprintf("labels one episode, but %s holds several (%s, %s): key the spans by episode id under \"episodes\"", log, prev, id)}
	}
	l.singly[log] = id
	l.used[lf.Single] = true
	return lf.Single, nil
}

// Unused words the sidecars that could not be read, then the labels no
// episode read so far took: most often a mistyped episode id, which would
// otherwise silently score nothing.
func (l *Labels) Unused() []string {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := append([]string(nil), l.unreadable...)
	check := func(lf *LabelsFile) {
		if lf == nil {
			return
		}
		if lf.Single != nil && !l.used[lf.Single] {
			out = append(out, fmt.Sprintf("%s: no episode was read from this directory", lf.Path))
		}
		for _, id := range sortedKeys(anyMap(lf.Episodes)) {
			if !l.used[lf.Episodes[id]] {
				out = append(out, fmt.Sprintf("%s: $.episodes[%s]: no episode with this id was read", lf.Path, strconv.Quote(id)))
			}
		}
	}
	check(l.explicit)
	dirs := make([]string, 0, len(l.sidecars))
	for d := range l.sidecars {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		check(l.sidecars[d])
	}
	return out
}

func anyMap[V any](m map[string]V) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
