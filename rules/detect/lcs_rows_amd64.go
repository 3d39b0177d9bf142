//go:build amd64 && !purego

package detect

// useBuildAsm says buildRun and buildRunes take their runs; false only in
// TestLCSGoLoops, which holds the Go loops they stand in for (the loops
// every other machine runs) to the same tests.
var useBuildAsm = true

// buildRun sets the bits of run's bytes, from bit, in word w of their
// rows, up to the first byte with no row, and returns how many it set:
// buildBytes' loop over a word's bytes, in assembly (lcs_rows_amd64.s:
// some 7 instructions a byte, where the compiled loop took 12, three of
// them the row's bounds test). False when the masks are not all there
// (w past a row's words, or fewer words than rows*words): the loop reads
// a row's word with no bounds test, every rowBase entry not 0 being
// row*words+1 for a row below mt.rows (symbolRow, givenRows; startRows
// clears the others).
func buildRun(mt *lcsMatcher, w int, run []byte, bit uint64) (int, bool) {
	if !useBuildAsm || len(run) == 0 || mt.rows == 0 || w < 0 || w >= mt.words || mt.rows*mt.words > len(mt.peq) {
		return 0, false
	}
	return buildRunAsm(&mt.rowBase, &mt.peq[w], run, bit), true
}

//go:noescape
func buildRunAsm(rows *[256]int, peq *uint64, run []byte, bit uint64) int

// buildRunes is buildRun over code points, for buildTo: their rows read
// from ascii (the pattern's row+1) times words, as buildTo's loop reads
// them (lcs_rows_amd64.s: some 11 instructions a code point, where the
// compiled loop took some 17).
func buildRunes(mt *lcsMatcher, w int, run []rune, bit uint64) (int, bool) {
	if !useBuildAsm || len(run) == 0 || mt.rows == 0 || w < 0 || w >= mt.words || mt.rows*mt.words > len(mt.peq) {
		return 0, false
	}
	return buildRunesAsm(&mt.ascii, &mt.peq[w], mt.words, run, bit), true
}

//go:noescape
func buildRunesAsm(ascii *[256]int32, peq *uint64, words int, run []rune, bit uint64) int
