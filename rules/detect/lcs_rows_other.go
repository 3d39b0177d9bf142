//go:build !amd64 || purego

package detect

// useBuildAsm is read by no loop here (TestLCSGoLoops sets it).
var useBuildAsm = false

// buildRun is false: buildBytes' own loop sets every bit.
func buildRun(mt *lcsMatcher, w int, run []byte, bit uint64) (int, bool) { return 0, false }

// buildRunes is false: buildTo's own loop sets every bit.
func buildRunes(mt *lcsMatcher, w int, run []rune, bit uint64) (int, bool) { return 0, false }
