package cmd

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
)

// shardFlag is --shard K/N: this process reads the K-th of N disjoint
// parts of the inputs.
type shardFlag struct {
	K, N int // 0/0: not sharded
}

func (s *shardFlag) String() string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}

func (s *shardFlag) Type() string { return "K/N" }

func (s *shardFlag) Set(v string) error { // implements pflag.Value
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

// on says whether --shard was given.
func (s *shardFlag) on() bool { return s.N > 0 }

// shardOf is the shard (1..n) a log belongs to. The key is the log's path
// relative to the argument it was found under (the path as given for a
// file named explicitly), slash-separated, so the assignment is the same
// on every machine whatever the mount point, and adding a log moves no
// other log to another shard.
func shardOf(key string, n int) int {
	h := fnv.New64a()
	h.Write([]byte(key))
	return int(h.Sum64()%uint64(n)) + 1
}

// logSet is the logs the arguments name, and this shard's part of them.
type logSet struct {
	// Files are this shard's logs in input order; Index[i] is Files[i]'s
	// position among all the logs, which orders a merge.
	Files []string
	Index []int
	// Total and Digest describe all the logs (every shard's), so a merge
	// can refuse parts made from different inputs: Digest is a sha256 of
	// the shard keys in input order.
	Total  int
	Digest string
	// WalkErrs are what the walk skipped, given to the first shard.
	WalkErrs []analyze.FileError
}

// findShard expands the arguments and keeps the logs of --shard (all of
// them without it). No log at all is an error worth exit 2; a shard that
// gets none of them is not (more shards than logs). What a directory walk
// skipped (an unreadable directory, a log-named pipe or device) is
// reported on errOut and returned as file errors, like an unreadable
// file, by the first shard only; with --strict the first is fatal.
func (in *inputFlags) findShard(args []string, errOut io.Writer) (*logSet, error) {
	if err := in.checkInput(); err != nil {
		return nil, err
	}
	in.args = args
	match := func(name string) bool { return slices.Contains(replay.LogNames, name) }
	if in.agentLogs() {
		match = replay.AgentLogName
	}
	set := &logSet{}
	h := sha256.New()
	var skipped []error
	var dd logDedupe
	for _, arg := range args {
		// One argument at a time, to know what each log's key is
		// relative to; Find keeps argument order.
		found, sk, err := replay.FindMatching([]string{arg}, in.IncludeTests, match)
		if err != nil {
			return nil, err
		}
		skipped = append(skipped, sk...)
		for _, path := range found {
			if dd.dup(path) {
				continue // named twice: read once
			}
			if path == "-" && in.Shard.on() {
				return nil, usageErrorf("--shard: standard input (-) cannot be split between shards; name files or directories")
			}
			key := shardKey(arg, path)
			fmt.Fprintf(h, "%q\n", key)
			if !in.Shard.on() || shardOf(key, in.Shard.N) == in.Shard.K {
				set.Files = append(set.Files, path)
				set.Index = append(set.Index, set.Total)
			}
			set.Total++
		}
	}
	if len(skipped) > 0 && in.Strict {
		return nil, skipped[0]
	}
	if set.Total == 0 && len(skipped) == 0 {
		if in.agentLogs() {
			return nil, fmt.Errorf("no logs (*.jsonl, *.json[.gz|.zst]) found in %v", args)
		}
		return nil, fmt.Errorf("no episode logs (episode_log.jsonl[.gz|.zst]) found in %v", args)
	}
	if !in.Shard.on() || in.Shard.K == 1 {
		for _, e := range skipped {
			fmt.Fprintf(errOut, "loopbreak: %v\n", e)
			set.WalkErrs = append(set.WalkErrs, analyze.FileError{Source: skippedPath(e), Error: e.Error()})
		}
	}
	set.Digest = "sha256:" + hex.EncodeToString(h.Sum(nil))
	return set, nil
}

// shardKey is a log's path relative to the argument it was found under.
func shardKey(arg, path string) string {
	if path == arg {
		return filepath.ToSlash(filepath.Clean(path))
	}
	if rel, err := filepath.Rel(arg, path); err == nil {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(path)
}
