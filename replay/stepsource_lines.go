package replay

// A JSONL file's lines, cut from the reader's buffer (recordSource).

import (
	"bufio"
	"bytes"
)

// recordSource yields a file's JSON records with the line each starts on.
// A JSONL file is one record a line; a file whose first byte is '[' is one
// JSON array (an OpenHands trajectory); a file holding a single object
// with a "messages" array is a Gemini CLI session (expanded by the preset).
type recordSource struct {
	br   *bufio.Reader
	max  int
	line int
	// reuse says the caller is done with a line before it asks for the
	// next: a line is then read in place in br's buffer when it fits,
	// else into a buffer kept from line to line, not copied afresh.
	reuse bool
	spare []byte
	// pend: whole lines, each ending in '\n', that br had buffered and
	// has handed over (Discard), pend[at:] not yet read: cut here one by
	// one (takeLines), where each line was a call of ReadSlice's. They
	// stay in br's buffer until the next read fills it, which only
	// ReadSlice does, once pend is spent.
	pend []byte
	at   int
}

// takeLines hands the whole lines br holds buffered over to pend: none
// when it holds no newline (a line cut by the buffer's end, or nothing
// buffered), which ReadSlice then reads.
func (s *recordSource) takeLines() {
	n := s.br.Buffered()
	if n == 0 || !takeBuffered {
		return
	}
	chunk, _ := s.br.Peek(n)
	if j := bytes.LastIndexByte(chunk, '\n'); j >= 0 {
		s.pend, s.at = chunk[:j+1], 0
		_, _ = s.br.Discard(j + 1)
	}
}

// pending is what is left of pend, whole lines, when lines are read in
// place: a reader that finds a line's end itself (flatLineStep) reads
// the next line from there, and tells its length to took.
func (s *recordSource) pending() []byte {
	if !s.reuse {
		return nil
	}
	if s.at == len(s.pend) {
		s.takeLines()
	}
	return s.pend[s.at:]
}

// took passes the n bytes of pending's first line (its newline
// counted) and returns its number.
func (s *recordSource) took(n int) int {
	s.at += n
	s.line++
	return s.line
}

// takeBuffered lets takeLines hand lines over to pend: a variable, which
// FuzzNextLinePend turns off to read every line by ReadSlice.
var takeBuffered = true

// nextLine returns the next non-blank line (nil at the end) and its number;
// tooLong is set for a line over max bytes, its leading white space not
// counted (skipped, not held).
//
// A record's line in pend (its first byte and the one before its "\n" a
// byte of ASCII above ' ', at most max+2 bytes, read in place) is cut
// here, inlined in the caller's loop; any other goes to nextLineAny.
func (s *recordSource) nextLine() (line []byte, lineNo int, tooLong bool, err error) {
	if rest := s.pend[s.at:]; s.reuse && len(rest) > 0 {
		if i := bytes.IndexByte(rest, '\n'); i > 0 && i < s.max+2 && rest[0]-'!' < 0x7f-'!' && rest[i-1]-'!' < 0x7f-'!' {
			s.at += i + 1
			s.line++
			return rest[:i], s.line, false, nil
		}
	}
	return s.nextLineAny()
}

// nextLineAny is nextLine of any line.
func (s *recordSource) nextLineAny() (line []byte, lineNo int, tooLong bool, err error) {
	for {
		var buf []byte
		if s.at == len(s.pend) {
			s.takeLines()
		}
		if s.at < len(s.pend) {
			// A whole line of pend, read as ReadSlice's one chunk below
			// (its error nil: a line ending in '\n').
			rest := s.pend[s.at:]
			chunk := rest[:bytes.IndexByte(rest, '\n')+1]
			s.at += len(chunk)
			if c := chunk[0]; c == ' ' || c == '\t' || c == '\r' {
				chunk = bytes.TrimLeft(chunk, " \t\r")
			}
			s.line++
			if len(chunk) > s.max+2 {
				return nil, s.line, true, nil
			}
			buf = chunk
			if !s.reuse {
				buf = append([]byte(nil), chunk...)
			}
		} else {
			var n int
			if buf, n, tooLong, err = s.readLine(); n == 0 && err != nil {
				return nil, s.line, false, err
			}
			s.line++
			if tooLong {
				return nil, s.line, true, err
			}
		}
		// bytes.TrimSpace(buf), its leading white space gone already
		// but for a newline or white space that is not ' ', '\t' or
		// '\r': a line that begins with a byte of ASCII above ' ' and
		// ends with one before its "\n" or "\r\n" (a record) is cut
		// here, where TrimSpace was a call that tested each end's bytes
		// in a loop.
		k := len(buf)
		if k > 0 && buf[k-1] == '\n' {
			if k--; k > 0 && buf[k-1] == '\r' {
				k--
			}
		}
		if k > 0 && buf[0]-'!' < 0x7f-'!' && buf[k-1]-'!' < 0x7f-'!' {
			line = buf[:k]
		} else {
			line = bytes.TrimSpace(buf)
		}
		if len(line) == 0 {
			if err != nil {
				return nil, s.line, false, err
			}
			continue
		}
		return line, s.line, false, err
	}
}

// readLine reads the next line from br, in pieces as long as br's
// buffer while it is longer: the line, its leading ' ', '\t' and '\r'
// left out (then n is its bytes but for those), nil when tooLong (over
// max+2 bytes), and the error ending it (io.EOF for a last line with no
// newline).
func (s *recordSource) readLine() (buf []byte, n int, tooLong bool, err error) {
	for {
		chunk, e := s.br.ReadSlice('\n')
		if len(buf) == 0 && !tooLong {
			// Leading white space is neither held nor counted: a line
			// of padding costs nothing, as between a document's tokens.
			if len(chunk) > 0 && (chunk[0] == ' ' || chunk[0] == '\t' || chunk[0] == '\r') {
				chunk = bytes.TrimLeft(chunk, " \t\r") // not called a line: it builds its byte set each time
			}
		}
		n += len(chunk)
		if n <= s.max+2 {
			switch {
			case s.reuse && len(buf) == 0 && e != bufio.ErrBufferFull:
				buf = chunk // the whole line, in place
			case s.reuse:
				buf = append(s.spare[:len(buf)], chunk...)
				s.spare = buf
			default:
				buf = append(buf, chunk...)
			}
		} else {
			tooLong = true
			buf = nil
		}
		if e == bufio.ErrBufferFull {
			continue
		}
		return buf, n, tooLong, e
	}
}
