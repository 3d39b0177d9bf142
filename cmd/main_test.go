package cmd

import (
	"flag"
	"os"
	"testing"
)

// update rewrites golden files: go test ./cmd -update
var update = flag.Bool("update", false, "rewrite golden files")

// TestMain lets a test re-run this binary as loopbreak itself
// (LOOPBREAK_TEST_MAIN=1, the arguments after the program name), to send
// it real signals.
func TestMain(m *testing.M) {
	if os.Getenv("LOOPBREAK_TEST_MAIN") == "1" {
		os.Exit(Main(os.Args[1:], System()))
	}
	os.Exit(m.Run())
}
