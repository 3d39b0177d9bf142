package check

// A check is scoped to the paths it is given, as `go test ./pkg` does
// not judge other packages: a baseline entry whose log lies outside
// every given path is out of scope, neither compared nor missing, and an
// update keeps it unchanged. Without this a check of a few logs against a
// baseline of a million reported the rest missing, one line each.

import (
	"bytes"
	"path/filepath"
	"strings"
)

// scope is a set of given paths as a baseline names logs (sources: paths
// relative to the baseline's directory); nil: every entry is in scope.
type scope struct {
	exact []string // a source equal to one of these or below it ("p/...")
	up    int      // sources of at most this many leading ".." are in scope (-1: none)
	all   bool
}

// newScope is the scope of paths (files or directories, "-" standard
// input) for a baseline file; nil when paths is empty (no scoping).
func newScope(baselineFile string, paths []string) *scope {
	if len(paths) == 0 {
		return nil
	}
	s := &scope{up: -1}
	for _, p := range paths {
		src := SourceOf(baselineFile, p)
		// A given path at or above the baseline's directory ("." or
		// "../..") holds every source that climbs no higher.
		if n, ok := climbs(src); ok {
			s.up = max(s.up, n)
			continue
		}
		s.exact = append(s.exact, src)
	}
	return s
}

// climbs is the number of ".." of a source made of them alone ("." is
// 0); false for any other.
func climbs(src string) (int, bool) {
	if src == "." {
		return 0, true
	}
	n := 0
	for _, part := range strings.Split(src, "/") {
		if part != ".." {
			return 0, false
		}
		n++
	}
	return n, true
}

// in says whether a source is in scope.
func (s *scope) in(src string) bool {
	if s == nil || s.all {
		return true
	}
	return s.inBytes([]byte(src))
}

// inBytes is in for a source's bytes (not held).
func (s *scope) inBytes(src []byte) bool {
	if s == nil || s.all {
		return true
	}
	for _, p := range s.exact {
		if len(src) >= len(p) && string(src[:len(p)]) == p && (len(src) == len(p) || src[len(p)] == '/') {
			return true
		}
	}
	if s.up >= 0 && len(src) > 0 && src[0] != '/' && !filepath.IsAbs(string(src)) && string(src) != "-" {
		// Its leading ".." (a source is a clean relative path).
		n := 0
		for bytes.HasPrefix(src, []byte("../")) {
			n++
			src = src[3:]
		}
		return n <= s.up
	}
	return false
}
