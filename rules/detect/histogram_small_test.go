package detect

import (
	"math/rand/v2"
	"testing"
)

// TestSmallCountsAsInt32 holds the byte counts to the int32 ones on
// random ASCII texts of every length below smallCountsBelow (a byte run
// to 255 counts of one code point among them): countSmall counts as
// countSmallGo and as countASCII; sharedSmall of two texts is
// asciiShared of their int32 counts and sharedSmallGo; smallPresent is
// asciiPresent and smallPresentGo. Without AVX2 (useSmallCounts false,
// where fuzzy_repeat never calls the assembly) the Go references stand
// in for sharedSmall and smallPresent, whose VPMINUB and VPSADBW would
// be illegal instructions there.
func TestSmallCountsAsInt32(t *testing.T) {
	sharedSmall, smallPresent := sharedSmall, smallPresent
	if !useSmallCounts {
		sharedSmall, smallPresent = sharedSmallGo, smallPresentGo
	}
	rng := rand.New(rand.NewPCG(24, 17))
	text := func(n int) string {
		b := make([]byte, n)
		alpha := 1 + rng.IntN(128)
		for i := range b {
			b[i] = byte(rng.IntN(alpha))
			if alpha > 3 && rng.IntN(4) == 0 {
				b[i] = 'e'
			}
		}
		return string(b)
	}
	for n := range smallCountsBelow {
		for range 8 {
			a, b := text(n), text(rng.IntN(smallCountsBelow))
			if rng.IntN(8) == 0 {
				a = string(make([]byte, n)) // one code point n times (NUL)
			}
			var sa, sb, ga [128]uint8
			for i := range sa {
				sa[i], sb[i] = uint8(rng.Uint32()), uint8(rng.Uint32()) // counts left by another text
			}
			countSmall(&sa, a)
			countSmall(&sb, b)
			countSmallGo(&ga, a)
			if sa != ga {
				t.Fatalf("countSmall(%q) = %v, want %v", a, sa, ga)
			}
			var ha, hb [256]int32
			countASCII(&ha, a)
			countASCII(&hb, b)
			for c := range 128 {
				if int32(sa[c]) != ha[c] {
					t.Fatalf("%d bytes: count of %d is %d, countASCII's %d", n, c, sa[c], ha[c])
				}
			}
			if got, want := sharedSmall(&sa, &sb), asciiShared(&ha, &hb); got != want || got != sharedSmallGo(&sa, &sb) {
				t.Fatalf("sharedSmall of %d and %d bytes = %d, asciiShared %d, sharedSmallGo %d", len(a), len(b), got, want, sharedSmallGo(&sa, &sb))
			}
			if got, want := smallPresent(&sa), asciiPresent(&ha); got != want || got != smallPresentGo(&sa) {
				t.Fatalf("smallPresent of %d bytes = %x, asciiPresent %x, smallPresentGo %x", len(a), got, want, smallPresentGo(&sa))
			}
		}
	}
	// Counts up to 255 in every lane: the sums of eight bytes each.
	var full, half [128]uint8
	for c := range full {
		full[c], half[c] = 255, uint8(c)
	}
	if got, want := sharedSmall(&full, &full), sharedSmallGo(&full, &full); got != want {
		t.Fatalf("sharedSmall of full counts = %d, want %d", got, want)
	}
	if got, want := sharedSmall(&full, &half), sharedSmallGo(&full, &half); got != want {
		t.Fatalf("sharedSmall of full and rising counts = %d, want %d", got, want)
	}
}
