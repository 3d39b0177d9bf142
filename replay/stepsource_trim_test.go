package replay

import (
	"bufio"
	"bytes"
	"io"
	"testing"
)

// FuzzNextLineTrim: nextLine's lines are the input's lines, split at
// '\n', each trimmed by bytes.TrimSpace (its cut of a record's "\n" or
// "\r\n" by its ends' bytes held to TrimSpace), blank ones passed over,
// each numbered.
func FuzzNextLineTrim(f *testing.F) {
	for _, s := range []string{"{}\n", "{}\r\n", "{} \n", " {}\t\r\n", "a", "\n\n{\"a\":1}\r\n\n", "x\r", "\r\n", "\xc2\x85x\xc2\x85\n",
		"\xe3\x80\x80{}\xe3\x80\x80\n", "x\xc2\x85\n", "{}\xe3\x80\x80\r\n", "x\xc2\xa0", "\v{}\f\n", "~\n\x7f\n!\n \n", "é\n", "\x00\n", "a\r\r\n", "\n\r\n\t\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		src := recordSource{br: bufio.NewReaderSize(bytes.NewReader(data), 16), max: 1 << 20, reuse: true}
		var want [][]byte
		var nums []int
		for i, l := range bytes.SplitAfter(data, []byte("\n")) {
			if tl := bytes.TrimSpace(l); len(tl) > 0 {
				want, nums = append(want, tl), append(nums, i+1)
			}
		}
		for k := 0; ; k++ {
			line, n, _, err := src.nextLine()
			if line == nil {
				if k != len(want) || err != io.EOF {
					t.Fatalf("%q: %d lines (%v), want %d", data, k, err, len(want))
				}
				return
			}
			if k >= len(want) || string(line) != string(want[k]) || n != nums[k] {
				t.Fatalf("%q: line %d %q (number %d), want %q", data, k, line, n, want)
			}
		}
	})
}

// FuzzNextLinePend: the lines cut from pend (takeLines, and nextLine's
// in-line cut of a record's line) are ReadSlice's, line for line, with
// the same numbers, tooLong and errors, for each buffer size, max and
// reuse (each line copied, for a caller that keeps it).
func FuzzNextLinePend(f *testing.F) {
	for _, s := range []string{"{}\n", "{}\r\n{\"a\": 1}\n", " {}\t\r\n\n\nx", "a\n\n\n", "0123456789abcdefghij\n{}\n", "{\"step\": 1}\n{\"step\": 2}\r\n {\"step\": 3} \n",
		"\r\n\t\n", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n" + "y\n", "x\r", "\n"} {
		f.Add([]byte(s), uint8(16), uint8(100), true)
		f.Add([]byte(s), uint8(20), uint8(3), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, size, max uint8, reuse bool) {
		type got struct {
			line    string
			n       int
			tooLong bool
			err     error
		}
		read := func(pend bool) []got {
			takeBuffered = pend
			defer func() { takeBuffered = true }()
			src := recordSource{br: bufio.NewReaderSize(bytes.NewReader(data), int(size)), max: int(max), reuse: reuse}
			var out []got
			for {
				line, n, tooLong, err := src.nextLine()
				out = append(out, got{string(line), n, tooLong, err})
				if err != nil || line == nil && !tooLong {
					return out
				}
			}
		}
		want, have := read(false), read(true)
		if len(want) != len(have) {
			t.Fatalf("%q (buffer %d, max %d): %d lines from pend, want %d:\n%v\n%v", data, size, max, len(have), len(want), have, want)
		}
		for k := range want {
			if want[k] != have[k] {
				t.Fatalf("%q (buffer %d, max %d): line %d from pend %+v, want %+v", data, size, max, k, have[k], want[k])
			}
		}
	})
}
