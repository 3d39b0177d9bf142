package detect

import "math/bits"

// columns updates the band's words v[first:last] by the columns of text
// bs, the band fixed over them, and takes each column's code point out of
// sh's counts when it keeps them. A band of one word (a near-duplicate's)
// is held in a register across the columns; a wider one, over bytes,
// goes through columnsBytes2 to columnsBytes12 (held in registers too,
// lcs_columns_wide.go), or columnsBytes past twelve words.
func columns[T symbol](mt *lcsMatcher, v []uint64, first, last int, bs []T, sh *bandShrink) {
	words := mt.words
	if last-first == 1 && (sh == nil || !sh.hist) {
		x := v[first]
		for _, r := range bs {
			if k := mt.row(rune(r)); k >= 0 {
				u := x & mt.peq[k*words+first]
				x = (x + u) | (x - u)
			}
		}
		v[first] = x
		return
	}
	vb := v[first:last]
	if b, ok := any(bs).([]byte); ok && sh == nil {
		for {
			var j int
			switch len(vb) {
			case 2:
				j = columnsBytes2(mt, (*[2]uint64)(vb), first, b)
			case 3:
				j = columnsBytes3(mt, (*[3]uint64)(vb), first, b)
			case 4:
				j = columnsBytes4(mt, (*[4]uint64)(vb), first, b)
			case 5:
				j = columnsBytes5(mt, (*[5]uint64)(vb), first, b)
			case 6:
				j = columnsBytes6(mt, (*[6]uint64)(vb), first, b)
			case 7:
				j = columnsBytes7(mt, (*[7]uint64)(vb), first, b)
			case 8:
				j = columnsBytes8(mt, (*[8]uint64)(vb), first, b)
			case 9:
				j = columnsBytes9(mt, (*[9]uint64)(vb), first, b)
			case 10:
				j = columnsBytes10(mt, (*[10]uint64)(vb), first, b)
			case 11:
				j = columnsBytes11(mt, (*[11]uint64)(vb), first, b)
			case 12:
				j = columnsBytes12(mt, (*[12]uint64)(vb), first, b)
			default:
				j = columnsBytes(mt, vb, first, b)
			}
			if j == len(b) {
				return
			}
			if k := mt.row(rune(b[j])); k >= 0 {
				lcsColumn(vb, mt.peq[k*words+first:k*words+last])
			}
			b = b[j+1:]
		}
	}
	for _, r := range bs {
		k := mt.row(rune(r))
		if sh != nil && sh.hist {
			sh.column(k)
		}
		if k >= 0 {
			lcsColumn(vb, mt.peq[k*words+first:k*words+last])
		}
	}
}

// lcsColumn is one column's update of the band's words vb by their
// pattern masks pm (as many). It is a function of its own so that its loop
// keeps its values in registers: inside bitLCS it spilled them.
//
//go:noinline
func lcsColumn(vb, pm []uint64) {
	n := len(vb)
	pm = pm[:n] // one bounds check for the loops
	var carry uint64
	// Four words at a time: their additions chain the carry in the
	// processor's flag, not through a register.
	i := 0
	for ; i+4 <= n; i += 4 {
		v, p := vb[i:i+4:i+4], pm[i:i+4:i+4]
		u0, u1, u2, u3 := v[0]&p[0], v[1]&p[1], v[2]&p[2], v[3]&p[3]
		s0, c := bits.Add64(v[0], u0, carry)
		s1, c := bits.Add64(v[1], u1, c)
		s2, c := bits.Add64(v[2], u2, c)
		s3, c := bits.Add64(v[3], u3, c)
		carry = c
		v[0], v[1], v[2], v[3] = s0|(v[0]-u0), s1|(v[1]-u1), s2|(v[2]-u2), s3|(v[3]-u3)
	}
	for ; i < n; i++ {
		x := vb[i]
		u := x & pm[i]
		var sum uint64
		sum, carry = bits.Add64(x, u, carry)
		vb[i] = sum | (x - u)
	}
}

// columnsBytes is columns over a band of thirteen words or more, a text of
// bytes and no bandShrink (lcsBytes's, most of fuzzy_repeat's LCS): the
// loop over the columns runs in it, with the update of the band's words,
// where columns called lcsColumn a column and reloaded its own dozen
// values after each call. It stops at a byte that is not ASCII (lcsBytes
// has none) and returns its index, for columns to update the band by it;
// len(bs) when it updated all.
//
//go:noinline
func columnsBytes(mt *lcsMatcher, vb []uint64, first int, bs []byte) int {
	n, words := len(vb), mt.words
	peq := mt.peq
	rows := &mt.ascii
	for j, c := range bs {
		if c >= 128 {
			return j
		}
		k := int(rows[c]) - 1
		if k < 0 {
			continue
		}
		base := k*words + first
		pm := peq[base : base+n : base+n]
		// lcsColumn's update.
		var carry uint64
		i := 0
		for ; i+4 <= n; i += 4 {
			v, p := vb[i:i+4:i+4], pm[i:i+4:i+4]
			u0, u1, u2, u3 := v[0]&p[0], v[1]&p[1], v[2]&p[2], v[3]&p[3]
			s0, c := bits.Add64(v[0], u0, carry)
			s1, c := bits.Add64(v[1], u1, c)
			s2, c := bits.Add64(v[2], u2, c)
			s3, c := bits.Add64(v[3], u3, c)
			carry = c
			v[0], v[1], v[2], v[3] = s0|(v[0]-u0), s1|(v[1]-u1), s2|(v[2]-u2), s3|(v[3]-u3)
		}
		for ; i < n; i++ {
			x := vb[i]
			u := x & pm[i]
			var sum uint64
			sum, carry = bits.Add64(x, u, carry)
			vb[i] = sum | (x - u)
		}
	}
	return len(bs)
}

// columnsBytes2 is columnsBytes over a band of two words, held in
// registers across the columns, as columns holds a band of one: the
// general loop stored its values to the stack and loaded them back around
// the update of each column. Bands of two to twelve words are most of
// fuzzy_repeat's LCS columns.
func columnsBytes2(mt *lcsMatcher, vb *[2]uint64, first int, bs []byte) int {
	peq, words := mt.peq[first:], mt.words // the band's words of each row
	rows := &mt.ascii
	x0, x1 := vb[0], vb[1]
	for j, c := range bs {
		if c >= 128 {
			vb[0], vb[1] = x0, x1
			return j
		}
		k := int(rows[c]) - 1
		if k < 0 {
			continue
		}
		base := k * words
		p := peq[base : base+2 : base+2]
		u0, u1 := x0&p[0], x1&p[1]
		s0, cy := bits.Add64(x0, u0, 0)
		s1, _ := bits.Add64(x1, u1, cy)
		x0, x1 = s0|(x0-u0), s1|(x1-u1)
	}
	vb[0], vb[1] = x0, x1
	return len(bs)
}

// columnsBytes3 is columnsBytes2 over three words.
func columnsBytes3(mt *lcsMatcher, vb *[3]uint64, first int, bs []byte) int {
	peq, words := mt.peq[first:], mt.words
	rows := &mt.ascii
	x0, x1, x2 := vb[0], vb[1], vb[2]
	for j, c := range bs {
		if c >= 128 {
			vb[0], vb[1], vb[2] = x0, x1, x2
			return j
		}
		k := int(rows[c]) - 1
		if k < 0 {
			continue
		}
		base := k * words
		p := peq[base : base+3 : base+3]
		u0, u1, u2 := x0&p[0], x1&p[1], x2&p[2]
		s0, cy := bits.Add64(x0, u0, 0)
		s1, cy := bits.Add64(x1, u1, cy)
		s2, _ := bits.Add64(x2, u2, cy)
		x0, x1, x2 = s0|(x0-u0), s1|(x1-u1), s2|(x2-u2)
	}
	vb[0], vb[1], vb[2] = x0, x1, x2
	return len(bs)
}

// columnsBytes4 is columnsBytes2 over four words.
func columnsBytes4(mt *lcsMatcher, vb *[4]uint64, first int, bs []byte) int {
	peq, words := mt.peq[first:], mt.words
	rows := &mt.ascii
	x0, x1, x2, x3 := vb[0], vb[1], vb[2], vb[3]
	for j, c := range bs {
		if c >= 128 {
			vb[0], vb[1], vb[2], vb[3] = x0, x1, x2, x3
			return j
		}
		k := int(rows[c]) - 1
		if k < 0 {
			continue
		}
		base := k * words
		p := peq[base : base+4 : base+4]
		u0, u1, u2, u3 := x0&p[0], x1&p[1], x2&p[2], x3&p[3]
		s0, cy := bits.Add64(x0, u0, 0)
		s1, cy := bits.Add64(x1, u1, cy)
		s2, cy := bits.Add64(x2, u2, cy)
		s3, _ := bits.Add64(x3, u3, cy)
		x0, x1, x2, x3 = s0|(x0-u0), s1|(x1-u1), s2|(x2-u2), s3|(x3-u3)
	}
	vb[0], vb[1], vb[2], vb[3] = x0, x1, x2, x3
	return len(bs)
}
