package replay

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// checkLineCopy holds lineCopy.copy of the string at line[i] to
// copyString of it (the line cut where an open copy cuts it): the same
// end, and the same text, written in the block's free room where
// copyString wrote it in its dst (not where invalid UTF-8 outgrew it),
// handed over by keep; with the block's room free bytes (outputBlock for
// a new block).
func checkLineCopy(t *testing.T, line []byte, i, free int, open bool) {
	t.Helper()
	lc := &lineCopy{c: &outputCopies{block: lineCopyBlock[:0:free]}, open: open}
	ref := line
	if open {
		ref = line[:i+min(len(line)-i, free, outputBlock/4)]
	}
	// dst's room as copy's: the block's free bytes, or a new block's
	// when they are too few.
	room := free
	if room < len(ref)-i {
		room = outputBlock
	}
	refDst := lineCopyRef[: len(ref)-i : room]
	wantEnd, want := copyString(ref, i, refDst)
	end := lc.copy(bytes.Clone(line), i)
	if end != wantEnd {
		t.Fatalf("copy(%q, %d) (free %d, open %v) ends at %d, copyString at %d", line, i, free, open, end, wantEnd)
	}
	if end < 0 {
		if lc.at != nil {
			t.Fatalf("copy(%q, %d) (free %d, open %v) failed and noted a text", line, i, free, open)
		}
		return
	}
	if lc.at == nil || !bytes.Equal(lc.text, want) {
		t.Fatalf("copy(%q, %d) (free %d, open %v) = %q, copyString %q", line, i, free, open, lc.text, want)
	}
	free0 := unsafe.SliceData(lc.c.block[len(lc.c.block):cap(lc.c.block)])
	if len(want) > 0 && (unsafe.SliceData(lc.text) == free0) != (unsafe.SliceData(want) == unsafe.SliceData(refDst)) {
		t.Fatalf("copy(%q, %d) (free %d, open %v): the text is in the block's room: %v, copyString's in its dst: %v", line, i, free, open, unsafe.SliceData(lc.text) == free0, unsafe.SliceData(want) == unsafe.SliceData(refDst))
	}
	if s := lc.keep(); s != string(want) {
		t.Fatalf("copy(%q, %d) (free %d, open %v) kept %q, copyString %q", line, i, free, open, s, want)
	}
}

// lineCopyBlock and lineCopyRef are checkLineCopy's block and
// copyString's dst, reused from check to check.
var lineCopyBlock, lineCopyRef = make([]byte, outputBlock), make([]byte, outputBlock)

// lineCopy.copy takes a string that copyStringRun reads to its closing
// quote from the run alone and reads any other on from the run's stop
// (copyString): both as copyString reads the string whole, for strings
// of pieces (plain ASCII, escapes two-byte and \u, surrogates, bad ones,
// multi-byte UTF-8, invalid bytes that outgrow the text's room, control
// bytes, quotes) at every place, closed and followed by more of a line,
// or cut, with the block's room ample, short and cut before the string's
// end.
func TestLineCopyAsCopyString(t *testing.T) {
	pieces := []string{"a", `\n`, `\"`, `\\`, `\/`, `\u00e9`, `\ud83d\ude00`, `\ud800`, `\u12`, `\x`, "é", "\xff", "\xff\xfe\xfd", "\x01", "\x7f", `"`, "0123456789abcdef0123456789abcdef"}
	tails := []string{`", "kind": "action"}` + "\n" + `{"step": 2}`, `"}`, ``, `\`, `"`}
	const head = `{"output": "`
	for n := 0; n < 75; n += 1 + n/16 { // every length to 16, then steps of 2 to 5
		for _, p1 := range pieces {
			for _, p2 := range pieces {
				for _, tail := range tails {
					b := []byte(head)
					b = append(b, bytes.Repeat([]byte{'q'}, n)...)
					b = append(b, p1...)
					b = append(b, bytes.Repeat([]byte{'r'}, n%37)...)
					b = append(b, p2...)
					b = append(b, tail...)
					for _, free := range []int{outputBlock, n + 40, n / 2} {
						checkLineCopy(t, b, len(head)-1, free, false)
						checkLineCopy(t, b, len(head)-1, free, true)
					}
				}
			}
		}
	}
	// Strings of up to 40 random pieces: most runs many steps long.
	rng := rand.New(rand.NewPCG(10, 24))
	for range 5000 {
		b := []byte(head)
		for range rng.IntN(40) {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		b = append(b, tails[rng.IntN(len(tails))]...)
		free := outputBlock
		if rng.IntN(3) == 0 {
			free = rng.IntN(len(b) + 8)
		}
		checkLineCopy(t, b, len(head)-1, free, rng.IntN(2) == 0)
	}
}
