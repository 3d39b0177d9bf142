package rules

import "strings"

func toLowerSlow(s string) string {
	return strings.TrimSpace(strings.ToLower(s))
}
