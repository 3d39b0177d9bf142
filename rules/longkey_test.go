package rules_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopbreak/loopbreak/rules"
)

// A 4 MB unknown key is refused at once, and quoted shortened.
func TestLongUnknownKey(t *testing.T) {
	key := strings.Repeat("k", 4<<20)
	path := filepath.Join(t.TempDir(), "loopbreak.toml")
	os.WriteFile(path, []byte("[loop_break]\n"+key+" = 1\n"), 0o644)
	start := time.Now()
	_, err := rules.LoadFile(rules.Default(), path)
	if err == nil || len(err.Error()) > 300 || !strings.Contains(err.Error(), "unknown key kkkk") || !strings.Contains(err.Error(), "…") {
		t.Errorf("error (%d bytes): %.300v", len(err.Error()), err)
	}
	cfg := rules.Default()
	err = cfg.SetString(key + "=1")
	if err == nil || len(err.Error()) > 300 {
		t.Errorf("--set error (%d bytes)", len(err.Error()))
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}
