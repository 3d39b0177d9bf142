package report

import "github.com/loopbreak/loopbreak/rules"

// Origins of a rule (RULES.md, "Where each rule comes from").
const (
	OriginZorkGPT = "zorkgpt" // deployed in ZorkGPT
	OriginDesign  = "design"  // the loop-break design's proposals
)

// Origin is where a rule comes from.
func Origin(r *rules.Rule) string {
	switch r {
	case rules.Oscillation, rules.Camping, rules.ScoreAdjustment:
		return OriginDesign
	}
	return OriginZorkGPT
}
