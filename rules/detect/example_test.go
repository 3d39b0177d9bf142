package detect_test

import (
	"fmt"

	"github.com/loopbreak/loopbreak/rules/detect"
)

// The signatures of seed 004's examples, as RULES.md §8 reads them.
func ExampleSignature() {
	for _, out := range []string{
		"Error: TypeError - Cannot read property 'id' of null at auth.ts:45",
		"3 tests failing - auth, login, logout",
		"2 tests failing - auth, login",
		"Fixed auth.ts - added null check",
		"Fixed auth.ts - updated validation",
		"Searched GitHub for 'oauth2 refresh token', found 3 patterns...",
	} {
		fmt.Println(detect.Signature("Bash", out))
	}
	// Output:
	// bash|error:TypeError-auth.ts:45
	// bash|test-fail:3-
	// bash|test-fail:2-
	// bash|file:auth.ts-null
	// bash|file:auth.ts-validation
	// bash|searched-github-for-'oauth2-refresh-token',-found-
}

// Texts of 9+26 code points differing in one: 2·34/70.
func ExampleFuzzyRepeat() {
	d, err := detect.NewFuzzyRepeat(detect.DefaultFuzzyConfig())
	if err != nil {
		panic(err)
	}
	for i, out := range []string{"tests: 41 passed, 3 failed", "tests: 41 passed, 2 failed", "build ok"} {
		for _, f := range d.Step(detect.Step{N: i + 1, Action: "make test", Output: out}) {
			fmt.Printf("step %d: %s matches step %d at %.4f\n", f.Step, f.Rule, f.MatchedStep, f.Similarity)
		}
	}
	// Output:
	// step 2: fuzzy_repeat matches step 1 at 0.9615
}

func ExampleNewFuzzyRepeat_invalid() {
	_, err := detect.NewFuzzyRepeat(detect.FuzzyConfig{Threshold: 1.5, Window: 5})
	fmt.Println(err)
	// Output:
	// fuzzy_threshold = 1.5: must be in [0, 1]
}
