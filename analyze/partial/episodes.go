package partial

// The merge's second reading of a part's episodes, without encoding/json:
// the first pass decoded and checked every episode (json.Decoder, unknown
// fields refused), so the second finds each object's end and its members
// by their brackets and quotes, and decodes with encoding/json only an
// object it cannot read so (an escaped or unusual key, a number that is
// not a plain integer, an escaped text). A hash of the bytes the first
// pass checked, compared after the last episode, tells a part changed in
// between.

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/loopbreak/loopbreak/replay"
	"hash/maphash"
	"io"
	"strings"
)

// partSeed seeds the hashes of both readings (one process).
var partSeed = maphash.MakeSeed()

// hashRange hashes src's bytes [from, to).
func hashRange(src io.ReaderAt, from, to int64) (uint64, error) {
	var h maphash.Hash
	h.SetSeed(partSeed)
	if _, err := io.Copy(&h, io.NewSectionReader(src, from, to-from)); err != nil {
		return 0, err
	}
	return h.Sum64(), nil
}

// episodeReader reads a part's episodes array from its '['; what it
// consumes is hashed.
type episodeReader struct {
	r      io.Reader
	buf    []byte
	off, n int
	pos    int64 // bytes consumed
	err    error
	// strict: next checks each episode is JSON as it finds its end
	// (validEnd); bad once one is not (or is too deep to tell).
	strict, bad bool
	h           maphash.Hash
	opened      bool
}

func newEpisodeReader(r io.Reader) *episodeReader {
	e := &episodeReader{r: r, buf: make([]byte, 64<<10)}
	e.h.SetSeed(partSeed)
	return e
}

// fill reads more, keeping the unread bytes; false once nothing more can
// be read.
func (e *episodeReader) fill() bool {
	if e.err != nil {
		return false
	}
	if e.off > 0 {
		e.n = copy(e.buf, e.buf[e.off:e.n])
		e.off = 0
	}
	if e.n == len(e.buf) {
		e.buf = append(e.buf, make([]byte, len(e.buf))...)
	}
	m, err := io.ReadAtLeast(e.r, e.buf[e.n:], 1)
	e.n += m
	if err != nil {
		e.err = err
	}
	return m > 0
}

// consume hashes and passes the next k unread bytes.
func (e *episodeReader) consume(k int) {
	e.h.Write(e.buf[e.off : e.off+k])
	e.off += k
	e.pos += int64(k)
}

// skipSpace consumes white space; false at the end of the input.
func (e *episodeReader) skipSpace() bool {
	for {
		i := skipSpace(e.buf[:e.n], e.off)
		e.consume(i - e.off)
		if e.off < e.n {
			return true
		}
		if !e.fill() {
			return false
		}
	}
}

// next returns the next episode object's bytes (valid until the next
// call); false when the array or the input ends first.
func (e *episodeReader) next() ([]byte, bool) {
	sep := byte(',')
	if !e.opened {
		sep = '['
	}
	if !e.skipSpace() || e.buf[e.off] != sep {
		return nil, false
	}
	e.consume(1)
	e.opened = e.opened || sep == '['
	if !e.skipSpace() || e.buf[e.off] != '{' {
		return nil, false
	}
	for {
		if e.strict {
			switch end := validEnd(e.buf[:e.n], e.off); {
			case end >= 0:
				elem := e.buf[e.off:end]
				e.consume(end - e.off)
				return elem, true
			case end == notJSON:
				e.bad = true
				return nil, false
			}
		} else if end, closed := replay.SkipComposite(e.buf[:e.n], e.off); closed {
			elem := e.buf[e.off:end]
			e.consume(end - e.off)
			return elem, true
		}
		if !e.fill() {
			return nil, false
		}
	}
}

// decodeEpisode decodes an episode object as json.Decoder (unknown fields
// refused) decodes it into ep, whose keep flags say what to keep; ep is
// reset first.
func decodeEpisode(elem []byte, ep *mergeEpisode) error {
	ep.Log, ep.JSON.data, ep.Text.text = 0, ep.JSON.data[:0], ""
	if readEpisode(elem, ep) {
		return nil
	}
	ep.Log, ep.JSON.data, ep.Text.text = 0, ep.JSON.data[:0], ""
	dec := json.NewDecoder(bytes.NewReader(elem))
	dec.DisallowUnknownFields()
	return dec.Decode(ep)
}

// members walks the members of the object whose '{' is at b[open]
// (valid JSON, as every caller has checked), calling fn with each key as
// written between its quotes, the key with its quotes, and the value;
// fn returns false to stop. It returns the index after the last member
// (the '}' of a well-formed object) and false when it stopped, or when
// the bytes are not the object the caller's check promised.
func members(b []byte, open int, fn func(key, quoted, val []byte) bool) (int, bool) {
	i := skipSpace(b, open+1)
	for i < len(b) && b[i] == '"' {
		k := replay.SkipString(b, i)
		if k < i+2 || b[k-1] != '"' {
			return i, false // unterminated
		}
		j := skipSpace(b, k)
		if j >= len(b) || b[j] != ':' {
			return i, false
		}
		v := skipSpace(b, j+1)
		end := replay.SkipValue(b, v)
		if end <= v || end > len(b) {
			return i, false
		}
		if !fn(b[i+1:k-1], b[i:k], b[v:end]) {
			return i, false
		}
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return i, true
}

// readEpisode reads the members log, json and text of an object already
// checked to be valid; false for anything it leaves to encoding/json.
func readEpisode(b []byte, ep *mergeEpisode) bool {
	i, ok := members(b, 0, func(k, _, val []byte) bool {
		switch key := string(k); {
		case strings.ContainsAny(key, "\\") || !isASCII(key):
			return false
		case strings.EqualFold(key, "log"):
			if string(val) != "null" {
				n, ok := plainInt(val)
				if !ok {
					return false
				}
				ep.Log = n
			}
		case strings.EqualFold(key, "json"):
			if ep.JSON.keep {
				ep.JSON.data = append(ep.JSON.data[:0], val...)
			}
		case strings.EqualFold(key, "text"):
			if ep.Text.keep {
				ep.Text.text = ""
				switch s, ok := plainString(val); {
				case ok:
					ep.Text.text = s
				case val[0] != '"' && string(val) != "null":
					return false // not a string: encoding/json says so
				case json.Unmarshal(val, &ep.Text.text) != nil: // escapes (keptText's own way)
					return false
				}
			}
		default:
			return false // unknown: encoding/json refuses it
		}
		return true
	})
	return ok && i == len(b)-1 && b[i] == '}'
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// plainInt is a JSON integer of at most 18 digits (no overflow).
func plainInt(v []byte) (int, bool) {
	neg := len(v) > 0 && v[0] == '-'
	d := v
	if neg {
		d = v[1:]
	}
	if len(d) == 0 || len(d) > 18 || (d[0] == '0' && len(d) > 1) {
		return 0, false
	}
	n := 0
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// plainString is a JSON string of printable ASCII without escapes.
func plainString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	in := v[1 : len(v)-1]
	for _, c := range in {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return "", false
		}
	}
	return string(in), true
}

// errChanged: the bytes read again are not those the first pass checked.
var errChanged = errors.New("its episodes differ from the first reading")
