//go:build !unix

package replay

import "os"

// openRegular is os.Open where files are not opened by system call here.
func openRegular(path string) (*os.File, error) { return os.Open(path) }
