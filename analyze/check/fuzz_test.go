package check

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadBaseline: any bytes as a baseline file never panic; invalid
// ones are an error naming the file; a valid one encodes to a canonical
// form that reads back to the same bytes.
func FuzzReadBaseline(f *testing.F) {
	f.Add([]byte(`{"schema_version": 1, "config": {"max_turns_stuck": 40}, "episodes": []}`))
	f.Add([]byte(`{"schema_version": -1}`))
	f.Add([]byte(`{"schema_version": 1, "episodes": [{"episode_id": "A", "source": "eps/caf%E9/x", "log_hash": "sha256:00", "termination_turn": 5, "checkpoints": [5], "final_score": 1e308, "firing_counts": {"a/b": 1}}]}`))
	f.Add([]byte("{\n  \"schema_version\": 1,\n"))
	f.Add([]byte(`null`))
	if data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "check", "episodes.baseline.json")); err == nil {
		f.Add(data)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		file := filepath.Join(dir, "fuzz.baseline.json")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := ReadBaseline(file)
		if err != nil {
			if !strings.Contains(err.Error(), file) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		b.Sort()
		enc := b.Encode()
		b2, err := ParseBaseline(enc)
		if err != nil {
			t.Fatalf("canonical form does not read back: %v\n%s", err, enc)
		}
		b2.Sort()
		if enc2 := b2.Encode(); !bytes.Equal(enc, enc2) {
			t.Fatalf("canonical form not stable:\n%s\n%s", enc, enc2)
		}
	})
}
