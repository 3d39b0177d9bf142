//go:build amd64 && !purego

package replay

import "unsafe"

// prefetch asks the CPU to bring the cache line at p into its caches
// without waiting for it (PREFETCHT0, which never faults): a table's
// slot read a little later, whose miss then overlaps the work in
// between. It changes nothing but the cache; the compiler offers it to
// the runtime alone.
//
//go:noescape
func prefetch(p unsafe.Pointer)
