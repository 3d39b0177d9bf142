package cmd

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/loopbreak/loopbreak/report"
)

// percentFlag is a share given as "5%" or as a fraction "0.05"; the value
// is kept in percent. sweep's --max-false-rate and check's gates take it,
// so both read and reject the same spellings alike. pflag prefixes Set's
// error with the flag and the value:
//
//	invalid argument "5" for "--max-false-rate" flag: ambiguous: write 5% for a percentage, or 0.05 for a fraction
type percentFlag struct {
	Pct   float64
	Given bool
}

func (p *percentFlag) String() string {
	if !p.Given {
		return ""
	}
	return report.FormatPercent(p.Pct)
}

func (p *percentFlag) Type() string { return "percent" }

func (p *percentFlag) Set(s string) error { // implements pflag.Value
	v, err := parsePercent(s)
	if err != nil {
		return err
	}
	p.Pct, p.Given = v, true
	return nil
}

// Ptr is the value in percent, nil when the flag was not given.
func (p *percentFlag) Ptr() *float64 {
	if !p.Given {
		return nil
	}
	v := p.Pct
	return &v
}

// parsePercent reads "5%" (0 to 100) or a fraction "0.05" (0 to 1) and
// returns percent. A bare number above 1 is refused: "5" could mean 5% or
// 500%. Errors do not repeat the value: the caller names it.
func parsePercent(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if num, ok := strings.CutSuffix(t, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || math.IsNaN(v) || v < 0 || v > 100 {
			return 0, fmt.Errorf("want a percentage from 0%% to 100%%")
		}
		return v, nil
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || v < 0 {
		return 0, fmt.Errorf("want a percentage (5%%) or a fraction (0.05)")
	}
	switch {
	case v > 100:
		return 0, fmt.Errorf("want a percentage from 0%% to 100%% or a fraction from 0 to 1")
	case v > 1:
		return 0, fmt.Errorf("ambiguous: write %s%% for a percentage, or %s for a fraction", t, strconv.FormatFloat(v/100, 'f', -1, 64))
	}
	return v * 100, nil
}
