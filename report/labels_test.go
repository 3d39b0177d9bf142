package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
)

func TestScorePctAndShortKind(t *testing.T) {
	for _, c := range []struct {
		f    float64
		ok   bool
		want string
	}{{2.0 / 3, true, "66.67%"}, {1, true, "100.00%"}, {0.123456, true, "12.35%"}, {0, true, "0.00%"}, {0.5, false, "-"}} {
		if got := ScorePct(c.f, c.ok); got != c.want {
			t.Errorf("ScorePct(%v, %v) = %q, want %q", c.f, c.ok, got, c.want)
		}
	}
	for key, want := range map[string]string{
		"progress_velocity/termination": "termination", // two scored kinds: the kind
		"stuck_warnings/warning":        "stuck_warnings",
		"camping/detection":             "camping",
		"openhands/unknown":             "openhands/unknown", // outside the registry: as is
	} {
		if got := shortKind(key); got != want {
			t.Errorf("shortKind(%s) = %q, want %q", key, got, want)
		}
	}
}

// TestEpisodeLabelsJSON: null without labels; never-stuck spans as [].
func TestEpisodeLabelsJSON(t *testing.T) {
	if NewEpisodeLabels(nil, nil) != nil {
		t.Error("unlabelled episode has labels")
	}
	b, err := json.Marshal(NewEpisodeLabels(&analyze.EpisodeLabels{Source: "l.json"}, analyze.Scores{"stuck_warnings/warning": {Firings: 2}}))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"source":"l.json","stuck":[],"scores":{"stuck_warnings/warning":{"firings":2,"inside":0,"spans":0,"caught":0,"precision_pct":0,"recall_pct":null,"f1_pct":0,"lead_median":null,"lead_max":null,"lead_times":[]}}}`
	if string(b) != want {
		t.Errorf("JSON\n%s\nwant\n%s", b, want)
	}
	var buf bytes.Buffer
	r := &Text{W: &buf}
	if err := r.EpisodeLabels(&analyze.EpisodeLabels{Source: "l.json"}, analyze.Scores{"stuck_warnings/warning": {Firings: 2}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "never stuck") || !strings.Contains(buf.String(), "0.00% (0/2)") {
		t.Errorf("text:\n%s", buf.String())
	}
}
