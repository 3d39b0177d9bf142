package replay

import (
	"bytes"
	"strings"
	"testing"
	"unsafe"
)

// TestMakeNoZero: a block has the room asked for (appends of that many
// bytes stay in it, where the arena's offsets and the outputs' strings
// point) and is a block of its own (writing one changes no other, nor a
// string made before).
func TestMakeNoZero(t *testing.T) {
	before := strings.Repeat("k", 40)
	var blocks [][]byte
	for _, n := range []int{0, 1, 7, 16, 33, 1000, arenaMin, arenaMax, arenaMax + 3, outputBlock} {
		b := makeNoZero(n)
		if len(b) != 0 || cap(b) < n {
			t.Fatalf("makeNoZero(%d): len %d cap %d", n, len(b), cap(b))
		}
		at := unsafe.SliceData(b)
		b = append(b, bytes.Repeat([]byte{byte('a' + len(blocks))}, n)...)
		if n > 0 && unsafe.SliceData(b) != at {
			t.Fatalf("makeNoZero(%d): appends moved the block", n)
		}
		blocks = append(blocks, b)
	}
	for i, b := range blocks {
		for _, c := range b {
			if c != byte('a'+i) {
				t.Fatalf("block %d (%d bytes) was written by another: %q", i, len(b), c)
			}
		}
	}
	if before != strings.Repeat("k", 40) {
		t.Fatal("a block overwrote a string")
	}
}

// BenchmarkOutputCopies copies outputs of 2 KB into blocks
// (outputCopies.clone), a new block every 32.
func BenchmarkOutputCopies(b *testing.B) {
	out := strings.Repeat("x", 2<<10)
	b.SetBytes(int64(len(out)))
	var c outputCopies
	for b.Loop() {
		_ = c.clone(out)
	}
}
