package rules_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// The detectors get a step's exit code as logged, whatever its size (the
// table keeps those past int32 beside its rows), and none for a step
// without one.
func TestStepOfExitCode(t *testing.T) {
	codes := []int{0, 2, -1, math.MaxInt32, math.MinInt32, math.MaxInt32 + 1, math.MinInt32 - 1, 1<<32 - 1, 1 << 53}
	var b strings.Builder
	for i, c := range codes {
		fmt.Fprintf(&b, `{"step": %d, "action": "make", "output": "x", "exit_code": %d}`+"\n", 2*i+1, c)
		fmt.Fprintf(&b, `{"step": %d, "action": "ls", "output": "y"}`+"\n", 2*i+2)
	}
	eps, err := replay.Read(strings.NewReader(b.String()), "log.jsonl", "ep", replay.Options{Format: replay.FormatSteps})
	if err != nil {
		t.Fatal(err)
	}
	ep := eps[0]
	for i, want := range codes {
		s, ok := rules.StepOf(&ep.Turns[2*i], ep)
		if !ok || !s.HasExitCode || s.ExitCode != want {
			t.Errorf("step %d: exit code %d (%v), want %d", 2*i+1, s.ExitCode, s.HasExitCode, want)
		}
		if s, _ := rules.StepOf(&ep.Turns[2*i+1], ep); s.HasExitCode {
			t.Errorf("step %d: exit code %d, want none", 2*i+2, s.ExitCode)
		}
	}
}
