package cmd

import "flag"

// update rewrites golden files: go test ./cmd -update
var update = flag.Bool("update", false, "rewrite golden files")
