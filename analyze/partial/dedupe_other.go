//go:build !unix

package partial

import "os"

// fileKey: no device and inode here; dedupe falls back to os.SameFile.
type fileKey struct{}

func keyOf(os.FileInfo) (fileKey, bool) { return fileKey{}, false }
