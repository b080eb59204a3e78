package cmd

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/internal/health"
)

// BuildVersion is what a git-mem binary knows of its own build: the module
// version go install recorded, and the commit it was built from when the
// build stamped it (go build in a checkout does; -buildvcs=false does not).
type BuildVersion struct {
	// Version is the module version ("v1.2.3"), or "(devel)" for a build
	// from a checkout.
	Version string `json:"version"`
	// Commit is the full commit hash, Time its commit time (RFC 3339), and
	// Modified whether the worktree had uncommitted changes.
	Commit   string `json:"commit,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	// Go is the toolchain that built the binary.
	Go string `json:"go"`
}

// readBuildInfo is debug.ReadBuildInfo; tests replace it.
var readBuildInfo = debug.ReadBuildInfo

// Version reads the running binary's build information.
func Version() BuildVersion {
	v := BuildVersion{Version: "(devel)", Go: runtime.Version()}
	info, ok := readBuildInfo()
	if !ok {
		return v
	}
	if info.Main.Version != "" {
		v.Version = info.Main.Version
	}
	if info.GoVersion != "" {
		v.Go = info.GoVersion
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// String is the version as one line: "v1.2.3", or for a build from a
// checkout "(devel) 3f2a9c41d0e8 2026-11-30T08:00:00Z modified".
func (v BuildVersion) String() string {
	parts := []string{v.Version}
	if v.Commit != "" {
		parts = append(parts, shortCommit(v.Commit))
	}
	if v.Time != "" {
		parts = append(parts, v.Time)
	}
	if v.Modified {
		parts = append(parts, "modified")
	}
	return strings.Join(parts, " ")
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

type versionOptions struct {
	json bool
}

func newVersionCmd(env *Env) *cobra.Command {
	o := &versionOptions{}
	c := &cobra.Command{
		Use:   "version [--json]",
		Short: "Print git-mem's version and the commit it was built from",
		Long: `Print the version of this git-mem binary, as the build recorded it: the
module version (go install ...@v1.2.3), else "(devel)" with the commit, its
time and whether the checkout had uncommitted changes. git mem --version
prints the same line.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVersion(cmd.Context(), env, o)
		},
	}
	c.Flags().BoolVar(&o.json, "json", false, "print JSON")
	return c
}

func runVersion(_ context.Context, env *Env, o *versionOptions) error {
	v := Version()
	if o.json {
		return writeJSON(env.Out, v)
	}
	fmt.Fprint(env.Out, versionLine())
	return nil
}

// versionLine is what git mem --version and git mem version print.
func versionLine() string {
	v := Version()
	return fmt.Sprintf("git-mem version %s (%s)\n", v, v.Go)
}

// checkVersion is doctor's first line: which git-mem is answering.
func checkVersion(context.Context, *Env, *gitstore.Set, *doctorOptions) []health.Finding {
	v := Version()
	return []health.Finding{{Check: "version", Status: health.OK, Message: "git-mem " + v.String() + " (" + v.Go + ")"}}
}
