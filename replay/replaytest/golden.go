package replaytest

import (
	"os"
	"path/filepath"
	"testing"
)

// Golden compares got with the golden file at path, for the golden tests
// of every package: with update it rewrites the file instead; on a
// mismatch it leaves path.got beside it. accept names the command that
// accepts the output (such as "go test ./cmd -update").
func Golden(t testing.TB, path, got string, update bool, accept string) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run %s to create it)", err, accept)
	}
	if string(want) != got {
		os.WriteFile(path+".got", []byte(got), 0o644)
		t.Errorf("%s differs from the output (see %s.got; %s accepts it)", path, path, accept)
	}
}
