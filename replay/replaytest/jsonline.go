package replaytest

import (
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// lineBuf builds one log line the way Python's logging JSON formatter does:
// json.dumps with its default separators (", " and ": "), ensure_ascii
// (non-ASCII as \uXXXX escapes, lower-case hex, surrogate pairs above
// U+FFFF), floats in repr form, NaN/Infinity as bare tokens.
type lineBuf struct {
	b     []byte
	first []bool // per open object: no member written yet
}

const tsLayout = "2006-01-02T15:04:05.000000"

func (l *lineBuf) begin(ts time.Time, level, msg string) {
	l.head(ts, level)
	l.str("message", msg)
}

// head starts a line with its timestamp and level; the caller writes the
// message next.
func (l *lineBuf) head(ts time.Time, level string) {
	l.b = l.b[:0]
	l.first = append(l.first[:0], true)
	l.b = append(l.b, '{')
	l.key("timestamp")
	l.b = append(l.b, '"')
	l.b = ts.AppendFormat(l.b, tsLayout)
	l.b = append(l.b, '"')
	l.str("level", level)
}

func (l *lineBuf) key(k string) {
	top := len(l.first) - 1
	if !l.first[top] {
		l.b = append(l.b, ',', ' ')
	}
	l.first[top] = false
	l.b = appendPyString(l.b, k)
	l.b = append(l.b, ':', ' ')
}

func (l *lineBuf) str(k, v string) {
	l.key(k)
	l.b = appendPyString(l.b, v)
}

// rawStr writes a string value whose contents are already JSON-escaped.
func (l *lineBuf) rawStr(k string, parts ...[]byte) {
	l.key(k)
	l.b = append(l.b, '"')
	for _, p := range parts {
		l.b = append(l.b, p...)
	}
	l.b = append(l.b, '"')
}

func (l *lineBuf) int(k string, v int) {
	l.key(k)
	l.b = strconv.AppendInt(l.b, int64(v), 10)
}

func (l *lineBuf) float(k string, v float64) {
	l.key(k)
	l.b = appendPyFloat(l.b, v)
}

func (l *lineBuf) bool(k string, v bool) {
	l.key(k)
	if v {
		l.b = append(l.b, "true"...)
	} else {
		l.b = append(l.b, "false"...)
	}
}

func (l *lineBuf) null(k string) {
	l.key(k)
	l.b = append(l.b, "null"...)
}

func (l *lineBuf) strList(k string, vs []string) {
	l.key(k)
	l.b = append(l.b, '[')
	for i, v := range vs {
		if i > 0 {
			l.b = append(l.b, ',', ' ')
		}
		l.b = appendPyString(l.b, v)
	}
	l.b = append(l.b, ']')
}

func (l *lineBuf) openObj(k string) {
	l.key(k)
	l.b = append(l.b, '{')
	l.first = append(l.first, true)
}

func (l *lineBuf) closeObj() {
	l.first = l.first[:len(l.first)-1]
	l.b = append(l.b, '}')
}

// end closes every open object and terminates the line.
func (l *lineBuf) end() {
	for len(l.first) > 0 {
		l.closeObj()
	}
	l.b = append(l.b, '\n')
}

const hexDigits = "0123456789abcdef"

// appendPyString appends s as json.dumps(s, ensure_ascii=True) would.
func appendPyString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x80 && c != '"' && c != '\\' {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		if c < 0x80 {
			switch c {
			case '"':
				b = append(b, '\\', '"')
			case '\\':
				b = append(b, '\\', '\\')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = appendU(b, rune(c))
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= 0x10000 {
			r -= 0x10000
			b = appendU(b, 0xD800+(r>>10))
			b = appendU(b, 0xDC00+(r&0x3FF))
		} else {
			b = appendU(b, r)
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func appendU(b []byte, r rune) []byte {
	return append(b, '\\', 'u', hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
}

// appendPyFloat appends v as Python's float repr (json.dumps) writes it.
func appendPyFloat(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, "NaN"...)
	case math.IsInf(v, 1):
		return append(b, "Infinity"...)
	case math.IsInf(v, -1):
		return append(b, "-Infinity"...)
	}
	a := math.Abs(v)
	if a != 0 && (a < 1e-4 || a >= 1e16) {
		return strconv.AppendFloat(b, v, 'e', -1, 64)
	}
	n := len(b)
	b = strconv.AppendFloat(b, v, 'f', -1, 64)
	for _, c := range b[n:] {
		if c == '.' {
			return b
		}
	}
	return append(b, '.', '0')
}

// escBody returns s JSON-escaped, without the surrounding quotes.
func escBody(s string) []byte {
	b := appendPyString(nil, s)
	return b[1 : len(b)-1]
}
