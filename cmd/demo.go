package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-mem/git-mem/gitstore"
)

type demoOptions struct {
	keep bool
}

func newDemoCmd(env *Env) *cobra.Command {
	o := &demoOptions{}
	c := &cobra.Command{
		Use:   "demo [--keep]",
		Short: "Show git-mem at work on a throwaway repository",
		Long: `Creates a throwaway git repository and shows, step by step, one agent saving
memories and a later session of another agent finding them, all in git.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDemo(cmd.Context(), env, o)
		},
	}
	c.Flags().BoolVar(&o.keep, "keep", false, "keep the throwaway repository to look around in it")
	return c
}

func runDemo(ctx context.Context, env *Env, o *demoOptions) error {
	dir, err := os.MkdirTemp("", "git-mem-demo-")
	if err != nil {
		return err
	}
	if !o.keep {
		defer os.RemoveAll(dir)
	}
	out := env.Out
	gitRun := func(args ...string) (string, error) {
		c := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
		c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Demo Dev", "GIT_AUTHOR_EMAIL=dev@example.com",
			"GIT_COMMITTER_NAME=Demo Dev", "GIT_COMMITTER_EMAIL=dev@example.com")
		// the demo's repository in the formats git-mem writes, whatever
		// format this user's new repositories default to
		c.Env = append(c.Env, gitstore.InitFormatEnv...)
		b, err := c.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, b)
		}
		return string(b), nil
	}
	writeAuth := func(body string) error {
		if err := os.MkdirAll(filepath.Join(dir, "server"), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "server", "auth.ts"), []byte(body), 0o644)
	}
	if err := writeAuth("export function requireAdmin(req) {\n  if (!req.session) throw new Error('ERR_NO_SESSION')\n}\n"); err != nil {
		return err
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"config", "user.name", "Demo Dev"},
		{"config", "user.email", "dev@example.com"},
		{"add", "."},
		{"commit", "-q", "-m", "initial commit"},
	} {
		if _, err := gitRun(args...); err != nil {
			return fmt.Errorf("demo needs the git command: %w", err)
		}
	}
	step := func(title string) { fmt.Fprintf(out, "\n== %s\n", title) }
	mem := func(args ...string) (string, error) {
		fmt.Fprintf(out, "$ git mem %s\n", quoteArgs(args))
		var buf strings.Builder
		sub := &Env{Streams: Streams{In: strings.NewReader(""), Out: &buf, Err: &buf}, Dir: dir, Getenv: func(string) string { return "" }, Now: env.Now}
		code := Run(ctx, sub, args)
		fmt.Fprint(out, indent(buf.String()))
		if code != 0 {
			return "", fmt.Errorf("git mem %s failed", quoteArgs(args))
		}
		return strings.TrimSpace(buf.String()), nil
	}
	fmt.Fprintf(out, "A throwaway repository at %s\n", dir)

	step("Tuesday: Claude Code learns three things while fixing a bug, and saves them")
	if _, err := mem("add", "--agent", "claude-code", "--type", "decision", "--", "Bookings are stored in UTC; convert to local time only in the UI"); err != nil {
		return err
	}
	if _, err := mem("add", "--agent", "claude-code", "--type", "gotcha", "--path", "server/auth.ts", "--", `requireAdmin throws "ERR_NO_SESSION" when the session cookie is missing: call loadSession() first`); err != nil {
		return err
	}
	heroku, err := mem("add", "--agent", "claude-code", "--type", "fact", "--", "We deploy with Heroku (git push heroku main)")
	if err != nil {
		return err
	}

	step("Wednesday: a teammate changes server/auth.ts, and the team moves to Fly.io")
	if err := writeAuth("export async function requireAdmin(req) {\n  await loadSession(req)\n  if (!req.session) throw new Error('ERR_NO_SESSION')\n}\n"); err != nil {
		return err
	}
	if _, err := gitRun("commit", "-q", "-am", "auth: load the session inside requireAdmin"); err != nil {
		return err
	}
	fmt.Fprintln(out, "$ git commit -am 'auth: load the session inside requireAdmin'")
	if _, err := mem("add", "--agent", "claude-code", "--supersedes", heroku, "--", "We deploy with Fly.io: fly deploy from main"); err != nil {
		return err
	}

	step("Thursday: a Codex session starts; before its first prompt, the session-start hook injects")
	payload, err := json.Marshal(map[string]any{
		"session_id": "demo-codex-session", "transcript_path": nil, "cwd": dir, "hook_event_name": "SessionStart",
		"model": "gpt-5", "permission_mode": "default", "source": "startup",
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "$ git mem hook session-start --agent codex   (Codex's payload on stdin)")
	var hookOut strings.Builder
	hookEnv := &Env{Streams: Streams{In: strings.NewReader(string(payload)), Out: &hookOut, Err: &hookOut}, Dir: dir, Getenv: func(string) string { return "" }, Now: env.Now}
	Run(ctx, hookEnv, []string{"hook", "session-start", "--agent", "codex"})
	var injected struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(hookOut.String()), &injected); err != nil {
		return fmt.Errorf("the session-start hook printed no valid output: %q", hookOut.String())
	}
	fmt.Fprint(out, indent(injected.HookSpecificOutput.AdditionalContext))

	step("Codex asks its questions")
	if _, err := mem("recall", "--", "how do we deploy?"); err != nil {
		return err
	}
	if _, err := mem("recall", "--", `why does requireAdmin fail with ERR_NO_SESSION in server/auth.ts`); err != nil {
		return err
	}
	fmt.Fprintln(out, "(the gotcha is flagged: the file it is about changed since it was written)")
	step("Nothing relevant means nothing returned, not a guess")
	if _, err := mem("recall", "--json", "--", "what is the capital of Peru?"); err != nil {
		return err
	}
	step("Everything current, from every agent")
	if _, err := mem("list"); err != nil {
		return err
	}
	step("The superseded fact is not served as current, but history keeps it")
	if _, err := mem("list", "--all"); err != nil {
		return err
	}
	if _, err := mem("history", heroku); err != nil {
		return err
	}

	step("It is all plain git: the audit log of refs/memory/main")
	logOut, err := gitRun("log", "--format=%h %an  %s", "refs/memory/main")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "$ git log --format='%%h %%an  %%s' refs/memory/main\n%s", indent(logOut))
	fmt.Fprintln(out, "\nPush it with your code (git push origin refs/memory/main) and every teammate's agent")
	fmt.Fprintln(out, "reads it too. Set up an agent: see the README.")
	if o.keep {
		fmt.Fprintf(out, "\nThe repository stays at %s; remove it with rm -rf when done.\n", dir)
	}
	return nil
}

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, " \"'$`\\") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}

func indent(s string) string {
	if s == "" {
		return ""
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return "    " + strings.Join(lines, "\n    ") + "\n"
}
