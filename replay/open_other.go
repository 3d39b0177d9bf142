//go:build !unix

package replay

import (
	"io"
	"os"
)

// openRegular is os.Open where files are not opened by system call here.
func openRegular(path string) (io.ReadCloser, error) { return os.Open(path) }
