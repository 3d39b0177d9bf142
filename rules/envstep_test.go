package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
)

// TestEnvStepOfPerTurn checks that the step an Env makes once for the
// turn being stepped is stepOf of that turn, also when the replay steps
// every turn in one row (a spare turn, as an attempts log's replay does):
// the step made for the row's previous turn is not reused.
func TestEnvStepOfPerTurn(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, `{"step": %d, "action": "act %d", "output": "out %d", "error": %v, "exit_code": %d}`+"\n", i, i%3, i, i%2 == 0, i)
	}
	eps, err := replay.Read(strings.NewReader(b.String()), "log.jsonl", "ep", replay.Options{Format: replay.FormatSteps})
	if err != nil {
		t.Fatal(err)
	}
	ep := eps[0]
	env := &Env{Episode: ep}
	spare := new(replay.Turn)
	for _, inRow := range []bool{false, true} {
		for i := range ep.Turns {
			row := &ep.Turns[i]
			if inRow {
				*spare = ep.Turns[i]
				row = spare
			}
			env.at(row)
			for range 2 { // made, then kept
				gotp, ok := env.stepOf(row)
				got := *gotp
				want, wantOK := stepOf(row, ep)
				if got != want || ok != wantOK {
					t.Fatalf("turn %d: step %+v, %v; want %+v, %v", i, got, ok, want, wantOK)
				}
			}
		}
	}
}
