package replay

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"
	"testing"
)

// The stop scans against byte loops: special (the assembly on amd64,
// from 16 bytes of input on) and the SWAR versions of special and of
// verbatimIndex (the other architectures' code, called directly so that
// it stays tested here too; verbatimRun's own tests are in
// verbatimrun_test.go).

func specialRef(b []byte, j int) int {
	for ; j < len(b); j++ {
		if c := b[j]; c < 0x20 || c == '"' || c == '\\' {
			break
		}
	}
	return j
}

func verbatimIndexRef(b []byte, j int) int {
	for ; j < len(b); j++ {
		if c := b[j]; c >= 0x80 || c == '<' || c == '>' || c == '&' || c == '\\' {
			break
		}
	}
	return j
}

var stopScans = []struct {
	name      string
	scan, ref func([]byte, int) int
}{
	{"special", special, specialRef},
	{"specialSWAR", specialSWAR, specialRef},
	{"verbatimIndexSWAR", verbatimIndexSWAR, verbatimIndexRef},
}

// Every byte value at every place of inputs of 0 to 80 bytes (five 16-
// byte steps and every tail; each kind of byte from 33 bytes on), among
// neighbours that stop neither scan, from starts in the first and second
// words and steps.
func TestStopScanEveryByte(t *testing.T) {
	kinds := []int{0, 0x1f, ' ', '!', '"', '#', '&', '<', '=', '>', '[', '\\', ']', 0x7f, 0x80, 0xff}
	for _, s := range stopScans {
		for _, fill := range []byte{'a', ' ', '!', '[', 0x7f} {
			for n := range 81 {
				b := bytes.Repeat([]byte{fill}, n)
				for pos := range n {
					for c := range 256 {
						if n > 32 && !slices.Contains(kinds, c) {
							continue
						}
						b[pos] = byte(c)
						for _, from := range []int{0, 1, 7, 8, 9, 15, 16, 17} {
							if from > n {
								break
							}
							if got, want := s.scan(b, from), s.ref(b, from); got != want {
								t.Fatalf("%s(%x, %d) = %d, want %d", s.name, b, from, got, want)
							}
						}
					}
					b[pos] = fill
				}
				if got := s.scan(b, n+1); got != n+1 {
					t.Fatalf("%s past the end of %d bytes: %d", s.name, n, got)
				}
			}
		}
	}
}

// A stop before the start is never taken, nor one after the first:
// two stops at every pair of places, from every start, so that the
// last 16 bytes' load (which holds bytes before the start) is tested at
// every overlap.
func TestStopScanEveryStart(t *testing.T) {
	for _, s := range stopScans {
		for _, stop := range []byte{'"', '\\', 0, 0x1f, '<', '>', '&', 0x80, 0xff} {
			for n := range 81 {
				b := bytes.Repeat([]byte{'x'}, n)
				for p1 := -1; p1 < n; p1++ {
					if p1 >= 0 {
						b[p1] = stop
					}
					for p2 := p1 + 1; p2 < n; p2 += 3 {
						b[p2] = stop
						for from := 0; from <= n; from++ {
							if got, want := s.scan(b, from), s.ref(b, from); got != want {
								t.Fatalf("%s(%x, %d) = %d, want %d", s.name, b, from, got, want)
							}
						}
						b[p2] = 'x'
					}
					if p1 >= 0 {
						b[p1] = 'x'
					}
				}
			}
		}
	}
}

// The scans never read outside b: b is a window of a larger buffer
// whose bytes around it all stop both scans.
func TestStopScanWindow(t *testing.T) {
	for _, s := range stopScans {
		for n := range 81 {
			buf := bytes.Repeat([]byte{'"'}, n+64)
			for i := range n {
				buf[32+i] = 'y'
			}
			for _, c := range []byte{'"', '<', 0x80} {
				for i := range buf {
					if i < 32 || i >= 32+n {
						buf[i] = c
					}
				}
				b := buf[32 : 32+n : 32+n]
				for from := 0; from <= n; from++ {
					if got := s.scan(b, from); got != n {
						t.Fatalf("%s of %d bytes from %d: %d, want %d (read outside)", s.name, n, from, got, n)
					}
				}
			}
		}
	}
}

func FuzzStopScan(f *testing.F) {
	for _, s := range []string{"", "abc", `0123456789abcdef"`, "0123456789abcdef01234\\", "x<y", "é\x01", "0123456789abcdef0123456789abcdef\n"} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, b []byte, from uint8) {
		j := int(from) % (len(b) + 2)
		for _, s := range stopScans {
			if got, want := s.scan(b, j), s.ref(b, j); got != want {
				t.Fatalf("%s(%q, %d) = %d, want %d", s.name, b, j, got, want)
			}
		}
		wantStop, wantEsc := stringRunRef(b, j)
		if j > len(b) {
			wantStop = j
		}
		for _, s := range stringRuns {
			if gotStop, gotEsc := s.run(b, j); gotStop != wantStop || gotEsc != wantEsc {
				t.Fatalf("%s(%q, %d) = %d %v, want %d %v", s.name, b, j, gotStop, gotEsc, wantStop, wantEsc)
			}
		}
	})
}

// BenchmarkStopScan: the scans over runs of a few lengths, a stop at the end.
func BenchmarkStopScan(b *testing.B) {
	for _, n := range []int{8, 16, 24, 40, 64, 200, 2000} {
		buf := append(bytes.Repeat([]byte{'a'}, n), `\"< and some more bytes after the stops`...)
		for _, s := range stopScans {
			b.Run(s.name+"/"+itoa(n), func(b *testing.B) {
				b.SetBytes(int64(n))
				for b.Loop() {
					if s.scan(buf, 0) != n {
						b.Fatal("wrong stop")
					}
				}
			})
		}
	}
}

func stringRunRef(b []byte, j int) (int, bool) {
	esc := false
	for ; j < len(b); j++ {
		c := b[j]
		if c == '\\' && j+1 < len(b) && bytes.IndexByte([]byte(`"\/bfnrt`), b[j+1]) >= 0 {
			esc = true
			j++
			continue
		}
		if c < 0x20 || c == '"' || c == '\\' {
			break
		}
	}
	return j, esc
}

type stringRunCase struct {
	name string
	run  func([]byte, int) (int, bool)
}

// stringRuns are the scans held to stringRunRef (stopscan_amd64_test.go
// adds the SSE2 scan and the dispatch with AVX2 off).
var stringRuns = []stringRunCase{{"stringRun", stringRun}, {"stringRunSWAR", stringRunSWAR}}

// stringRun passes two-byte escapes, whatever byte stands wherever among
// neighbours that are plain, escapes or a backslash's halves, from
// starts in the first and second words and 16- and 32-byte steps, up to
// 80 bytes (every byte up to 32, each kind of byte after).
func TestStringRun(t *testing.T) {
	kinds := []int{0, 0x1f, ' ', '"', '\\', '/', 'n', 't', 'u', 'a', 0x7f, 0x80, 0xff}
	for _, s := range stringRuns {
		for _, fill := range []string{"a", `\n`, `xy\/`, `\\`, `abcdefghijklm\"`, "\xe9\\u"} {
			for n := range 81 {
				b := []byte(strings.Repeat(fill, n))[:n]
				for pos := range n {
					for c := range 256 {
						if n > 32 && !slices.Contains(kinds, c) {
							continue
						}
						keep := b[pos]
						b[pos] = byte(c)
						for _, from := range []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, n, n + 1} {
							if from > n+1 {
								break
							}
							gotStop, gotEsc := s.run(b, from)
							wantStop, wantEsc := stringRunRef(b, from)
							if from > n {
								wantStop = from
							}
							if gotStop != wantStop || gotEsc != wantEsc {
								t.Fatalf("%s(%q, %d) = %d %v, want %d %v", s.name, b, from, gotStop, gotEsc, wantStop, wantEsc)
							}
						}
						b[pos] = keep
					}
				}
			}
		}
	}
}

// BenchmarkStringRun: a string like a tool's output, lines of 20 to 70
// bytes between \n escapes (a SWE-agent observation), to its closing quote.
func BenchmarkStringRun(b *testing.B) {
	var s []byte
	for i := range 40 {
		s = append(s, strings.Repeat("x", 20+i*7%51)...)
		s = append(s, `\n`...)
	}
	s = append(s, `" and more after`...)
	n := bytes.IndexByte(s, '"')
	for _, r := range stringRuns {
		b.Run(r.name, func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				if stop, _ := r.run(s, 0); stop != n {
					b.Fatal("wrong stop")
				}
			}
		})
	}
}

type unescapeRunCase struct {
	name string
	run  func(dst, src []byte, stopHigh bool) (int, int)
}

// unescapeRuns are the copies held to unescapeRunBytes
// (stopscan_amd64_test.go adds the dispatch with AVX2 off).
var unescapeRuns = []unescapeRunCase{{"unescapeRun", unescapeRun}}

// checkUnescapeRun holds unescapeRuns to unescapeRunBytes on src, with a
// dst of dn bytes followed by bytes they must not write. src is followed
// in its array by bytes a backslash would escape, which a read past its
// end would take.
func checkUnescapeRun(t *testing.T, src []byte, dn int, stopHigh bool) {
	t.Helper()
	src = append(bytes.Clone(src), "nnnn"...)[:len(src)]
	want := make([]byte, dn)
	ww, wr := unescapeRunBytes(want, src, stopHigh)
	for _, u := range unescapeRuns {
		buf := bytes.Repeat([]byte{0xAA}, dn+40)
		gw, gr := u.run(buf[:dn:dn], src, stopHigh)
		if gw != ww || gr != wr || !bytes.Equal(buf[:gw], want[:ww]) {
			t.Fatalf("%s(%d bytes, %q, %v) = %d %d %q, want %d %d %q", u.name, dn, src, stopHigh, gw, gr, buf[:gw], ww, wr, want[:ww])
		}
		for _, c := range buf[dn:] {
			if c != 0xAA {
				t.Fatalf("%s(%d bytes, %q, %v) wrote past dst: %q", u.name, dn, src, stopHigh, buf[dn:])
			}
		}
	}
}

// unescapeRun copies and unescapes as the byte loop does, whatever byte
// stands wherever among neighbours that are plain, escapes or a
// backslash's halves, up to 80 bytes (every byte up to 34, each kind of
// byte after), into a dst as long as src, shorter or longer.
func TestUnescapeRun(t *testing.T) {
	kinds := []int{0, ' ', '"', '\\', '/', 'b', 'n', 't', 'u', 'a', 0x7f, 0x80, 0xff}
	for _, fill := range []string{"a", `\n`, `xy\/`, `\\`, `abcdefghijklm\"`, "\xe9\\u", "\xe9t"} {
		for n := range 81 {
			src := []byte(strings.Repeat(fill, n))[:n]
			for pos := range n {
				for c := range 256 {
					if n > 34 && !slices.Contains(kinds, c) {
						continue
					}
					keep := src[pos]
					src[pos] = byte(c)
					for _, dn := range []int{n, n + 3, n - 1, n - 2, n - 17, pos, pos + 1} {
						if dn >= 0 {
							checkUnescapeRun(t, src, dn, c&1 == 0)
						}
					}
					src[pos] = keep
				}
			}
		}
	}
}

// unescapeRun stops at a backslash that ends src, whatever byte follows
// src in its array, after escapes that move its 32-byte steps to every
// place: a step that ends at src's end must not read past it for the
// backslash's escape.
func TestUnescapeRunEndBackslash(t *testing.T) {
	for _, lead := range []string{"", `\n`, `\n\t`, `ab\"`, "\xe9"} {
		for m := range 80 {
			src := []byte(lead + strings.Repeat("a", m) + `\`)
			for _, dn := range []int{len(src), len(src) + 3} {
				checkUnescapeRun(t, src, dn, true)
				checkUnescapeRun(t, src, dn, false)
			}
		}
	}
}

// escapesClose calls f with each source of n bytes, 33 to 100, holding
// two escapes close together: the first anywhere, the second 0 to 6
// bytes after it (in the same 32-byte step, at its last byte or across
// its end), then a third stop (one of thirds) 0, 1 or 5 bytes after, or
// a backslash ending src: where a step's loop meets an escape next to
// another stop or the steps' end.
func escapesClose(thirds []string, f func(src []byte)) {
	for n := 33; n <= 100; n++ {
		for p := range n - 1 {
			for gap := range 7 {
				q := p + 2 + gap
				if q+1 >= n {
					continue
				}
				for _, third := range append([]string{""}, thirds...) {
					for _, gap3 := range []int{0, 1, 5} {
						src := bytes.Repeat([]byte{'a'}, n)
						copy(src[p:], `\n`)
						copy(src[q:], `\"`)
						if r := q + 2 + gap3; third != "" && r < n {
							src = append(src[:r], third...)
							if third != `\` && len(src) < n {
								src = append(src, bytes.Repeat([]byte{'b'}, n-len(src))...)
							}
						}
						f(src)
					}
				}
			}
		}
	}
}

// unescapeRun against the plain loop on two escapes close together
// (escapesClose): an escape, a \u, a byte over 0x7f as the third stop.
func TestUnescapeRunEscapesClose(t *testing.T) {
	escapesClose([]string{`\t`, `\u`, "\x80", `\`}, func(src []byte) {
		for _, dn := range []int{len(src), len(src) - 1} {
			checkUnescapeRun(t, src, dn, true)
			checkUnescapeRun(t, src, dn, false)
		}
	})
}

func FuzzUnescapeRun(f *testing.F) {
	for _, s := range []string{"", "abc", `0123456789abcdef\n`, "0123456789abcdef01234\\", `x\u00e9y`, "é\\t\x01", "0123456789abcdef0123456789abcdef\\"} {
		f.Add([]byte(s), uint8(0), true)
	}
	f.Fuzz(func(t *testing.T, src []byte, short uint8, stopHigh bool) {
		checkUnescapeRun(t, src, max(len(src)-int(short)%8, 0), stopHigh)
		checkUnescapeRun(t, src, len(src)+int(short)%8, stopHigh)
	})
}

// BenchmarkUnescapeRun: a tool's output, lines of 20 to 70 bytes between
// \n escapes (BenchmarkStringRun's), copied and unescaped whole.
func BenchmarkUnescapeRun(b *testing.B) {
	var s []byte
	for i := range 40 {
		s = append(s, strings.Repeat("x", 20+i*7%51)...)
		s = append(s, `\n`...)
	}
	dst := make([]byte, len(s))
	for _, r := range []struct {
		name string
		run  func(dst, src []byte, stopHigh bool) (int, int)
	}{{"unescapeRun", unescapeRun}, {"unescapeRunBytes", unescapeRunBytes}} {
		b.Run(r.name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				if _, n := r.run(dst, s, true); n != len(s) {
					b.Fatal("stopped early")
				}
			}
		})
	}
}

// looseStopMask's lowest flagged byte is the first of a word's that is a
// quote, a backslash, below 0x23 or over 0x7f: every value at every
// place, alone and with a second byte of every value at every place above
// it (whose subtractions a borrow from the first reaches), among bytes
// that are none of them.
func TestLooseStopMask(t *testing.T) {
	loose := func(c byte) bool { return c < 0x23 || c == '\\' || c >= 0x80 }
	check := func(b []byte) {
		want := 8
		for k, c := range b {
			if loose(c) {
				want = k
				break
			}
		}
		got := 8
		if m := looseStopMask(binary.LittleEndian.Uint64(b)); m != 0 {
			got = bits.TrailingZeros64(m) / 8
		}
		if got != want {
			t.Fatalf("looseStopMask(%x): lowest flagged byte %d, want %d", b, got, want)
		}
	}
	for _, fill := range []byte{'#', 'a', '[', ']', '~', 0x7f} {
		b := bytes.Repeat([]byte{fill}, 8)
		for p := range 8 {
			for c := range 256 {
				b[p] = byte(c)
				check(b)
				for q := p + 1; q < 8; q++ {
					for d := range 256 {
						b[q] = byte(d)
						check(b)
					}
					b[q] = fill
				}
			}
			b[p] = fill
		}
	}
}
