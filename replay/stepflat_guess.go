package replay

// stepGuess is the step number a flat line is expected to hold next (most
// logs number their steps one after another): its k digits and the comma
// after them as a masked word (w under m), and its number d, so that
// flatLine tells the number by one compare where it read it a digit at a
// time (some 40 instructions a step). The bytes compared are the
// number's own, so a guess that is wrong is only a miss: the number is
// then read as before and the guess made from it. No guess (none) is w 0
// under a full mask, which no number's word is (its first byte a digit);
// the zero guess takes any word, and a stepPaths starts with none.
type stepGuess struct {
	w, m uint64
	d    uint64
	// unit is the last digit's 1 in w, last its byte's mask and nine
	// its 9 ('9'), for the guess after (flatLine's in line, carry).
	unit, last, nine uint64
	k                uint8 // the digits, 1 to 7
}

// after guesses the number after d, read as its k digits, the first 8
// bytes from them w (flatLine's miss): its digits in place, the last
// plus one (carry's).
func (g *stepGuess) after(w uint64, k int, d uint64) {
	if k > 7 {
		g.none()
		return
	}
	k &= 7
	g.w, g.m = w&(1<<(8*k)-1)|','<<(8*k), 1<<(8*k+8)-1
	g.d, g.k = d, uint8(k)
	g.setLast(uint(8*(k-1)) & 63)
	g.carry()
}

// none makes no guess.
func (g *stepGuess) none() { *g = stepGuess{m: ^uint64(0)} }

// setLast sets unit, last and nine for the last digit at bit sh of w.
func (g *stepGuess) setLast(sh uint) {
	g.unit, g.last, g.nine = 1<<sh, 0xff<<sh, '9'<<sh
}

// carry is the guess's number plus one, its digits in place: a last
// digit of 9 made 0 and the one before it raised, and so on; a number
// of nines only (one digit more) is a 1 and zeros, none past 7 digits.
func (g *stepGuess) carry() {
	g.d++
	sh := uint(8*(g.k-1)) & 63
	for {
		if byte(g.w>>sh) != '9' {
			g.w += 1 << sh
			return
		}
		g.w -= 9 << sh // '0'
		if sh == 0 {
			break
		}
		sh -= 8
	}
	// 10^k: a 1 and the k zeros (the word's digits now), then the comma.
	k := uint(g.k)
	if k+1 > 7 {
		g.none()
		return
	}
	g.w = '1' | (g.w&(1<<(8*k)-1))<<8 | ','<<(8*k+8)
	g.m, g.k = 1<<(8*k+16)-1, uint8(k+1)
	g.setLast(8 * k)
}
