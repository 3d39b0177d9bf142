package detect

import (
	"math/rand/v2"
	"testing"
)

// TestCarryStep holds carryStep to its promise: for every bound from 2 to
// 16, d·(lim−1) < 256 ≤ d·lim, so that the lim-th count of a gram, and no
// earlier one, carries; none for the others.
func TestCarryStep(t *testing.T) {
	for lim := range 256 {
		d := int(carryStep(uint8(lim)))
		switch {
		case lim < 2 || lim > 16:
			if d != 0 {
				t.Errorf("carryStep(%d) = %d, want none", lim, d)
			}
		case d*(lim-1) >= 256 || d*lim < 256:
			t.Errorf("carryStep(%d) = %d: %d·%d = %d, %d·%d = %d", lim, d, d, lim-1, d*(lim-1), d, lim, d*lim)
		}
	}
}

// TestCountGramBytesCarryAsRef holds the carry counts (the assembly
// loops and the Go one) to countGramBytesRef at the sparse stride
// (gramStride) and the dense one (1) from a
// cleared table: the same answer for every bound with a carry step, on
// random texts of few distinct bytes (grams repeat, counts reach their
// bound), every length around the eight grams a step, three calls
// sharing a count as a deferral's do; while no count failed, an entry
// counted n times is n·d.
func TestCountGramBytesCarryAsRef(t *testing.T) {
	if !littleEndian() {
		t.Skip("countGramBytes reads words in the machine's order")
	}
	defer func(a bool) { useCarryAsm = a }(useCarryAsm)
	strides := []int{gramStride, 1}
	rng := rand.New(rand.NewPCG(24, 15))
	for _, asm := range []bool{true, false} {
		useCarryAsm = asm && useCarryAsm
		for _, m := range strides {
			for range 3000 {
				data := make([]byte, rng.IntN(160))
				for i := range data {
					data[i] = byte(rng.IntN(3)) + 'a'
					if rng.IntN(20) == 0 {
						data[i] = byte(rng.IntN(128))
					}
				}
				lim := uint8(2 + rng.IntN(15))
				d := carryStep(lim)
				var got, want [countSlots]uint8
				for k := 0; k < 3; k++ {
					from := rng.IntN(len(data) + 1)
					g, w := countGramBytesCarry(&got, data[from:], m, d), countGramBytesRef(&want, data[from:], m, lim)
					if g != w {
						t.Fatalf("asm %v, stride %d: %d bytes from %d, lim %d: carry count %v, reference %v", useCarryAsm, m, len(data)-from, from, lim, g, w)
					}
					if !g {
						break
					}
					for i, n := range want {
						if got[i] != n*d {
							t.Fatalf("asm %v, stride %d: %d bytes from %d, lim %d: entry %d is %d, want %d·%d", useCarryAsm, m, len(data)-from, from, lim, i, got[i], n, d)
						}
					}
				}
			}
		}
	}
}

// TestCountGramsCarryAsRef is TestCountGramBytesCarryAsRef over code
// units: the carry counts of countGramsCarry (the assembly loops and the
// Go one) held to countGramsRef at both strides, on random texts of few
// distinct units (some past ASCII, some surrogates), every length around
// the eight grams a step, three calls sharing a count.
func TestCountGramsCarryAsRef(t *testing.T) {
	if !littleEndian() {
		t.Skip("countGrams reads words in the machine's order")
	}
	defer func(a bool) { useCarryAsm = a }(useCarryAsm)
	rng := rand.New(rand.NewPCG(24, 17))
	units := []uint16{'a', 'b', 'c', 0xe9, 0x4e2d, 0xd83d, 0xde00}
	for _, asm := range []bool{true, false} {
		useCarryAsm = asm && useCarryAsm
		for _, m := range []int{gramStride, 1} {
			for range 3000 {
				data := make([]uint16, rng.IntN(160))
				for i := range data {
					data[i] = units[rng.IntN(3)]
					if rng.IntN(20) == 0 {
						data[i] = units[rng.IntN(len(units))]
					}
				}
				lim := uint8(2 + rng.IntN(15))
				d := carryStep(lim)
				var got, want [countSlots]uint8
				for k := 0; k < 3; k++ {
					from := rng.IntN(len(data) + 1)
					g, w := countGramsCarry(&got, data[from:], m, d), countGramsRef(&want, data[from:], m, lim)
					if g != w {
						t.Fatalf("asm %v, stride %d: %d units from %d, lim %d: carry count %v, reference %v", useCarryAsm, m, len(data)-from, from, lim, g, w)
					}
					if !g {
						break
					}
					for i, n := range want {
						if got[i] != n*d {
							t.Fatalf("asm %v, stride %d: %d units from %d, lim %d: entry %d is %d, want %d·%d", useCarryAsm, m, len(data)-from, from, lim, i, got[i], n, d)
						}
					}
				}
			}
		}
	}
}

// TestClearCounts holds clearCounts to clear: every entry of a table
// filled at random is zero after it.
func TestClearCounts(t *testing.T) {
	var c [countSlots]uint8
	for i := range c {
		c[i] = uint8(i*7 + 1)
	}
	clearCounts(&c)
	for i, v := range c {
		if v != 0 {
			t.Fatalf("entry %d is %d after clearCounts", i, v)
		}
	}
}

// TestCarryCountThenFloor holds the table a carry count leaves to what
// the floor counts after it read: no entry above the top carryCount
// set, whether the count failed or not, and the next floor counts
// (newCount, on the table as left) answer as countGramBytesRef does from
// a cleared one.
func TestCarryCountThenFloor(t *testing.T) {
	if !littleEndian() {
		t.Skip("countGramBytes reads words in the machine's order")
	}
	rng := rand.New(rand.NewPCG(24, 16))
	text := func() []byte {
		// A period of a few bytes, each byte changed at some rate:
		// grams repeat, and some counts reach their bound.
		data, period, noise := make([]byte, rng.IntN(400)), 1+rng.IntN(12), 2+rng.IntN(30)
		for i := range data {
			data[i] = byte(rng.IntN(3)) + 'a'
			if i >= period && rng.IntN(noise) != 0 {
				data[i] = data[i-period]
			}
		}
		return data
	}
	failed := 0
	for range 1000 {
		s := chunkScan{counts: make([]uint8, countSlots), countTop: uint8(rng.IntN(256))}
		lim := uint8(2 + rng.IntN(15))
		if !s.carryCount(lim) {
			t.Fatalf("carryCount(%d): no carry step", lim)
		}
		counts := (*[countSlots]uint8)(s.counts)
		m := gramStride
		if rng.IntN(2) == 0 {
			m = 1 // the dense count's
		}
		if !countGramBytesCarry(counts, text(), m, s.carry) {
			failed++
		}
		for i, v := range counts {
			if v > s.countTop {
				t.Fatalf("lim %d, step %d: entry %d is %d, above the top %d", lim, s.carry, i, v, s.countTop)
			}
		}
		for range 3 {
			lim2 := uint8(1 + rng.IntN(12))
			s.newCount(lim2)
			if s.carry != 0 {
				t.Fatalf("newCount left the carry step %d", s.carry)
			}
			data, stride := text(), 1+rng.IntN(gramStride)
			var want [countSlots]uint8
			g := countGramBytes(counts, data, stride, s.countFloor, s.countTop)
			if w := countGramBytesRef(&want, data, stride, lim2); g != w {
				t.Fatalf("after a carry count of lim %d: floor count of %d bytes, stride %d, lim %d: %v, reference %v", lim, len(data), stride, lim2, g, w)
			}
			if !g {
				break
			}
		}
	}
	if failed < 100 {
		t.Errorf("%d carry counts failed: the texts do not test a table left by a failed count", failed)
	}
}
