//go:build !amd64 || purego

package replay

import "unsafe"

// prefetch is prefetch_amd64.go's hint, which other architectures go
// without: it changes nothing but the cache.
func prefetch(unsafe.Pointer) {}
