package detect

import "math/bits"

// columnsBytes5 to columnsBytes12 are columnsBytes2 written out for bands
// of five to twelve words (columns picks one by the band's width): the
// band's words stay in registers across the columns (from eight words on,
// some in the function's own stack slots), where columnsBytes loads and
// stores each word at every column and runs the words past the last four
// through a loop of their own (some 19 instructions a word). Bands of five words and more
// were half of the steps log's LCS columns: columnsBytes took 4.4% of
// its instructions (cachegrind). All are the same function but for the
// width, written out as columnsBytes2 is (Go unrolls no loop): the
// update of each is held to lcsColumn's by TestColumnsBytesAsLcsColumn.

// columnsBytes5 is columnsBytes2 over 5 words.
func columnsBytes5(mt *lcsMatcher, vb *[5]uint64, first int, bs []byte) int {
	peq, words := mt.peq[first:], mt.words
	rows := &mt.ascii
	x0, x1, x2, x3, x4 := vb[0], vb[1], vb[2], vb[3], vb[4]
	for j, c := range bs {
		if c >= 128 {
			vb[0], vb[1], vb[2], vb[3], vb[4] = x0, x1, x2, x3, x4
			return j
		}
		k := int(rows[c]) - 1
		if k < 0 {
			continue
		}
		base := k * words
		p := peq[base : base+5 : base+5]
		u0, u1, u2, u3, u4 := x0&p[0], x1&p[1], x2&p[2], x3&p[3], x4&p[4]
		s0, cy := bits.Add64(x0, u0, 0)
		s1, cy := bits.Add64(x1, u1, cy)
		s2, cy := bits.Add64(x2, u2, cy)
		s3, cy := bits.Add64(x3, u3, cy)
		s4, _ := bits.Add64(x4, u4, cy)
		x0, x1, x2, x3, x4 = s0|(x0-u0), s1|(x1-u1), s2|(x2-u2), s3|(x3-u3), s4|(x4-u4)
	}
	vb[0], vb[1], vb[2], vb[3], vb[4] = x0, x1, x2, x3, x4
	return len(bs)
}

// columnsBytes6 is columnsBytes2 over 6 words.
func columnsBytes6(mt *lcsMatcher, vb *[6]uint64, first int, bs []byte) int {
	peq, words := mt.peq[first:], mt.words
	rows := &mt.ascii
	x0, x1, x2, x3, x4, x5 := vb[0], vb[1], vb[2], vb[3], vb[4], vb[5]
	for j, c := range bs {
		if c >= 128 {
			vb[0], vb[1], vb[2], vb[3], vb[4], vb[5] = x0, x1, x2, x3, x4, x5
			return j
		}
		k := int(rows[c]) - 1
		if k < 0 {
			continue
		}
		base := k * words
		p := peq[base : base+6 : base+6]
		u0, u1, u2, u3, u4, u5 := x0&p[0], x1&p[1], x2&p[2], x3&p[3], x4&p[4], x5&p[5]
		s0, cy := bits.Add64(x0, u0, 0)
		s1, cy := bits.Add64(x1, u1, cy)
		s2, cy := bits.Add64(x2, u2, cy)
		s3, cy := bits.Add64(x3, u3, cy)
		s4, cy := bits.Add64(x4, u4, cy)
		s5, _ := bits.Add64(x5, u5, cy)
		x0, x1, x2, x3, x4, x5 = s0|(x0-u0), s1|(x1-u1), s2|(x2-u2), s3|(x3-u3), s4|(x4-u4), s5|(x5-u5)
	}
	vb[0], vb[1], vb[2], vb[3], vb[4], vb[5] = x0, x1, x2, x3, x4, x5
	return len(bs)
}

// columnsBytes7 is columnsBytes2 over 7 words.
func columnsBytes7(mt *lcsMatcher, vb *[7]uint64, first int, bs []byte) int {
	peq, words := mt.peq[first:], mt.words
	rows := &mt.ascii
	x0, x1, x2, x3, x4, x5, x6 := vb[0], vb[1], vb[2], vb[3], vb[4], vb[5], vb[6]
	for j, c := range bs {
		if c >= 128 {
			vb[0], vb[1], vb[2], vb[3], vb[4], vb[5], vb[6] = x0, x1, x2, x3, x4, x5, x6
			return j
		}
		k := int(rows[c]) - 1
		if k < 0 {
			continue
		}
		base := k * words
		p := peq[base : base+7 : base+7]
		u0, u1, u2, u3, u4, u5, u6 := x0&p[0], x1&p[1], x2&p[2], x3&p[3], x4&p[4], x5&p[5], x6&p[6]
		s0, cy := bits.Add64(x0, u0, 0)
		s1, cy := bits.Add64(x1, u1, cy)
		s2, cy := bits.Add64(x2, u2, cy)
		s3, cy := bits.Add64(x3, u3, cy)
		s4, cy := bits.Add64(x4, u4, cy)
		s5, cy := bits.Add64(x5, u5, cy)
		s6, _ := bits.Add64(x6, u6, cy)
		x0, x1, x2, x3, x4, x5, x6 = s0|(x0-u0), s1|(x1-u1), s2|(x2-u2), s3|(x3-u3), s4|(x4-u4), s5|(x5-u5), s6|(x6-u6)
	}
	vb[0], vb[1], vb[2], vb[3], vb[4], vb[5], vb[6] = x0, x1, x2, x3, x4, x5, x6
	return len(bs)
}

// columnsBytes8 is columnsBytes2 over 8 words.
func columnsBytes8(mt *lcsMatcher, vb *[8]uint64, first int, bs []byte) int {
	peq, words := mt.peq[first:], mt.words
	rows := &mt.ascii
	x0, x1, x2, x3, x4, x5, x6, x7 := vb[0], vb[1], vb[2], vb[3], vb[4], vb[5], vb[6], vb[7]
	for j, c := range bs {
		if c >= 128 {
			vb[0], vb[1], vb[2], vb[3], vb[4], vb[5], vb[6], vb[7] = x0, x1, x2, x3, x4, x5, x6, x7
			return j
		}
		k := int(rows[c]) - 1
		if k < 0 {
			continue
		}
		base := k * words
		p := peq[base : base+8 : base+8]
		u0, u1, u2, u3, u4, u5, u6, u7 := x0&p[0], x1&p[1], x2&p[2], x3&p[3], x4&p[4], x5&p[5], x6&p[6], x7&p[7]
		s0, cy := bits.Add64(x0, u0, 0)
		s1, cy := bits.Add64(x1, u1, cy)
		s2, cy := bits.Add64(x2, u2, cy)
		s3, cy := bits.Add64(x3, u3, cy)
		s4, cy := bits.Add64(x4, u4, cy)
		s5, cy := bits.Add64(x5, u5, cy)
		s6, cy := bits.Add64(x6, u6, cy)
		s7, _ := bits.Add64(x7, u7, cy)
		x0, x1, x2, x3, x4, x5, x6, x7 = s0|(x0-u0), s1|(x1-u1), s2|(x2-u2), s3|(x3-u3), s4|(x4-u4), s5|(x5-u5), s6|(x6-u6), s7|(x7-u7)
	}
	vb[0], vb[1], vb[2], vb[3], vb[4], vb[5], vb[6], vb[7] = x0, x1, x2, x3, x4, x5, x6, x7
	return len(bs)
}

// columnsBytes9 is columnsBytes2 over 9 words.
func columnsBytes9(mt *lcsMatcher, vb *[9]uint64, first int, bs []byte) int {
	peq, words := mt.peq[first:], mt.words
	rows := &mt.ascii
	x0, x1, x2, x3, x4, x5, x6, x7, x8 := vb[0], vb[1], vb[2], vb[3], vb[4], vb[5], vb[6], vb[7], vb[8]
	for j, c := range bs {
		if c >= 128 {
			vb[0], vb[1], vb[2], vb[3], vb[4], vb[5], vb[6], vb[7], vb[8] = x0, x1, x2, x3, x4, x5, x6, x7, x8
			return j
		}
		k := int(rows[c]) - 1
		if k < 0 {
			continue
		}
		base := k * words
		p := peq[base : base+9 : base+9]
		u0, u1, u2, u3, u4, u5, u6, u7, u8 := x0&p[0], x1&p[1], x2&p[2], x3&p[3], x4&p[4], x5&p[5], x6&p[6], x7&p[7], x8&p[8]
		s0, cy := bits.Add64(x0, u0, 0)
		s1, cy := bits.Add64(x1, u1, cy)
		s2, cy := bits.Add64(x2, u2, cy)
		s3, cy := bits.Add64(x3, u3, cy)
		s4, cy := bits.Add64(x4, u4, cy)
		s5, cy := bits.Add64(x5, u5, cy)
		s6, cy := bits.Add64(x6, u6, cy)
		s7, cy := bits.Add64(x7, u7, cy)
		s8, _ := bits.Add64(x8, u8, cy)
		x0, x1, x2, x3, x4, x5, x6, x7, x8 = s0|(x0-u0), s1|(x1-u1), s2|(x2-u2), s3|(x3-u3), s4|(x4-u4), s5|(x5-u5), s6|(x6-u6), s7|(x7-u7), s8|(x8-u8)
	}
	vb[0], vb[1], vb[2], vb[3], vb[4], vb[5], vb[6], vb[7], vb[8] = x0, x1, x2, x3, x4, x5, x6, x7, x8
	return len(bs)
}

// columnsBytes10 is columnsBytes2 over 10 words.
func columnsBytes10(mt *lcsMatcher, vb *[10]uint64, first int, bs []byte) int {
	peq, words := mt.peq[first:], mt.words
	rows := &mt.ascii
	x0, x1, x2, x3, x4, x5, x6, x7, x8, x9 := vb[0], vb[1], vb[2], vb[3], vb[4], vb[5], vb[6], vb[7], vb[8], vb[9]
	for j, c := range bs {
		if c >= 128 {
			vb[0], vb[1], vb[2], vb[3], vb[4], vb[5], vb[6], vb[7], vb[8], vb[9] = x0, x1, x2, x3, x4, x5, x6, x7, x8, x9
			return j
		}
		k := int(rows[c]) - 1
		if k < 0 {
			continue
		}
		base := k * words
		p := peq[base : base+10 : base+10]
		u0, u1, u2, u3, u4, u5, u6, u7, u8, u9 := x0&p[0], x1&p[1], x2&p[2], x3&p[3], x4&p[4], x5&p[5], x6&p[6], x7&p[7], x8&p[8], x9&p[9]
		s0, cy := bits.Add64(x0, u0, 0)
		s1, cy := bits.Add64(x1, u1, cy)
		s2, cy := bits.Add64(x2, u2, cy)
		s3, cy := bits.Add64(x3, u3, cy)
		s4, cy := bits.Add64(x4, u4, cy)
		s5, cy := bits.Add64(x5, u5, cy)
		s6, cy := bits.Add64(x6, u6, cy)
		s7, cy := bits.Add64(x7, u7, cy)
		s8, cy := bits.Add64(x8, u8, cy)
		s9, _ := bits.Add64(x9, u9, cy)
		x0, x1, x2, x3, x4, x5, x6, x7, x8, x9 = s0|(x0-u0), s1|(x1-u1), s2|(x2-u2), s3|(x3-u3), s4|(x4-u4), s5|(x5-u5), s6|(x6-u6), s7|(x7-u7), s8|(x8-u8), s9|(x9-u9)
	}
	vb[0], vb[1], vb[2], vb[3], vb[4], vb[5], vb[6], vb[7], vb[8], vb[9] = x0, x1, x2, x3, x4, x5, x6, x7, x8, x9
	return len(bs)
}

// columnsBytes11 is columnsBytes2 over 11 words.
func columnsBytes11(mt *lcsMatcher, vb *[11]uint64, first int, bs []byte) int {
	peq, words := mt.peq[first:], mt.words
	rows := &mt.ascii
	x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10 := vb[0], vb[1], vb[2], vb[3], vb[4], vb[5], vb[6], vb[7], vb[8], vb[9], vb[10]
	for j, c := range bs {
		if c >= 128 {
			vb[0], vb[1], vb[2], vb[3], vb[4], vb[5], vb[6], vb[7], vb[8], vb[9], vb[10] = x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10
			return j
		}
		k := int(rows[c]) - 1
		if k < 0 {
			continue
		}
		base := k * words
		p := peq[base : base+11 : base+11]
		u0, u1, u2, u3, u4, u5, u6, u7, u8, u9, u10 := x0&p[0], x1&p[1], x2&p[2], x3&p[3], x4&p[4], x5&p[5], x6&p[6], x7&p[7], x8&p[8], x9&p[9], x10&p[10]
		s0, cy := bits.Add64(x0, u0, 0)
		s1, cy := bits.Add64(x1, u1, cy)
		s2, cy := bits.Add64(x2, u2, cy)
		s3, cy := bits.Add64(x3, u3, cy)
		s4, cy := bits.Add64(x4, u4, cy)
		s5, cy := bits.Add64(x5, u5, cy)
		s6, cy := bits.Add64(x6, u6, cy)
		s7, cy := bits.Add64(x7, u7, cy)
		s8, cy := bits.Add64(x8, u8, cy)
		s9, cy := bits.Add64(x9, u9, cy)
		s10, _ := bits.Add64(x10, u10, cy)
		x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10 = s0|(x0-u0), s1|(x1-u1), s2|(x2-u2), s3|(x3-u3), s4|(x4-u4), s5|(x5-u5), s6|(x6-u6), s7|(x7-u7), s8|(x8-u8), s9|(x9-u9), s10|(x10-u10)
	}
	vb[0], vb[1], vb[2], vb[3], vb[4], vb[5], vb[6], vb[7], vb[8], vb[9], vb[10] = x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10
	return len(bs)
}

// columnsBytes12 is columnsBytes2 over 12 words.
func columnsBytes12(mt *lcsMatcher, vb *[12]uint64, first int, bs []byte) int {
	peq, words := mt.peq[first:], mt.words
	rows := &mt.ascii
	x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11 := vb[0], vb[1], vb[2], vb[3], vb[4], vb[5], vb[6], vb[7], vb[8], vb[9], vb[10], vb[11]
	for j, c := range bs {
		if c >= 128 {
			vb[0], vb[1], vb[2], vb[3], vb[4], vb[5], vb[6], vb[7], vb[8], vb[9], vb[10], vb[11] = x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11
			return j
		}
		k := int(rows[c]) - 1
		if k < 0 {
			continue
		}
		base := k * words
		p := peq[base : base+12 : base+12]
		u0, u1, u2, u3, u4, u5, u6, u7, u8, u9, u10, u11 := x0&p[0], x1&p[1], x2&p[2], x3&p[3], x4&p[4], x5&p[5], x6&p[6], x7&p[7], x8&p[8], x9&p[9], x10&p[10], x11&p[11]
		s0, cy := bits.Add64(x0, u0, 0)
		s1, cy := bits.Add64(x1, u1, cy)
		s2, cy := bits.Add64(x2, u2, cy)
		s3, cy := bits.Add64(x3, u3, cy)
		s4, cy := bits.Add64(x4, u4, cy)
		s5, cy := bits.Add64(x5, u5, cy)
		s6, cy := bits.Add64(x6, u6, cy)
		s7, cy := bits.Add64(x7, u7, cy)
		s8, cy := bits.Add64(x8, u8, cy)
		s9, cy := bits.Add64(x9, u9, cy)
		s10, cy := bits.Add64(x10, u10, cy)
		s11, _ := bits.Add64(x11, u11, cy)
		x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11 = s0|(x0-u0), s1|(x1-u1), s2|(x2-u2), s3|(x3-u3), s4|(x4-u4), s5|(x5-u5), s6|(x6-u6), s7|(x7-u7), s8|(x8-u8), s9|(x9-u9), s10|(x10-u10), s11|(x11-u11)
	}
	vb[0], vb[1], vb[2], vb[3], vb[4], vb[5], vb[6], vb[7], vb[8], vb[9], vb[10], vb[11] = x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11
	return len(bs)
}
