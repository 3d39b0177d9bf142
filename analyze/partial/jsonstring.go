package partial

import (
	"encoding/json"
	"io"
	"unicode/utf8"
)

// stringWriter writes what is written to it as the body of a JSON string
// (no quotes), escaped as json.Marshal escapes a string: the text of an
// episode goes into its part as it is rendered, never held whole (the
// turn-by-turn trace of a million turns is hundreds of MB). A rune split
// between two writes waits for the next; Close writes what is left.
// Before the first byte it writes head (an object member's key and the
// opening quote): an empty text writes nothing.
type stringWriter struct {
	w       io.Writer
	head    string
	started bool
	tail    []byte // an incomplete rune, from the last write
}

func (s *stringWriter) Write(p []byte) (int, error) {
	n := len(p)
	if n == 0 {
		return 0, nil
	}
	if len(s.tail) > 0 {
		p = append(s.tail, p...)
		s.tail = nil
	}
	// Hold back an incomplete rune at the end (at most 3 bytes).
	cut := len(p)
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				cut = i
			}
			break
		}
	}
	if cut < len(p) {
		s.tail = append([]byte(nil), p[cut:]...)
	}
	return n, s.write(p[:cut])
}

// write writes p escaped.
func (s *stringWriter) write(p []byte) error {
	if len(p) == 0 {
		return nil
	}
	if !s.started {
		s.started = true
		if _, err := io.WriteString(s.w, s.head); err != nil {
			return err
		}
	}
	data, err := json.Marshal(string(p)) // a string always encodes
	if err != nil {
		return err
	}
	_, err = s.w.Write(data[1 : len(data)-1])
	return err
}

// Close writes the incomplete rune left, if any (each of its bytes
// U+FFFD, as json.Marshal writes them), and the closing quote if the
// string began.
func (s *stringWriter) Close() error {
	if err := s.write(s.tail); err != nil {
		return err
	}
	s.tail = nil
	if !s.started {
		return nil
	}
	_, err := s.w.Write([]byte{'"'})
	return err
}
