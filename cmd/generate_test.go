package cmd

import (
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		err  bool
	}{
		{in: "", want: 0},
		{in: "0", want: 0},
		{in: "4096", want: 4096},
		{in: "300MB", want: 300_000_000},
		{in: "300MiB", want: 300 << 20},
		{in: "300mib", want: 300 << 20},
		{in: "300 MiB", want: 300 << 20},
		{in: "1.5GiB", want: 3 << 29},
		{in: "1.5GB", want: 1_500_000_000},
		{in: "64KiB", want: 64 << 10},
		{in: "64kB", want: 64_000},
		{in: "8EiB", err: true}, // 2^63 does not fit an int64
		{in: "-1", err: true},
		{in: "-300MB", err: true},
		{in: "NaN", err: true},
		{in: "Inf", err: true},
		{in: "+Inf", err: true},
		{in: "1e9", err: true},
		{in: "1,5GB", err: true},
		{in: "300XB", err: true},
		{in: "MB", err: true},
		{in: "garbage", err: true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseSize(tc.in)
			if tc.err {
				want := `"` + tc.in + `": want a size like 300MB or 300MiB`
				if err == nil || err.Error() != want {
					t.Fatalf("parseSize(%q) = %d, %v; want error %q", tc.in, got, err, want)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("parseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
			}
		})
	}
}

// FuzzParseSize: any input gives a non-negative size or an error, never a
// panic.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"300MB", "1.5GiB", "0", "-1", "NaN", "Inf", "1,5GB", "18446744073709551615", "16EiB", ".5k", "1e3MB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := parseSize(s); err == nil && n < 0 {
			t.Fatalf("parseSize(%q) = %d", s, n)
		}
	})
}

// A corpus generated with the live system at max_turns_stuck 30 disagrees
// with a replay under the deployed 40 and agrees with one under 30: the
// --fail-on live gate tells the two apart (RULES.md §10).
func TestGenerateLiveConfigAndGate(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := run(t, "", "", "generate", "--log-format", "live", "--live-max-stuck", "30", "-n", "12", "--max-noise", "1KB", dir); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, errOut)
	}
	if code, out, _ := run(t, "", "", "check", "--no-baseline", "--fail-on", "live", dir); code != ExitFailure || !strings.Contains(out, "fail-on live: live runs disagree with the replay") {
		t.Errorf("default configuration: exit %d\n%s", code, out)
	}
	if code, out, _ := run(t, "", "", "check", "--no-baseline", "--fail-on", "live", "--set", "max_turns_stuck=30", dir); code != 0 {
		t.Errorf("the live configuration: exit %d\n%s", code, out)
	}
}

func TestGenerateLiveConfigBounds(t *testing.T) {
	for args, want := range map[string]string{
		"--live-max-stuck=1001":     "--live-max-stuck must be in [1, 1000], got 1001",
		"--live-check-interval=101": "--live-check-interval must be in [1, 100], got 101",
		"--live-max-stuck=5":        "--live-max-stuck (5) must be >= --live-check-interval (10)",
		"--live-max-stuck=-3":       "--live-max-stuck must be in [1, 1000], got -3",
	} {
		code, _, errOut := run(t, "", "", "generate", args, t.TempDir())
		if code != ExitError || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d, stderr %q, want %q", args, code, errOut, want)
		}
	}
}
