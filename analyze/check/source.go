package check

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// HashFile returns "sha256:<hex>" of a file's bytes as stored.
func HashFile(file string) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// HashBytes returns "sha256:<hex>" of data.
func HashBytes(data []byte) string {
	s := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(s[:])
}

// SourceOf is how a baseline names a log file: its path relative to
// the baseline file's directory, slash-separated, so the baseline reads the
// same on every machine and from any working directory.
func SourceOf(baselineFile, logFile string) string {
	if logFile == "-" {
		return "-"
	}
	dir, err1 := filepath.Abs(filepath.Dir(baselineFile))
	abs, err2 := filepath.Abs(logFile)
	if err1 == nil && err2 == nil {
		if rel, err := filepath.Rel(dir, abs); err == nil {
			return escapeSource(filepath.ToSlash(rel))
		}
	}
	// Another volume (Windows): no relative path exists.
	return escapeSource(filepath.ToSlash(filepath.Clean(logFile)))
}

// escapeSource makes a path a JSON string that reads back to the same
// bytes: JSON strings are UTF-8, and encoding/json would replace each
// invalid byte with U+FFFD, so such a path would never match its log
// again. '%' becomes %25 and each byte that is not part of valid UTF-8
// becomes %XX; every other path is stored as it is.
func escapeSource(p string) string {
	if utf8.ValidString(p) && !strings.Contains(p, "%") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRuneInString(p[i:])
		switch {
		case r == utf8.RuneError && n <= 1, p[i] == '%':
			fmt.Fprintf(&b, "%%%02X", p[i])
			i++
		default:
			b.WriteString(p[i : i+n])
			i += n
		}
	}
	return b.String()
}

// unescapeSource reverses escapeSource; a '%' not followed by two hex
// digits is kept (a baseline written before sources were escaped).
func unescapeSource(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// SourcePath turns a baseline source back into a path usable from the
// working directory (the baseline's directory joined with the source).
func SourcePath(baselineFile, source string) string {
	if source == "-" {
		return source
	}
	p := filepath.FromSlash(unescapeSource(source))
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(baselineFile), p)
}
