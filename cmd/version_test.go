package cmd

import (
	"runtime/debug"
	"testing"
)

func TestVersionText(t *testing.T) {
	defer func(f func() (*debug.BuildInfo, bool)) { buildInfo = f }(buildInfo)
	for _, tc := range []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "loopbreak (devel)"},
		{"go test", &debug.BuildInfo{}, "loopbreak (devel)"},
		{"go install module@version", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/loopbreak/loopbreak", Version: "v1.2.0"}},
			"loopbreak v1.2.0\nbuilt with go1.26.8"},
		{"go install . from a clean checkout", &debug.BuildInfo{GoVersion: "go1.26.8",
			Main: debug.Module{Version: "v0.0.0-20261123121500-498f174abcde"},
			Settings: []debug.BuildSetting{
				{Key: "vcs", Value: "git"},
				{Key: "vcs.revision", Value: "498f174abcdef0123456789abcdef0123456789a"},
				{Key: "vcs.time", Value: "2026-11-23T12:15:00Z"},
				{Key: "vcs.modified", Value: "false"},
			}},
			"loopbreak v0.0.0-20261123121500-498f174abcde\ncommit 498f174abcdef0123456789abcdef0123456789a (2026-11-23T12:15:00Z)\nbuilt with go1.26.8"},
		{"a checkout with local changes", &debug.BuildInfo{GoVersion: "go1.26.8",
			Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: "498f174abcdef0123456789abcdef0123456789a"},
				{Key: "vcs.modified", Value: "true"},
			}},
			"loopbreak (devel)\ncommit 498f174abcdef0123456789abcdef0123456789a, modified\nbuilt with go1.26.8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buildInfo = func() (*debug.BuildInfo, bool) { return tc.info, tc.info != nil }
			if got := versionText(); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			// Both spellings print the same thing.
			for _, args := range [][]string{{"version"}, {"--version"}} {
				code, out, errOut := run(t, "", "", args...)
				if code != 0 || out != tc.want+"\n" || errOut != "" {
					t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
				}
			}
		})
	}
}
