package detect

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// countGramsRef is countGrams as written before its pointer loop: the
// grams by reslicing, each word built from its code units. A stride past
// gramUnits (which reslicing cannot take) counts the grams one by one.
func countGramsRef(counts *[countSlots]uint8, b []uint16, m int, lim uint8) bool {
	if m > gramUnits {
		for i := 0; i+gramUnits <= len(b); i += m {
			if !countGramsRef(counts, b[i:i+gramUnits], 1, lim) {
				return false
			}
		}
		return true
	}
	for ; len(b) >= gramUnits; b = b[m:] {
		g := b[:gramUnits]
		x0 := uint64(g[0]) | uint64(g[1])<<16 | uint64(g[2])<<32 | uint64(g[3])<<48
		x1 := uint64(g[4]) | uint64(g[5])<<16 | uint64(g[6])<<32 | uint64(g[7])<<48
		x2 := uint64(g[8]) | uint64(g[9])<<16 | uint64(g[10])<<32 | uint64(g[11])<<48
		x3 := uint64(g[12]) | uint64(g[13])<<16 | uint64(g[14])<<32 | uint64(g[15])<<48
		h := (x0 ^ x1*0x9E3779B97F4A7C15 ^ x2*0xC2B2AE3D27D4EB4F ^ x3*0x165667B19E3779F9) * 0xD6E8FEB86659FD93
		k := h >> (64 - countBits)
		if counts[k]++; counts[k] >= lim {
			return false
		}
	}
	return true
}

// littleEndian says the machine stores a word's low byte first, the
// order countGramsRef builds its words in.
func littleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// FuzzCountGrams holds countGrams to countGramsRef: the same counts, the
// same answer, on every stride, bound and length, from any start in a
// buffer (the counts are reused across calls, as a deferral's are).
func FuzzCountGrams(f *testing.F) {
	if !littleEndian() {
		f.Skip("countGrams reads words in the machine's order; the reference builds them little-endian")
	}
	f.Add([]byte("abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789"), uint8(1), uint8(3), uint8(0))
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), uint8(3), uint8(4), uint8(1))
	f.Add([]byte("short"), uint8(2), uint8(2), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, m, lim, off uint8) {
		units := make([]uint16, len(data)/2)
		for i := range units {
			units[i] = binary.LittleEndian.Uint16(data[2*i:])
		}
		from := min(int(off), len(units))
		b := units[from:]
		stride := int(m%20) + 1 // past gramUnits too: the indexed path
		var got, want [countSlots]uint8
		g, w := countGrams(&got, b, stride, 0, lim), countGramsRef(&want, b, stride, lim)
		if g != w || got != want {
			t.Fatalf("%d units from %d, stride %d, lim %d: countGrams %v, reference %v (counts equal: %v)",
				len(b), from, stride, lim, g, w, got == want)
		}
	})
}

// TestCountGramsRandom runs FuzzCountGrams' comparison on random texts of
// few distinct code units (grams repeat, counts reach their bound): the
// strides 1 and gramStride (countGrams1 and countGrams3, four grams an
// iteration) and the others (two).
func TestCountGramsRandom(t *testing.T) {
	if !littleEndian() {
		t.Skip("countGrams reads words in the machine's order")
	}
	rng := rand.New(rand.NewPCG(24, 5))
	for range 2000 {
		units := make([]uint16, rng.IntN(300))
		for i := range units {
			units[i] = uint16(rng.IntN(3)) + 'a'
			if rng.IntN(50) == 0 {
				units[i] = uint16(rng.Uint32())
			}
		}
		stride, lim := rng.IntN(4)+1+rng.IntN(2)*rng.IntN(20), uint8(rng.IntN(40)+1)
		var got, want [countSlots]uint8
		for k := 0; k < 3; k++ { // counts carried over, as a deferral's
			from := rng.IntN(len(units) + 1)
			g, w := countGrams(&got, units[from:], stride, 0, lim), countGramsRef(&want, units[from:], stride, lim)
			if g != w || got != want {
				t.Fatalf("%d units from %d, stride %d, lim %d: countGrams %v, reference %v", len(units)-from, from, stride, lim, g, w)
			}
		}
	}
}

// BenchmarkCountGrams counts the grams of an agent's message as the
// content scan's deferral does: every gram (stride 1) and every third
// (sparseStride's), with a bound no gram reaches.
func BenchmarkCountGrams(b *testing.B) {
	units := AppendUTF16(nil, benchOutput)
	for _, m := range []int{1, gramStride} {
		b.Run(fmt.Sprint("stride", m), func(b *testing.B) {
			var counts [countSlots]uint8
			b.SetBytes(int64(2 * len(units)))
			for b.Loop() {
				clear(counts[:])
				countGrams(&counts, units, m, 0, 255)
			}
		})
	}
}

// FuzzCountGramBytes holds countGramBytes to its bound: when a gram of
// the bytes at the stride occurs lim times, it must fail (a count it
// missed would let addPending put off a scan that finds a loop); a
// collision of hashes may make it fail sooner.
func FuzzCountGramBytes(f *testing.F) {
	f.Add([]byte("abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789"), uint8(1), uint8(3))
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), uint8(3), uint8(4))
	f.Add([]byte("xyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxy"), uint8(2), uint8(2))
	f.Add([]byte("aaaaaaaaaaaaaaaaa"), uint8(0), uint8(2)) // a gram exactly lim times
	f.Fuzz(func(t *testing.T, data []byte, m, lim uint8) {
		for i := range data {
			data[i] &= 0x7F
		}
		stride := 1 + int(m)%gramStride
		bound := max(lim, 1)
		var counts [countSlots]uint8
		got := countGramBytes(&counts, data, stride, 0, bound)
		exact := map[string]int{}
		want := true
		for i := 0; i+gramUnits <= len(data); i += stride {
			if exact[string(data[i:i+gramUnits])]++; exact[string(data[i:i+gramUnits])] >= int(bound) {
				want = false
				break
			}
		}
		if got && !want {
			t.Fatalf("countGramBytes(%q, %d, %d) = true: a gram occurs %d times", data, stride, bound, bound)
		}
	})
}

// countGramBytesRef is countGramBytes as written before it counted two
// grams an iteration: one gram at a time, by index.
func countGramBytesRef(counts *[countSlots]uint8, b []byte, m int, lim uint8) bool {
	if len(b) < gramUnits || m < 1 || m > gramUnits {
		return len(b) < gramUnits
	}
	for i := 0; i+gramUnits <= len(b); i += m {
		x0, x1 := binary.LittleEndian.Uint64(b[i:]), binary.LittleEndian.Uint64(b[i+8:])
		k := ((x0 ^ x1*0x9E3779B97F4A7C15) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		if counts[k]++; counts[k] >= lim {
			return false
		}
	}
	return true
}

// TestCountGramBytesAsRef holds countGramBytes' two grams an iteration,
// and countGramBytes3's eight at the sparse stride, to the plain loop: the
// same counts and answer on random texts of few distinct bytes (grams
// repeat, counts reach their bound), every stride the counts use and
// past them, every length around the iterations' grams, the counts
// carried over between calls as a deferral's are.
func TestCountGramBytesAsRef(t *testing.T) {
	if !littleEndian() {
		t.Skip("countGramBytes reads words in the machine's order")
	}
	rng := rand.New(rand.NewPCG(24, 7))
	for range 3000 {
		data := make([]byte, rng.IntN(120))
		for i := range data {
			data[i] = byte(rng.IntN(3)) + 'a'
			if rng.IntN(20) == 0 {
				data[i] = byte(rng.IntN(128))
			}
		}
		stride, lim := rng.IntN(gramUnits+2), uint8(rng.IntN(12)+1)
		var got, want [countSlots]uint8
		for k := 0; k < 3; k++ {
			from := rng.IntN(len(data) + 1)
			g, w := countGramBytes(&got, data[from:], stride, 0, lim), countGramBytesRef(&want, data[from:], stride, lim)
			if g != w || got != want {
				t.Fatalf("%d bytes from %d, stride %d, lim %d: countGramBytes %v, reference %v (counts equal: %v)",
					len(data)-from, from, stride, lim, g, w, got == want)
			}
		}
	}
}

// TestCountGramsFloor holds countGrams' and countGramBytes' counts above
// a floor (newCount's, in place of a cleared table) to the references'
// from a cleared one: entries at or below the floor, left by earlier
// counts, read as zero; an entry counted n times is floor+n, one not
// counted keeps its value; the answers are the same. Three calls share
// each count, as a deferral's do.
func TestCountGramsFloor(t *testing.T) {
	if !littleEndian() {
		t.Skip("countGrams reads words in the machine's order")
	}
	rng := rand.New(rand.NewPCG(24, 13))
	for range 3000 {
		lim := uint8(rng.IntN(12) + 1)
		floor := uint8(rng.IntN(256 - int(lim)))
		if rng.IntN(4) == 0 {
			floor = 255 - lim // the highest a count can start at
		}
		var stale [countSlots]uint8
		for k := range stale {
			stale[k] = uint8(rng.IntN(int(floor) + 1))
		}
		data := make([]byte, rng.IntN(120))
		for i := range data {
			data[i] = byte(rng.IntN(3)) + 'a'
			if rng.IntN(20) == 0 {
				data[i] = byte(rng.IntN(128))
			}
		}
		units := make([]uint16, len(data))
		for i, c := range data {
			units[i] = uint16(c)
		}
		stride := rng.IntN(gramUnits + 2)
		gotB, gotU := stale, stale
		var wantB, wantU [countSlots]uint8
		for k := 0; k < 3; k++ {
			from := rng.IntN(len(data) + 1)
			gb, wb := countGramBytes(&gotB, data[from:], stride, floor, floor+lim), countGramBytesRef(&wantB, data[from:], stride, lim)
			gu, wu := countGrams(&gotU, units[from:], max(stride, 1), floor, floor+lim), countGramsRef(&wantU, units[from:], max(stride, 1), lim)
			for _, c := range []struct {
				name       string
				g, w       bool
				got, count *[countSlots]uint8
			}{{"countGramBytes", gb, wb, &gotB, &wantB}, {"countGrams", gu, wu, &gotU, &wantU}} {
				if c.g != c.w {
					t.Fatalf("%s: %d bytes from %d, stride %d, floor %d, lim %d: %v, reference %v", c.name, len(data)-from, from, stride, floor, lim, c.g, c.w)
				}
				for i, n := range c.count {
					want := stale[i]
					if n > 0 {
						want = floor + n
					}
					if c.got[i] != want {
						t.Fatalf("%s: %d bytes from %d, stride %d, floor %d, lim %d: entry %d is %d, want %d (stale %d, counted %d)",
							c.name, len(data)-from, from, stride, floor, lim, i, c.got[i], want, stale[i], n)
					}
				}
			}
			if !gb || !gu {
				break
			}
		}
	}
}
