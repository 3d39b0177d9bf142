package replay

// verbatimRunSWAR is verbatimRun eight bytes a word (verbatimIndexSWAR),
// each escape encoding/json writes passed.
func verbatimRunSWAR(b []byte, j int) int {
	for {
		if j = verbatimIndexSWAR(b, j); j >= len(b) {
			return len(b)
		}
		if b[j] != '\\' || j+1 >= len(b) || !goEscape(b[j+1]) {
			return j
		}
		j += 2
	}
}

// goEscape says c, after a backslash, makes an escape encoding/json
// writes: " \ b f n r t.
func goEscape(c byte) bool {
	switch c {
	case '"', '\\', 'b', 'f', 'n', 'r', 't':
		return true
	}
	return false
}
