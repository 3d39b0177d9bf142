package partial

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
)

// Shard is --shard K/N: this process reads the K-th of N disjoint parts
// of the inputs; the zero Shard (0/0) is no sharding. It is a pflag.Value.
type Shard struct {
	K int `json:"k"`
	N int `json:"n"`
}

func (s *Shard) String() string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}

// Type names the flag's value in help.
func (s *Shard) Type() string { return "K/N" }

// Set parses K/N.
func (s *Shard) Set(v string) error {
	ks, ns, ok := strings.Cut(strings.TrimSpace(v), "/")
	k, kerr := strconv.Atoi(ks)
	n, nerr := strconv.Atoi(ns)
	switch {
	case !ok || kerr != nil || nerr != nil:
		return fmt.Errorf("want K/N, e.g. 1/4 for the first of 4 shards")
	case n < 1:
		return fmt.Errorf("the shard count N must be at least 1, got %d", n)
	case k < 1 || k > n:
		return fmt.Errorf("the shard number K must be from 1 to %d, got %d", n, k)
	}
	s.K, s.N = k, n
	return nil
}

// On says whether a shard was given.
func (s Shard) On() bool { return s.N > 0 }

// ShardOf is the shard (1..n) a log belongs to. The key is the log's path
// relative to the argument it was found under (the path as given for a
// file named explicitly), slash-separated, so the assignment is the same
// on every machine whatever the mount point, and adding a log moves no
// other log to another shard.
func ShardOf(key string, n int) int {
	h := fnv.New64a()
	h.Write([]byte(key))
	return int(h.Sum64()%uint64(n)) + 1
}

// LogSet is the logs the arguments name, and this shard's part of them.
type LogSet struct {
	Shard Shard // as selected; the zero Shard for all the logs
	// Files are this shard's logs in input order; Index[i] is Files[i]'s
	// position among all the logs, which orders a merge.
	Files []string
	Index []int
	// Regular[i] says the walk's stat (the dedupe's) found Files[i] a
	// regular file: it is read without a stat of its own
	// (analyze.Options.Regular).
	Regular []bool
	// Sizes[i] is Files[i]'s size at that stat, -1 when not a regular
	// file: small files are handed to workers several at a time
	// (analyze.Options.Sizes).
	Sizes []int64
	// NoSidecar[i] says the walk listed Files[i]'s directory and saw no
	// SelectOptions.Sidecar in it (false: there is one, or not known).
	NoSidecar []bool
	// Total and Digest describe all the logs (every shard's), so a merge
	// can refuse parts made from different inputs: Digest is a sha256 of
	// the shard keys in input order.
	Total  int
	Digest string
	// Skipped is what the walk skipped (an unreadable directory, a
	// log-named pipe or device), in every shard; WalkErrs is the same
	// as file errors, given to the first shard only, which reports them.
	Skipped  []error
	WalkErrs []analyze.FileError
}

// SelectOptions say which logs Select finds and keeps.
type SelectOptions struct {
	Shard        Shard
	IncludeTests bool
	// Match says whether a file met in a directory walk is a log by its
	// name; Keep, if set, must accept its path too (it may look inside).
	Match func(name string) bool
	Keep  func(path string) bool
	// Sidecar, if set, is a file name looked for beside each log
	// (analyze.LabelsSidecar): LogSet.NoSidecar says where the walk saw
	// none.
	Sidecar string
}

// ErrStdinShard is Select's error for standard input in a sharded run.
var ErrStdinShard = errors.New("--shard: standard input (-) cannot be split between shards; name files or directories")

// Select expands the arguments into logs (each read once, however often
// it is named: the same path, or the same file through a link or a
// second mount) and keeps those of o.Shard (all of them without it).
func Select(args []string, o SelectOptions) (*LogSet, error) {
	set := &LogSet{Shard: o.Shard}
	h := sha256.New()
	var dd dedupe
	for _, arg := range args {
		// One argument at a time, to know what each log's key is
		// relative to; Find keeps argument order.
		found, absent, sk, err := replay.FindBeside([]string{arg}, o.IncludeTests, o.Match, o.Keep, o.Sidecar)
		if err != nil {
			return nil, err
		}
		set.Skipped = append(set.Skipped, sk...)
		for i, path := range found {
			dup, regular, size := dd.dup(path)
			if dup {
				continue // named twice: read once
			}
			if path == "-" && o.Shard.On() {
				return nil, ErrStdinShard
			}
			key := ShardKey(arg, path)
			fmt.Fprintf(h, "%q\n", key)
			if !o.Shard.On() || ShardOf(key, o.Shard.N) == o.Shard.K {
				set.Files = append(set.Files, path)
				set.Index = append(set.Index, set.Total)
				set.Regular = append(set.Regular, regular)
				set.Sizes = append(set.Sizes, size)
				set.NoSidecar = append(set.NoSidecar, absent[i])
			}
			set.Total++
		}
	}
	if !o.Shard.On() || o.Shard.K == 1 {
		for _, e := range set.Skipped {
			set.WalkErrs = append(set.WalkErrs, analyze.FileError{Source: skippedPath(e), Error: e.Error()})
		}
	}
	set.Digest = "sha256:" + hex.EncodeToString(h.Sum(nil))
	return set, nil
}

// ShardKey is a log's path relative to the argument it was found under.
func ShardKey(arg, path string) string {
	if path == arg {
		return filepath.ToSlash(filepath.Clean(path))
	}
	if rel, err := filepath.Rel(arg, path); err == nil {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(path)
}

// skippedPath is the path a skipped entry's error names.
func skippedPath(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Path
	}
	return ""
}
