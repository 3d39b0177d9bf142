//go:build unix

package replay

import (
	"io"
	"io/fs"
	"syscall"
)

// openRegular opens a regular file for reading by its descriptor alone,
// not as an *os.File: os.Open offers every file to the runtime poller
// (two fcntl calls to make it non-blocking, epoll_ctl refusing a regular
// file, two more to undo it), and even os.NewFile asks the descriptor's
// flags (fcntl) and registers a cleanup, whose Close then goes through the
// poller's bookkeeping; all of no use on a file whose reads never wait. On
// a directory of 100,000 small episode files they were a tenth of the
// calls analyze made. O_NONBLOCK: should the path have become a FIFO
// since it was stat'ed, the open does not wait for a writer (the reads of
// a regular file ignore the flag).
func openRegular(path string) (io.ReadCloser, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		switch {
		case err == nil:
			return &fdFile{fd: fd, path: path}, nil
		case err == syscall.EINTR:
			continue // as os.Open retries
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
}

// fdFile reads a descriptor as os.File.Read does: io.EOF at the end, a
// read error named by the path, reads of at most 1 GiB at a time.
type fdFile struct {
	fd   int
	path string
}

// size is the file's size (inputGauge).
func (f *fdFile) size() (int64, bool) {
	var st syscall.Stat_t
	if err := syscall.Fstat(f.fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return 0, false
	}
	return st.Size, true
}

func (f *fdFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(p) > 1<<30 {
		p = p[:1<<30] // as os.File: some systems refuse larger reads
	}
	for {
		n, err := syscall.Read(f.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, &fs.PathError{Op: "read", Path: f.path, Err: err}
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f *fdFile) Close() error {
	if f.fd < 0 {
		return &fs.PathError{Op: "close", Path: f.path, Err: fs.ErrClosed}
	}
	err := syscall.Close(f.fd)
	f.fd = -1
	if err != nil {
		return &fs.PathError{Op: "close", Path: f.path, Err: err}
	}
	return nil
}
