//go:build linux

package replay

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on the platforms Go
// runs Linux on with THP (x86-64, arm64 with 4 KiB pages).
const hugePage = 2 << 20

// adviseHuge asks the kernel to back a large index's slots with huge
// pages (madvise MADV_HUGEPAGE on the 2 MiB pages within it). A probe
// of an index of hundreds of MB lands on a random 4 KiB page, a TLB
// miss whose page walk missed the caches too (the page table of such an
// index is itself MBs): with 2 MiB pages the whole index fits the TLB,
// and a new string costs one cache miss, as in an index of tens of MB
// (issue 23). Go's heap is not backed by huge pages where THP is
// "madvise" (the usual default), and asking is harmless where it is
// "always" or "never" or the kernel refuses: an error changes nothing.
// The caller writes the slots before reading them (touchSlots): a read
// of an untouched huge page maps the shared zero page, and the first
// write then copies it, which cost ten times the faults of writing
// first.
func adviseHuge(s []uint64) {
	if len(s)*8 < 2*hugePage {
		return
	}
	p := unsafe.Pointer(unsafe.SliceData(s))
	start := uintptr(p)
	end := start + uintptr(len(s))*8
	from, to := (start+hugePage-1)&^(hugePage-1), end&^(hugePage-1)
	if to <= from {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Add(p, from-start)), to-from)
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
}
