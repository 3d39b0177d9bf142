package partial

// What makes a merge cheaper than the run it merges: parts read on
// workers, and of each episode's JSON only the members a summary row
// reads decoded.

import (
	"runtime"
	"strings"
	"sync"
)

// parallel calls f(i) for i in [0, n), up to GOMAXPROCS at a time, and
// returns once every call has.
func parallel(n int, f func(i int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// rowFields are the JSON names of EpisodeRow's fields.
var rowFields = []string{"episode_id", "source", "live", "diagnostics", "recorded_turns", "final_score", "recorded_end",
	"termination", "turns_saved", "llm_calls_saved", "score_forfeited", "false_termination", "censored"}

// rowMembers is b, a JSON object already checked to be valid (by the
// decoder that read it), with only the members whose key may name a
// field of EpisodeRow, in their order: what json.Unmarshal decodes into
// an EpisodeRow from b, it decodes from them, and it need not scan (twice)
// an episode's firings to skip them. A key is kept when it matches a
// field's name in any case, or holds an escape or a non-ASCII byte
// (left to encoding/json's matching). Anything but an object is b.
func rowMembers(b []byte) []byte {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return b
	}
	out := make([]byte, 0, 512)
	out = append(out, '{')
	if _, ok := members(b, i, func(key, quoted, val []byte) bool {
		if mayNameRowField(key) {
			if len(out) > 1 {
				out = append(out, ',')
			}
			out = append(out, quoted...)
			out = append(out, ':')
			out = append(out, val...)
		}
		return true
	}); !ok {
		return b // not what a decoder checked: let it say so
	}
	return append(out, '}')
}

func mayNameRowField(key []byte) bool {
	for _, c := range key {
		if c == '\\' || c >= 0x80 {
			return true
		}
	}
	for _, f := range rowFields {
		if len(f) == len(key) && strings.EqualFold(f, string(key)) {
			return true
		}
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
