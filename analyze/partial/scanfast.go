package partial

// The first pass's fast reading of an analyze body's episodes. The
// json.Decoder read every episode twice over (its scanner finding the
// value's end, then decoding it, skipping the big "json" member again):
// most of what a JSON merge cost. Here each episode's bytes are found by
// checking them (episodeReader, validEnd: JSON as encoding/json reads it,
// in one pass that also finds their end) and their members read by hand;
// an episode read so is exactly what the Decoder would have decoded. At
// the first thing the fast reading does not settle alone (an episode that
// is not valid JSON, an unusual member, a log out of order) it gives up
// with nothing done, and the Decoder reads the episodes as before, so
// every error is the one it reports. After the array, the Decoder is
// replaced by one that reads on from the byte after it.

import (
	"encoding/json"
	"io"
	"strings"
)

// fastEpisodes: the first pass reads episodes with scanEpisodesFast
// (tests compare it with the Decoder's reading).
var fastEpisodes = true

// scanEpisodesFast reads the episodes array whose '[' is at s.at, as
// scanEpisodes would, and leaves p.dec after it; false when it leaves
// everything to scanEpisodes (p.dec still after the '[').
func (s *analyzeScan) scanEpisodesFast(p *File, row func(int, *EpisodeRow)) bool {
	r := newEpisodeReader(io.NewSectionReader(p.src, s.at, p.size-s.at))
	r.strict = true
	type logged struct {
		log int
		row *EpisodeRow
	}
	var rows []logged
	episodes, texts, last := 0, false, -1
	for {
		elem, ok := r.next()
		if !ok {
			break
		}
		var e scanEpisode
		if row != nil {
			e.JSON.row = &EpisodeRow{}
		}
		if !readScanEpisode(elem, &e) || p.checkLog(e.Log) != nil || e.Log < last || row != nil && !e.JSON.seen {
			return false
		}
		last = e.Log
		if row != nil {
			rows = append(rows, logged{e.Log, e.JSON.row})
		}
		texts = texts || e.Text.nonEmpty
		episodes++
	}
	// The array's end: what next stopped at, past white space.
	if r.bad || r.err != nil && r.err != io.EOF || r.off >= r.n || r.buf[r.off] != ']' {
		return false
	}
	end := s.at + r.pos
	dec, shift, err := p.decoderAfter(end + 1)
	if err != nil {
		return false
	}
	for _, lr := range rows {
		row(lr.log, lr.row)
	}
	s.episodes, s.texts = episodes, texts
	// The bytes the second reading reads again, [at, end): those hashed.
	s.end, s.sum = end, r.h.Sum64()
	p.dec, p.offsetShift = dec, shift
	return true
}

// decoderAfter is a Decoder reading p's source from offset at on, where
// p.dec stood after an analyze body's episodes array: inside the body
// object, itself inside the document's unless the body was held alone.
// A few bytes of JSON put it in that state (their tokens read); shift
// turns its offsets into the source's.
func (p *File) decoderAfter(at int64) (*json.Decoder, int64, error) {
	prefix := `{"":{"":[]`
	if p.bodyHeld {
		prefix = `{"":[]`
	}
	dec := json.NewDecoder(io.MultiReader(strings.NewReader(prefix), io.NewSectionReader(p.src, at, p.size-at)))
	dec.DisallowUnknownFields()
	for range strings.Count(prefix, `""`)*2 + 2 {
		if _, err := dec.Token(); err != nil {
			return nil, 0, err
		}
	}
	return dec, at - int64(len(prefix)), nil
}

// readScanEpisode reads an episode object, valid JSON, into e as the
// Decoder (unknown fields refused) would; false for anything it leaves to
// the Decoder: a key with an escape or a non-ASCII byte, a key given
// twice, a log that is not null or a plain integer, a text that is not
// null or a string, an unknown key, or a summary row that does not decode.
func readScanEpisode(b []byte, e *scanEpisode) bool {
	var seen [3]bool
	i, ok := members(b, 0, func(k, _, val []byte) bool {
		m := -1
		switch key := string(k); {
		case strings.ContainsAny(key, "\\") || !isASCII(key):
		case strings.EqualFold(key, "log"):
			m = 0
		case strings.EqualFold(key, "json"):
			m = 1
		case strings.EqualFold(key, "text"):
			m = 2
		}
		if m < 0 || seen[m] {
			return false
		}
		seen[m] = true
		switch m {
		case 0:
			if string(val) != "null" {
				n, ok := plainInt(val)
				if !ok {
					return false
				}
				e.Log = n
			}
		case 1:
			if e.JSON.UnmarshalJSON(val) != nil {
				return false
			}
		case 2:
			if val[0] != '"' && string(val) != "null" || e.Text.UnmarshalJSON(val) != nil {
				return false
			}
		}
		return true
	})
	return ok && i == len(b)-1 && b[i] == '}'
}
