package replay

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestSymIndexHugePages: an index grown past hugeFrom is asked to be
// backed by huge pages (its mapping's VmFlags say hg), and every string
// interned across its growths is found again.
func TestSymIndexHugePages(t *testing.T) {
	var st symtab
	const n = hugeFrom*3/4 + 1000 // past the last growth below hugeFrom
	for i := range n {
		if id := st.sym("room " + strconv.Itoa(i)); int(id) != i+1 {
			t.Fatalf("string %d: Sym %d", i, id)
		}
	}
	if len(st.ids.slots) < hugeFrom {
		t.Fatalf("index of %d slots, want at least %d", len(st.ids.slots), hugeFrom)
	}
	for i := range n {
		if id := st.bytes([]byte("room " + strconv.Itoa(i))); int(id) != i+1 {
			t.Fatalf("string %d found as Sym %d", i, id)
		}
	}
	if st.len() != n+1 {
		t.Fatalf("%d Syms after looking up, want %d", st.len(), n+1)
	}

	// The 2 MiB page in the middle of the index is inside what was
	// advised, where the kernel has huge pages to advise.
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("no transparent huge pages:", err)
	}
	mid := uintptr(unsafe.Pointer(&st.ids.slots[len(st.ids.slots)/2]))
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if r, _, ok := strings.Cut(line, " "); ok && strings.Contains(r, "-") && !strings.HasSuffix(r, ":") {
			lo, hi, _ := strings.Cut(r, "-")
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && uint64(mid) >= a && uint64(mid) < b
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			if !strings.Contains(line+" ", " hg ") {
				t.Fatalf("the index's mapping is not advised for huge pages: %s", line)
			}
			return
		}
	}
	t.Fatal("the index's mapping is not in /proc/self/smaps")
}
