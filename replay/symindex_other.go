//go:build !linux

package replay

// adviseHuge does nothing where huge pages are not asked for by madvise.
func adviseHuge([]uint64) {}
