package replay

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// LogNames are the file names a directory scan picks up.
var LogNames = []string{"episode_log.jsonl", "episode_log.jsonl.gz", "episode_log.jsonl.zst"}

// IsTestDir reports whether a directory holds test episodes (test_*,
// test-*), which scans skip unless asked.
func IsTestDir(name string) bool {
	return strings.HasPrefix(name, "test_") || strings.HasPrefix(name, "test-")
}

// FindLogs expands arguments into log files like Find, but fails on the
// first entry Find would skip.
func FindLogs(args []string, includeTests bool) ([]string, error) {
	files, skipped, err := Find(args, includeTests)
	if err == nil && len(skipped) > 0 {
		err = skipped[0]
	}
	return files, err
}

// Find expands arguments into log files, in argument order and, within a
// directory, in lexical order; a search for agent logs takes an OpenHands
// event store directory (events/<id>.json) as one log. Files named explicitly are always read
// (a named pipe too, once, as a stream); directories are searched for
// episode_log.jsonl[.gz|.zst], skipping test episode directories unless
// includeTests. "-" stands for stdin.
//
// What a search cannot use is skipped and returned in skipped, the walk
// going on: a directory that cannot be read (like a file that cannot be,
// it costs its own logs, not the run) and an entry named like a log that
// is not a regular file (a named pipe or a device, which a scan must never
// open: it could block forever or never end). err is for arguments that
// do not exist.
func Find(args []string, includeTests bool) (files []string, skipped []error, err error) {
	return FindMatching(args, includeTests, func(name string) bool { return slices.Contains(LogNames, name) || AgentSessionName(name) })
}

// AgentLogName says whether a directory scan for steps or attempts logs
// picks a file up: *.jsonl, *.json and their .gz or .zst.
func AgentLogName(name string) bool {
	switch {
	case name == "ui_messages.json":
		// A Cline or Roo Code task's steps are in the
		// api_conversation_history.json beside it; named explicitly, it
		// is refused with that pointer.
		return false
	case AgentSessionName(name):
		return true // a SWE-agent .traj, an Aider chat history
	}
	name = strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".zst")
	return strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".json")
}

// FindMatching is Find with directories searched for the file names match
// accepts.
func FindMatching(args []string, includeTests bool, match func(name string) bool) (files []string, skipped []error, err error) {
	return FindSniffing(args, includeTests, match, nil)
}

// FindSniffing is FindMatching where a regular file whose name match
// accepts is kept only if keep (nil: any) accepts its path too: keep may
// look inside (SniffLog). A candidate that is not a regular file is
// reported as skipped, never opened.
func FindSniffing(args []string, includeTests bool, match func(name string) bool, keep func(path string) bool) (files []string, skipped []error, err error) {
	files, _, skipped, err = FindBeside(args, includeTests, match, keep, "")
	return files, skipped, err
}

// FindBeside is FindSniffing that also tells, for each file found, whether
// the walk listed its directory and saw no entry named sidecar there
// (absent[i], for files[i]): a caller looking for a sidecar beside every
// log (labels.json) need not ask the system again for each directory that
// has none. absent[i] is false when that is not known (a file named as an
// argument, an event store).
func FindBeside(args []string, includeTests bool, match func(name string) bool, keep func(path string) bool, sidecar string) (files []string, absent []bool, skipped []error, err error) {
	for _, arg := range args {
		if arg == "-" {
			files, absent = append(files, arg), append(absent, false)
			continue
		}
		st, err := os.Stat(arg)
		if err != nil {
			return nil, nil, nil, err
		}
		if !st.IsDir() {
			files, absent = append(files, arg), append(absent, false)
			continue
		}
		w := finder{arg: arg, includeTests: includeTests, match: match, keep: keep, stores: match("0.json"), sidecar: sidecar, files: files, absent: absent, skipped: skipped}
		w.root()
		files, absent, skipped = w.files, w.absent, w.skipped
	}
	return files, absent, skipped, nil
}

// finder walks one directory argument as filepath.WalkDir would (the
// argument itself not followed if it is a link, each directory's entries
// in lexical order), with the choices FindSniffing documents. It is not
// WalkDir because of event stores: WalkDir shows a directory before its
// entries are read, so whether it holds an events store could only be
// asked by opening <dir>/events, a failed open per directory of a corpus
// (a file each, 100,000 of them); here the entries are read first, and
// <dir>/events is opened only when they name it (or cannot be read).
type finder struct {
	arg          string
	includeTests bool
	match        func(name string) bool
	keep         func(path string) bool
	stores       bool   // OpenHands event stores are logs (match("0.json"))
	sidecar      string // FindBeside's

	files   []string // FindBeside's, appended to
	absent  []bool   // as long as files
	skipped []error
}

// readDir is os.ReadDir; tests replace it to make a directory unreadable
// whatever the user running them may read.
var readDir = os.ReadDir

func (w *finder) root() {
	info, err := os.Lstat(w.arg)
	if err != nil {
		w.skipped = append(w.skipped, fmt.Errorf("directory skipped: %w", err))
		return
	}
	w.entry(w.arg, fs.FileInfoToDirEntry(info))
	for len(w.absent) < len(w.files) {
		w.absent = append(w.absent, false) // the argument itself (a link to a directory is not followed)
	}
}

// entry looks at what the walk meets at path: a directory is walked, a
// file is kept if it is a log.
func (w *finder) entry(path string, d fs.DirEntry) {
	if d.IsDir() {
		w.dir(path, d)
		return
	}
	if w.match(d.Name()) {
		if kind := irregular(path, d); kind != "" {
			w.skipped = append(w.skipped, &fs.PathError{Op: "skip", Path: path, Err: errors.New(kind + ", not a regular file")})
		} else if w.keep == nil || w.keep(path) {
			w.files = append(w.files, path) // its absent: dir's
		}
	}
}

func (w *finder) dir(path string, d fs.DirEntry) {
	if path != w.arg && (!w.includeTests && IsTestDir(d.Name()) || strings.HasPrefix(d.Name(), ".")) {
		return
	}
	// An OpenHands event store is one log, not a log per event file
	// (openhands_store.go); the conversation directory holding it is
	// that one session (its metadata.json or base_state.json are no
	// logs).
	if w.stores && IsEventStore(path) {
		w.files, w.absent = append(w.files, path), append(w.absent, false)
		return
	}
	entries, err := readDir(path)
	if w.stores && (err != nil || slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == "events" })) {
		if store := filepath.Join(path, "events"); IsEventStore(store) {
			w.files, w.absent = append(w.files, store), append(w.absent, false)
			return
		}
	}
	if err != nil {
		// A directory that cannot be read costs its own logs.
		w.skipped = append(w.skipped, fmt.Errorf("directory skipped: %w", err))
		return
	}
	absent := w.sidecar != "" && !slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == w.sidecar })
	for _, e := range entries {
		w.entry(filepath.Join(path, e.Name()), e)
		for len(w.absent) < len(w.files) {
			w.absent = append(w.absent, absent) // the files this entry was (a directory's are set)
		}
	}
}

// irregular names what a log-named entry is when it is neither a regular
// file nor a link that cannot be followed (following a symbolic link), or
// returns "".
func irregular(path string, d fs.DirEntry) string {
	mode := d.Type()
	if mode&fs.ModeSymlink != 0 {
		st, err := os.Stat(path)
		if err != nil {
			return "" // a dangling link: opening it reports why, as for any unreadable file
		}
		mode = st.Mode().Type()
	}
	switch {
	case mode.IsRegular():
		return ""
	case mode&fs.ModeNamedPipe != 0:
		return "named pipe"
	case mode&fs.ModeDevice != 0 || mode&fs.ModeCharDevice != 0:
		return "device"
	case mode&fs.ModeSocket != 0:
		return "socket"
	case mode.IsDir():
		return "directory"
	}
	return "special file"
}

// SniffLog says what a file found in a directory holds, by its first
// records (DetectKnown, through gzip or zstd): the format and preset of a
// log loopbreak reads, or known false. Unreadable files are known: reading
// them reports why.
func SniffLog(path string) (format, preset string, known bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", "", true
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, detectBytes)
	var r io.Reader = br
	magic, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(magic, gzipMagic):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return "", "", true
		}
		defer zr.Close()
		r = zr
	case bytes.Equal(magic, zstdMagic):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return "", "", true
		}
		defer zr.Close()
		r = zr
	}
	start := make([]byte, detectBytes)
	n, _ := io.ReadFull(r, start)
	return DetectKnown(start[:n])
}
