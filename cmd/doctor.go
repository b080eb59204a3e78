package cmd

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/internal/health"
	"github.com/git-mem/git-mem/memerr"
)

type doctorOptions struct {
	remote  string
	offline bool
	json    bool
}

// doctorCheck is one group of health checks.
type doctorCheck func(ctx context.Context, env *Env, set *gitstore.Set, o *doctorOptions) []health.Finding

// doctorChecks are doctor's checks in the order of its report: which
// git-mem is answering first, then git, the stores, the remote and the
// optional parts. A new check is added here.
func doctorChecks() []doctorCheck {
	return []doctorCheck{
		checkVersion,
		checkGit,
		checkRefs,
		checkPersonal,
		checkRemote,
		checkLinks,
		checkEmbeddings,
		checkInstalled,
		checkManPages,
	}
}

func newDoctorCmd(env *Env) *cobra.Command {
	o := &doctorOptions{}
	c := &cobra.Command{
		Use:   "doctor [--remote REMOTE] [--offline] [--json]",
		Short: "Check the memory store and whether the team's memory was fetched",
		Long: `Check that git is usable, that every refs/memory/* ref is well formed and
readable, that no lock file was left behind, where the personal store is, and
whether the remote has memory this repository never fetched or merged (asked
with git ls-remote: nothing is downloaded; --offline skips it). Each problem
comes with the command that fixes it. Exit 1 when a check fails.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDoctor(cmd.Context(), env, o)
		},
	}
	c.Flags().StringVar(&o.remote, "remote", "", "the `remote` to compare with (default: as git mem pull chooses)")
	c.Flags().BoolVar(&o.offline, "offline", false, "do not contact the remote")
	c.Flags().BoolVar(&o.json, "json", false, "print the findings as JSON")
	return c
}

func runDoctor(ctx context.Context, env *Env, o *doctorOptions) error {
	set, err := env.openSetAsIs()
	if err != nil {
		return err
	}
	findings := []health.Finding{}
	for _, check := range doctorChecks() {
		findings = append(findings, check(ctx, env, set, o)...)
	}
	failed := &doctorFailed{}
	for i, f := range findings {
		findings[i].Fix = fixWords(f)
		if f.Status == health.Fail {
			failed.checks = append(failed.checks, f.Check)
			failed.damaged = failed.damaged || damageFixes[f.Action]
		}
	}
	if o.json {
		if err := writeJSON(env.Out, map[string]any{"ok": len(failed.checks) == 0, "findings": findings}); err != nil {
			return err
		}
	} else {
		for _, f := range findings {
			fmt.Fprintf(env.Out, "%-5s %s: %s\n", f.Status, terminalSafe(f.Check, false), terminalSafe(f.Message, true))
			if f.Fix != "" {
				fmt.Fprintf(env.Out, "      fix: %s\n", terminalSafe(f.Fix, false))
			}
		}
	}
	if len(failed.checks) > 0 {
		return failed
	}
	return nil
}

// doctorFailed is doctor's error: which checks failed. It is
// memerr.ErrCorrupt only when one of them found the memory damaged: a
// missing binary or an unreachable remote is no damage to the store.
type doctorFailed struct {
	checks  []string
	damaged bool
}

func (e *doctorFailed) Error() string {
	what := fmt.Sprintf("%d check failed (%s); see the fix under it", len(e.checks), strings.Join(e.checks, ", "))
	if len(e.checks) > 1 {
		what = fmt.Sprintf("%d checks failed (%s); see the fix under each", len(e.checks), strings.Join(e.checks, ", "))
	}
	if e.damaged {
		return memerr.ErrCorrupt.Error() + ": " + what
	}
	return what
}

// Is makes errors.Is(err, memerr.ErrCorrupt) true when the store is damaged.
func (e *doctorFailed) Is(target error) bool { return e.damaged && target == memerr.ErrCorrupt }

// damageFixes are the fixes of findings that the memory itself is damaged:
// objects missing or unreadable, invalid documents, a personal store that
// is no repository.
var damageFixes = map[health.FixAction]bool{
	health.FixRestore: true, health.FixForget: true, health.FixForgetEach: true,
	health.FixFindGoodVersion: true, health.FixRecreatePersonal: true,
}

func checkGit(ctx context.Context, _ *Env, _ *gitstore.Set, _ *doctorOptions) []health.Finding {
	return []health.Finding{gitVersion(ctx)}
}

// gitVersion runs git --version; sharing needs the git command.
func gitVersion(ctx context.Context) health.Finding {
	f := health.Finding{Check: "git"}
	git, err := exec.LookPath("git")
	if err != nil {
		f.Status, f.Message, f.Fix = health.Fail, "the git command is not on PATH: push, pull and sync cannot run", "install git"
		return f
	}
	out, err := exec.CommandContext(ctx, git, "--version").Output()
	if err != nil {
		f.Status, f.Message = health.Fail, "git --version failed: "+err.Error()
		return f
	}
	f.Status, f.Message = health.OK, strings.TrimSpace(string(out))
	return f
}

func checkRefs(ctx context.Context, _ *Env, set *gitstore.Set, _ *doctorOptions) []health.Finding {
	if !set.InRepo() {
		return []health.Finding{{Check: "repository", Status: health.Info, Message: "not inside a git repository: only the personal store is in use"}}
	}
	return set.Repo.CheckMemoryRefs(ctx)
}

func checkPersonal(context.Context, *Env, *gitstore.Set, *doctorOptions) []health.Finding {
	f, bad := gitstore.CheckPersonal()
	// the personal store's invalid documents are told within its finding
	for _, b := range bad {
		f.Message += "\n  " + b.Check + ": " + b.Message + " (fix: " + fixWords(b) + ")"
	}
	return []health.Finding{f}
}

// fixWords is a finding's fix as the CLI says it: the store names the
// operation (Action), the CLI its command.
func fixWords(f health.Finding) string {
	switch f.Action {
	case health.FixSaveOrPull:
		return "git mem add -- TEXT, or git mem pull to bring the team's"
	case health.FixRestore:
		return "git fsck; then git mem pull from a clone that has the memory"
	case health.FixForget:
		return "git mem forget " + f.Target + "   (git mem history " + f.Target + " shows its earlier versions)"
	case health.FixForgetEach:
		return "git mem forget ID for each invalid document"
	case health.FixFindGoodVersion:
		return "git mem history ID to find a good version; git fsck"
	case health.FixRecreatePersonal:
		return "move it aside; git-mem creates a new one on the next git mem add --global"
	case health.FixPush:
		return "git mem push " + f.Target
	case health.FixPull:
		return "git mem pull " + f.Target
	case health.FixMergeFetched:
		return "git mem pull --no-fetch " + f.Target
	case health.FixShare:
		return "git mem share " + f.Target + "   (git config --add remote." + f.Target + ".fetch '" + gitstore.RemoteFetchRefspec(f.Target) + "')"
	}
	return f.Fix
}

func checkRemote(ctx context.Context, env *Env, set *gitstore.Set, o *doctorOptions) []health.Finding {
	if !set.InRepo() {
		return nil
	}
	rem, err := set.Repo.ResolveRemote(ctx, o.remote)
	switch {
	case err != nil && o.remote == "" && errors.Is(err, memerr.ErrRemote):
		return []health.Finding{{Check: "remote", Status: health.Info, Message: "memory is not shared: " + message(err), Fix: "git remote add origin URL, or git config mem.remote URL"}}
	case err != nil:
		return []health.Finding{{Check: "remote", Status: health.Fail, Message: message(err)}}
	case o.offline:
		return []health.Finding{{Check: "remote " + rem.Display, Status: health.Info, Message: "not contacted (--offline)"}}
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	findings, err := set.Repo.CompareRemote(ctx, rem, env.transport())
	if err != nil {
		return []health.Finding{{Check: "remote " + rem.Display, Status: health.Warn, Message: err.Error(), Fix: "git mem doctor --offline to skip it"}}
	}
	return findings
}
