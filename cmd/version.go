package cmd

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// buildInfo is runtime/debug.ReadBuildInfo; tests replace it.
var buildInfo = debug.ReadBuildInfo

// NewCmdVersion builds `loopbreak version`, which prints what
// `loopbreak --version` prints.
func NewCmdVersion(ios *IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the commit it was built from and the Go version",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			_, err := fmt.Fprintln(ios.Out, versionText())
			return err
		},
	}
}

// versionText reads the version the Go toolchain stamped into the binary:
// the module version (a tag under go install module@version, a pseudo-version
// when built from a checkout with its VCS, "(devel)" otherwise) and the
// vcs.* settings when the build had them.
func versionText() string {
	info, ok := buildInfo()
	if !ok {
		return "loopbreak (devel)"
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	s := "loopbreak " + version
	var rev, at, modified string
	for _, kv := range info.Settings {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
		case "vcs.time":
			at = kv.Value
		case "vcs.modified":
			modified = kv.Value
		}
	}
	if rev != "" {
		s += "\ncommit " + rev
		if at != "" {
			s += " (" + at + ")"
		}
		if modified == "true" {
			s += ", modified"
		}
	}
	if info.GoVersion != "" {
		s += "\nbuilt with " + info.GoVersion
	}
	return s
}
