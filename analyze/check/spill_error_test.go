package check

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
)

// A spill file's error names what was being done and the temporary
// directory, not the spill file (unlinked, its name means nothing).
func TestSpillErrorHidesTempName(t *testing.T) {
	f, err := createSpill("loopbreak-rows-*")
	if err != nil {
		t.Fatal(err)
	}
	name := f.Name()
	closeSpill(f)
	_, werr := f.Write([]byte("x")) // closed: an *os.PathError naming the spill file
	for _, in := range []error{werr, &os.PathError{Op: "write", Path: name, Err: syscall.ENOSPC}} {
		err := spillError("holding the report's rows", in)
		if strings.Contains(err.Error(), name) || strings.Contains(err.Error(), "loopbreak-rows-") || !strings.Contains(err.Error(), os.TempDir()) {
			t.Errorf("%v", err)
		}
	}
	if err := spillError("x", &os.PathError{Op: "write", Path: name, Err: syscall.ENOSPC}); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("the reason is lost: %v", err)
	}
}
