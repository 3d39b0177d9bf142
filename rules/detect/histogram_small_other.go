//go:build !amd64 || purego

package detect

// useSmallCounts is false: the int32 counts' bound is summed a count at
// a time here, as the bytes' would be.
var useSmallCounts = false

func countSmall(a *[128]uint8, s string) { countSmallGo(a, s) }

func sharedSmall(h, o *[128]uint8) int { return sharedSmallGo(h, o) }

func smallPresent(a *[128]uint8) [2]uint64 { return smallPresentGo(a) }
