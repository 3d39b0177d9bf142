package replay

import (
	"syscall"
	"testing"
	"unsafe"
)

// guardPage is a mapping whose last page may not be read; at copies an
// input to end where that page begins.
type guardPage struct {
	mem  []byte
	size int // the readable bytes before the guard page
}

func newGuardPage(t *testing.T) *guardPage {
	t.Helper()
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 4*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[3*page:], syscall.PROT_NONE); err != nil {
		t.Skip("mprotect:", err)
	}
	return &guardPage{mem, 3 * page}
}

func (g *guardPage) at(s []byte) []byte {
	s = s[:min(len(s), g.size)]
	b := g.mem[g.size-len(s) : g.size : g.size]
	copy(b, s)
	return b
}

func (g *guardPage) str(s string) string {
	b := g.at([]byte(s))
	return unsafe.String(unsafe.SliceData(b), len(b))
}
