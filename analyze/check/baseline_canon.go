package check

// Reading a baseline in the canonical form Encode writes without
// encoding/json. A check of a few logs against a baseline of a million
// entries spent nearly all its time in encoding/json's reflection (about
// 19 µs an entry); the canonical form is fixed line for line, so its
// entries are read by matching their lines, and the firing counts, which
// a corpus repeats (a handful of distinct sets for a million episodes),
// are parsed once per distinct text. Anything else (a file written by
// hand or by another tool, an escaped string, an odd number) is not
// guessed at: decodeCanonical says no and the file is decoded by
// encoding/json from its start, as before.

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
)

// canonReader reads a file in chunks, handing out the bytes up to a
// separator; what it hands out is valid until the next call.
type canonReader struct {
	r   io.Reader
	buf []byte
	off int // buf[off:n] is unread
	n   int
	err error
}

// fill reads more, keeping the unread bytes; false once nothing more can
// be read.
func (c *canonReader) fill() bool {
	if c.err != nil {
		return false
	}
	if c.off > 0 {
		c.n = copy(c.buf, c.buf[c.off:c.n])
		c.off = 0
	}
	if c.n == len(c.buf) {
		c.buf = append(c.buf, make([]byte, len(c.buf))...)
	}
	for range 100 { // a reader returning 0, nil that often is stuck
		m, err := c.r.Read(c.buf[c.n:])
		c.n += m
		if err != nil {
			c.err = err
		}
		if m > 0 || err != nil {
			return m > 0
		}
	}
	c.err = io.ErrNoProgress
	return false
}

// until returns the bytes up to and including the next sep; false if the
// file ends first.
func (c *canonReader) until(sep string) ([]byte, bool) {
	from := 0
	for {
		if i := bytes.Index(c.buf[c.off+from:c.n], []byte(sep)); i >= 0 {
			end := c.off + from + i + len(sep)
			b := c.buf[c.off:end]
			c.off = end
			return b, true
		}
		from = max(0, c.n-c.off-len(sep)+1)
		if !c.fill() {
			return nil, false
		}
	}
}

// skip consumes lit if the unread bytes start with it.
func (c *canonReader) skip(lit string) bool {
	for c.n-c.off < len(lit) {
		if !c.fill() {
			return false
		}
	}
	if string(c.buf[c.off:c.off+len(lit)]) != lit {
		return false
	}
	c.off += len(lit)
	return true
}

// atEOF says whether nothing is left to read.
func (c *canonReader) atEOF() bool { return c.off == c.n && !c.fill() && c.err == io.EOF }

// canonHeadMax bounds the head (schema version and config) read line by
// line: a canonical one is a few KB.
const canonHeadMax = 1 << 20

// decodeCanonical decodes a baseline in its canonical form, handing add
// each entry (what encoding/json would decode from it); it returns the
// rest (no Episodes). False at the first byte the canonical form would
// not hold, entries possibly handed on already. An entry whose id and
// source want refuses (nil wants all) is not decoded: skip is called
// instead, so a check of a few logs passes over the rest of a large
// baseline at the cost of finding their lines.
func decodeCanonical(r io.Reader, add func(*Entry), want func(id, source []byte) bool, skip func()) (*Baseline, bool) {
	c := &canonReader{r: r, buf: make([]byte, 256<<10)}
	b, empty, ok := c.head()
	if !ok {
		return nil, false
	}
	if empty {
		return b, c.skip("}\n") && c.atEOF()
	}
	d := canonDecoder{counts: map[string]map[string]int{}}
	for first := true; ; first = false {
		if !first && c.skip("\n  ]\n}\n") {
			return b, c.atEOF()
		}
		sep := ",\n    {\n"
		if first {
			sep = "    {\n"
		}
		if !c.skip(sep) {
			return nil, false
		}
		body, ok := c.until("\n    }")
		if !ok {
			return nil, false
		}
		body = body[:len(body)-len("\n    }")]
		if want != nil {
			if id, src, ok := canonKey(body); ok && !want(id, src) {
				skip()
				continue
			}
		}
		var e Entry
		if !d.entry(body, &e) {
			return nil, false
		}
		add(&e)
	}
}

// head reads the lines before the entries: "{", the schema version, the
// config (one key a line), then the episodes' opening line; empty when
// that line is `"episodes": []`. The head is decoded by encoding/json.
func (c *canonReader) head() (b *Baseline, empty, ok bool) {
	var text []byte
	for i := 0; ; i++ {
		line, ok := c.until("\n")
		if !ok || len(text)+len(line) > canonHeadMax {
			return nil, false, false
		}
		s := string(line)
		switch {
		case s == "  \"episodes\": [\n" || s == "  \"episodes\": []\n":
			if i < 3 {
				return nil, false, false
			}
			text = append(text, "  \"episodes\": null\n}"...)
			var b Baseline
			if json.Unmarshal(text, &b) != nil {
				return nil, false, false
			}
			return &b, s == "  \"episodes\": []\n", true
		case i == 0 && s == "{\n",
			i == 1 && hasPrefix(line, "  \"schema_version\": "),
			i == 2 && (s == "  \"config\": {\n" || s == "  \"config\": {},\n"),
			i > 2 && (hasPrefix(line, "    \"") || s == "  },\n"):
			// A config key is one line: a top-level key (2 spaces) or a
			// value over several lines is not canonical.
		default:
			return nil, false, false
		}
		text = append(text, line...)
	}
}

func hasPrefix(b []byte, p string) bool { return len(b) >= len(p) && string(b[:len(p)]) == p }

// canonDecoder decodes entries; counts are the firing counts met, by
// their text, shared by the entries that hold the same text.
type canonDecoder struct {
	counts map[string]map[string]int
	line   []byte
	rest   []byte
}

// next takes the next line of the entry.
func (d *canonDecoder) next() bool {
	if d.rest == nil {
		return false
	}
	if i := bytes.IndexByte(d.rest, '\n'); i >= 0 {
		d.line, d.rest = d.rest[:i], d.rest[i+1:]
	} else {
		d.line, d.rest = d.rest, nil
	}
	return true
}

// field is the value on the next line, which must name field name (with
// a comma after the value unless last).
func (d *canonDecoder) field(name string, last bool) ([]byte, bool) {
	if !d.next() {
		return nil, false
	}
	l := d.line
	const ind = `      "`
	if len(l) < len(ind)+len(name)+3 || string(l[:len(ind)]) != ind || string(l[len(ind):len(ind)+len(name)]) != name {
		return nil, false
	}
	l = l[len(ind)+len(name):]
	if string(l[:3]) != `": ` {
		return nil, false
	}
	l = l[3:]
	if !last {
		if len(l) == 0 || l[len(l)-1] != ',' {
			return nil, false
		}
		l = l[:len(l)-1]
	}
	return l, true
}

// entry decodes the lines of one entry, between its braces.
func (d *canonDecoder) entry(body []byte, e *Entry) bool {
	d.rest = body
	ok := true
	str := func(name string) string {
		v, k := d.field(name, false)
		s, k2 := canonString(v)
		ok = ok && k && k2
		return s
	}
	integer := func(name string) int {
		v, k := d.field(name, false)
		n, k2 := canonInt(v)
		ok = ok && k && k2
		return n
	}
	float := func(name string) float64 {
		v, k := d.field(name, false)
		f, k2 := canonFloat(v)
		ok = ok && k && k2
		return f
	}
	boolean := func(name string) bool {
		v, k := d.field(name, false)
		ok = ok && k && (string(v) == "true" || string(v) == "false")
		return string(v) == "true"
	}
	e.EpisodeID = str("episode_id")
	e.Source = str("source")
	e.LogHash = str("log_hash")
	e.RecordedTurns = integer("recorded_turns")
	e.FinalScore = float("final_score")
	if v, k := d.field("termination_turn", false); !k {
		return false
	} else if string(v) != "null" {
		t, k := canonInt(v)
		if !k {
			return false
		}
		e.TerminationTurn = &t
	}
	v, k := d.field("checkpoints", false)
	if !ok || !k || !d.checkpoints(v, e) {
		return false
	}
	e.TurnsSaved = integer("turns_saved")
	e.LLMCallsSaved = integer("llm_calls_saved")
	e.LLMCallsMethod = str("llm_calls_method")
	e.ScoreForfeited = float("score_forfeited")
	e.FalseTermination = boolean("false_termination")
	e.Censored = boolean("censored")
	e.WouldReject = integer("would_reject")
	e.LowConfidence = integer("low_confidence")
	v, k = d.field("firing_counts", true)
	if !ok || !k {
		return false
	}
	switch string(v) {
	case "{}":
		if d.rest != nil {
			return false
		}
		e.FiringCounts, ok = d.firingCounts(nil)
		return ok
	case "{":
		e.FiringCounts, ok = d.firingCounts(d.rest)
		return ok
	}
	return false
}

// canonKey is the episode id and source of an entry's lines, read from
// its first two lines without decoding the rest; false if those lines are
// not as Encode writes them (the entry is then decoded whole, and
// judged).
func canonKey(body []byte) (id, source []byte, ok bool) {
	i := bytes.IndexByte(body, '\n')
	if i < 0 {
		return nil, nil, false
	}
	l := body[i+1:]
	if j := bytes.IndexByte(l, '\n'); j >= 0 {
		l = l[:j]
	}
	id, ok = canonValue(body[:i], `      "episode_id": "`)
	if !ok {
		return nil, nil, false
	}
	source, ok = canonValue(l, `      "source": "`)
	return id, source, ok
}

// canonValue is the string of a line `<pre>...",` (pre ends with the
// opening quote).
func canonValue(l []byte, pre string) ([]byte, bool) {
	if !hasPrefix(l, pre) || len(l) < len(pre)+2 || string(l[len(l)-2:]) != `",` {
		return nil, false
	}
	v := l[len(pre) : len(l)-2]
	for _, c := range v {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			s, ok := canonString(l[len(pre)-1 : len(l)-1])
			return []byte(s), ok
		}
	}
	return v, true
}

// checkpoints decodes "[1, 2, 3]".
func (d *canonDecoder) checkpoints(v []byte, e *Entry) bool {
	if len(v) < 2 || v[0] != '[' || v[len(v)-1] != ']' {
		return false
	}
	v = v[1 : len(v)-1]
	if len(v) == 0 {
		e.Checkpoints = []int{}
		return true
	}
	e.Checkpoints = make([]int, 0, bytes.Count(v, []byte(", "))+1)
	for len(v) > 0 {
		num := v
		if i := bytes.IndexByte(v, ','); i >= 0 {
			if i+1 >= len(v) || v[i+1] != ' ' {
				return false
			}
			num, v = v[:i], v[i+2:]
			if len(v) == 0 {
				return false
			}
		} else {
			v = nil
		}
		n, ok := canonInt(num)
		if !ok {
			return false
		}
		e.Checkpoints = append(e.Checkpoints, n)
	}
	return true
}

// firingCounts decodes the lines of a firing counts object (nil: "{}"),
// each `"key": n` with a comma but the last, then its closing brace; the
// map is shared with every entry of the same text.
func (d *canonDecoder) firingCounts(block []byte) (map[string]int, bool) {
	if m, ok := d.counts[string(block)]; ok {
		return m, true
	}
	m := map[string]int{}
	d.rest = block
	for block != nil {
		if !d.next() {
			return nil, false
		}
		l := d.line
		if d.rest == nil {
			if string(l) != "      }" {
				return nil, false
			}
			break
		}
		const ind = "        "
		if !hasPrefix(l, ind) {
			return nil, false
		}
		l = l[len(ind):]
		if bytes.IndexByte(d.rest, '\n') >= 0 { // not the last key: a comma
			if len(l) == 0 || l[len(l)-1] != ',' {
				return nil, false
			}
			l = l[:len(l)-1]
		}
		// The key is a JSON string: up to its closing quote, which an
		// escaped one may hide; canonString checks it.
		i := bytes.LastIndex(l, []byte(`": `))
		if i < 0 {
			return nil, false
		}
		k, ok := canonString(l[:i+1])
		n, ok2 := canonInt(l[i+3:])
		if !ok || !ok2 {
			return nil, false
		}
		m[k] = n
	}
	if len(d.counts) < internMax {
		d.counts[string(block)] = m
	}
	return m, true
}

// canonString is the string of a JSON string literal: printable ASCII
// other than a quote or backslash as it is, anything else through
// encoding/json.
func canonString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	in := v[1 : len(v)-1]
	for _, c := range in {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			var s string
			if json.Unmarshal(v, &s) != nil {
				return "", false
			}
			return s, true
		}
	}
	return string(in), true
}

// canonInt is a JSON integer (-?(0|[1-9][0-9]*)) as encoding/json decodes
// it into an int; false for anything else, or too large.
func canonInt(v []byte) (int, bool) {
	neg := len(v) > 0 && v[0] == '-'
	digits := v
	if neg {
		digits = v[1:]
	}
	if len(digits) == 0 || (digits[0] == '0' && len(digits) > 1) || len(digits) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0') // 19 digits fit in a uint64
	}
	switch {
	case !neg && n <= 1<<(strconv.IntSize-1)-1:
		return int(n), true
	case neg && n <= 1<<(strconv.IntSize-1):
		return int(-n), true
	}
	return 0, false
}

// canonFloat is a JSON number as encoding/json decodes it into a float64
// (strconv.ParseFloat); false for anything that is not a JSON number or
// out of range.
func canonFloat(v []byte) (float64, bool) {
	if !isJSONNumber(v) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return f, err == nil
}

// isJSONNumber checks JSON's number grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func isJSONNumber(v []byte) bool {
	i := 0
	if i < len(v) && v[i] == '-' {
		i++
	}
	digits := func() int {
		s := i
		for i < len(v) && v[i] >= '0' && v[i] <= '9' {
			i++
		}
		return i - s
	}
	switch {
	case i < len(v) && v[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(v) && v[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		i++
		if i < len(v) && (v[i] == '+' || v[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(v)
}
