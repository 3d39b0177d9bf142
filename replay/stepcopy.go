package replay

// A steps record's output copied into the outputs' block (outputCopies)
// as it is read: unescaped from a value already validated, or written
// by the validating pass itself (lineCopy).

import "unsafe"

// unescaped is clone(Str of string x): its body unescaped straight into
// the block, where stepOf unescaped it into the reader's buffer and add
// copied it again, in one pass where it is ASCII (appendText). An
// unescaped text is no longer than its body but for invalid bytes, three
// each as U+FFFD: one that outgrows the block's room is an array of its
// own.
func (c *outputCopies) unescaped(x rawValue) string {
	body := x[1 : len(x)-1]
	if len(body) > outputBlock/4 {
		return bytesString(appendText(nil, body))
	}
	c.room(len(body))
	return c.take(appendText(c.free(), body))
}

// lineCopy writes the text of a line's string member named name into
// the outputs' block as scanLineCopy validates it (copyString), where
// the line was validated and the text then written by a second pass over
// it (outputCopies.unescaped). The text is held in the block's free room
// until keep takes it: a line that proves invalid after, or whose member
// named so is not the value read (a key written with escapes, a later
// member of the name), leaves it to be written over. at is the value's
// first byte in the line, the text's, nil before any.
type lineCopy struct {
	name string
	c    *outputCopies
	at   *byte
	text []byte
	// open says the line's end is not known (flatLineStep: line holds
	// the lines after it too): a string is then read only as far as the
	// block's free room goes, at most outputBlock/4 bytes, and one cut
	// there is invalid, its line read again as nextLine cuts it. A new
	// block made for the rest of the buffer would waste the room left.
	open bool
}

// copy validates the string at line[i] and writes its text (copyString),
// returning the index after it or -1; a string that may be longer than
// outputBlock/4 is only validated.
func (lc *lineCopy) copy(line []byte, i int) int {
	n := len(line) - i
	c := lc.c
	if lc.open {
		// Within the block's free room: no room to make.
		n = min(n, cap(c.block)-len(c.block), outputBlock/4)
		line = line[:i+n]
	} else {
		if n > outputBlock/4 {
			end, _ := validString(line, i)
			return end
		}
		c.room(n)
	}
	// The block's free room's first n bytes, the rest of it their
	// capacity (copyString writes on into it where invalid UTF-8 grows
	// a text), with no bounds test: room made, or n cut to it. n is 0
	// only for a full block (open), whose free room is empty: a pointer
	// past its end would hold the next object for the GC.
	if n == 0 {
		return -1 // a string cut at its quote, as copyString finds it
	}
	var dst []byte
	*(*sliceHeader)(unsafe.Pointer(&dst)) = sliceHeader{unsafe.Add(unsafe.Pointer(unsafe.SliceData(c.block)), len(c.block)), n, cap(c.block) - len(c.block)}
	// Most outputs are one run to their closing quote: copyStringRun
	// writes their two-byte escapes on the way, and a quote where it
	// stops closes the string (an escaped one is passed as a pair).
	// copyString took the run through its loop and switch, some 60
	// instructions an output. Any other stop (a byte over 0x7f, a \u
	// escape, a control byte, 32 bytes or fewer left) is read on by
	// copyString from there, its text written after the run's; text
	// that outgrew dst there (invalid UTF-8 made U+FFFD) is written
	// again from the start.
	if copyStrings && n >= 33 {
		w, r := copyStringRun(dst, line[i+1:])
		j := i + 1 + r
		if j < len(line) && line[j] == '"' {
			lc.at, lc.text = &line[i], dst[:w]
			return j + 1
		}
		rest := dst[w:]
		end, text := copyString(line, j-1, rest) // from line[j]: copyString reads no byte before its i+1
		if end < 0 {
			return -1
		}
		if len(text) == 0 || unsafe.SliceData(text) == unsafe.SliceData(rest) {
			lc.at, lc.text = &line[i], dst[:w+len(text)]
			return end
		}
	}
	end, text := copyString(line, i, dst)
	if end >= 0 {
		lc.at, lc.text = &line[i], text
	}
	return end
}

// keep returns the text written last, which the block now holds (never
// written again); one that outgrew the room is an array of its own.
func (lc *lineCopy) keep() string {
	t := lc.text
	lc.text = nil
	return lc.c.take(t)
}
