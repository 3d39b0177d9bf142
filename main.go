// Command loopbreak replays agent loop-break rules over episode logs.
package main

import (
	"os"

	"github.com/loopbreak/loopbreak/cmd"
)

func main() {
	tuneGC()
	os.Exit(cmd.Main(os.Args[1:], cmd.System()))
}
