package cmd_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
)

// gitDirListing is every file under a git directory with its size and
// mode: what a command wrote there, if anything.
func gitDirListing(t *testing.T, gitDir string) string {
	t.Helper()
	var lines []string
	require.NoError(t, filepath.WalkDir(gitDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(gitDir, path)
		size := int64(0)
		if !d.IsDir() {
			size = info.Size()
		}
		lines = append(lines, fmt.Sprintf("%s %v %d", rel, info.Mode(), size))
		return nil
	}))
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestUnsupportedFormatsWriteNothing: in a SHA-256 repository, and in one
// whose refs are in the reftable format, every command that writes
// (add, revise, forget, purge, import, handoff, sync with a second clone,
// the hooks' session notes, the MCP server's memory_add) fails with words
// that name the format and say that nothing was written, every read fails
// the same way, and the repositories' git directories are byte for byte
// what they were: git fsck --strict stays clean and git gc works.
func TestUnsupportedFormatsWriteNothing(t *testing.T) {
	for _, format := range []struct {
		name string
		// init makes the repository in dir; words are in every refusal
		init  func(sb *sandbox, dir string)
		words string
	}{
		{"sha256", func(sb *sandbox, dir string) {
			gitAt(sb, sb.home, "init", "-q", "-b", "main", "--object-format=sha256", dir)
		}, "names its objects with SHA-256 (extensions.objectFormat=sha256)"},
		{"reftable", func(sb *sandbox, dir string) {
			// git 2.45 makes one with --ref-format=reftable; an older git is
			// shown one by its config, as a newer git writes it, and that
			// config is put back before git judges the repository
			gitAt(sb, sb.home, "init", "-q", "-b", "main", dir)
			cfgPath := filepath.Join(dir, ".git", "config")
			if _, err := os.Stat(cfgPath); err != nil {
				cfgPath = filepath.Join(dir, "config") // bare
			}
			cfg, err := os.ReadFile(cfgPath)
			require.NoError(sb.t, err)
			sb.t.Cleanup(func() { require.NoError(sb.t, os.WriteFile(cfgPath, cfg, 0o644)) })
			faked := strings.Replace(string(cfg), "repositoryformatversion = 0", "repositoryformatversion = 1", 1) + "[extensions]\n\trefStorage = reftable\n"
			require.NoError(sb.t, os.WriteFile(cfgPath, []byte(faked), 0o644))
		}, "keeps its refs in the reftable format (extensions.refStorage=reftable)"},
	} {
		t.Run(format.name, func(t *testing.T) {
			sb := newSandbox(t)
			remote := filepath.Join(sb.home, "remote.git")
			a, b := filepath.Join(sb.home, "ann"), filepath.Join(sb.home, "bob")
			if format.name == "sha256" {
				// real clones: the remote and both clones are SHA-256
				gitAt(sb, sb.home, "init", "-q", "--bare", "-b", "main", "--object-format=sha256", remote)
				gitstoretest.CheckedByGit(t, remote)
				seed := filepath.Join(sb.home, "seed")
				format.init(sb, seed)
				gitstoretest.CheckedByGit(t, seed)
				require.NoError(t, os.WriteFile(filepath.Join(seed, "README"), []byte("code\n"), 0o644))
				gitAt(sb, seed, "add", "README")
				gitAt(sb, seed, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-m", "code")
				gitAt(sb, seed, "push", "-q", remote, "main")
				for _, dir := range []string{a, b} {
					gitAt(sb, sb.home, "clone", "-q", remote, dir)
					gitstoretest.CheckedByGit(t, dir)
				}
			} else {
				gitAt(sb, sb.home, "init", "-q", "--bare", "-b", "main", remote)
				gitstoretest.CheckedByGit(t, remote)
				for _, dir := range []string{a, b} {
					// checked after init's cleanup put the config back
					gitstoretest.CheckedByGit(t, dir)
					format.init(sb, dir)
				}
			}
			require.NoError(t, os.WriteFile(filepath.Join(sb.home, "notes.md"), []byte("# Notes\n\n- Bookings are stored in UTC\n"), 0o644))
			before := map[string]string{}
			for _, dir := range []string{a, b, remote} {
				before[dir] = gitDirListing(t, gitDirOf(dir))
			}

			refused := func(dir string, args ...string) {
				t.Helper()
				out, errOut, code := sb.memIn(dir, args...)
				require.Equal(t, 1, code, "git mem %s: %s%s", strings.Join(args, " "), out, errOut)
				require.Contains(t, errOut, format.words, strings.Join(args, " "))
				require.Contains(t, errOut, "wrote nothing", strings.Join(args, " "))
				require.Contains(t, errOut, "git mem add --global", strings.Join(args, " "))
			}
			for _, args := range [][]string{
				{"add", "--", "Bookings are stored in UTC"},
				{"add", "--private", "--", "Bookings are stored in UTC"},
				{"add", "--global", "--", "Bookings are stored in UTC"},
				{"revise", "abcdef", "--", "Bookings are stored in local time"},
				{"confirm", "abcdef"},
				{"forget", "abcdef"},
				{"forget", "--purge", "abcdef"},
				{"import", filepath.Join(sb.home, "notes.md")},
				{"handoff", "--done", "the booking fix", "--next", "its tests"},
				{"recall", "--", "bookings"},
				{"list"},
				{"boot"},
				{"show", "abcdef"},
				{"log"},
				{"stats"},
				{"reindex"},
				{"doctor", "--offline"},
				{"share", remote},
				{"sync", remote},
				{"pull", remote},
				{"push", remote},
			} {
				refused(a, args...)
			}
			refused(b, "sync", remote)

			// hooks never fail an agent's session: they exit 0, say nothing,
			// and write nothing either
			for _, event := range []string{"session-start", "prompt", "session-end"} {
				payload, err := json.Marshal(map[string]any{"session_id": "s1", "cwd": a, "hook_event_name": event, "prompt": "bookings", "transcript_path": filepath.Join(sb.home, "t.jsonl")})
				require.NoError(t, err)
				c := exec.Command(binary, "hook", event, "--agent", "claude")
				c.Dir, c.Env, c.Stdin = sb.home, sb.env(), bytes.NewReader(payload)
				out, err := c.Output()
				require.NoError(t, err, event)
				require.Empty(t, strings.TrimSpace(string(out)), event)
			}
			res, _ := sb.mcpProcess(a, nil, "claude-code", "memory_add", map[string]any{"text": "Bookings are stored in UTC", "type": "fact"}, "mcp")
			require.Equal(t, true, res["isError"], res)
			require.Contains(t, fmt.Sprint(res["content"]), format.words)

			for _, dir := range []string{a, b, remote} {
				require.Equal(t, before[dir], gitDirListing(t, gitDirOf(dir)), "git-mem wrote into %s", dir)
			}
			if format.name == "sha256" {
				gitAt(sb, a, "gc", "-q")
				require.Empty(t, gitAt(sb, a, "for-each-ref", "refs/memory/"))
			}
		})
	}
}

// gitDirOf is the git directory of a worktree or bare repository dir.
func gitDirOf(dir string) string {
	if st, err := os.Stat(filepath.Join(dir, ".git")); err == nil && st.IsDir() {
		return filepath.Join(dir, ".git")
	}
	return dir
}

// gitAt runs git in dir with the sandbox's environment.
func gitAt(sb *sandbox, dir string, args ...string) string {
	sb.t.Helper()
	c := exec.Command("git", append([]string{"-C", dir}, args...)...)
	c.Env = sb.env()
	out, err := c.CombinedOutput()
	require.NoError(sb.t, err, "git %s: %s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}

// TestDemoWhereNewRepositoriesAreSHA256: the demo's throwaway repository
// and the personal store are made in the formats git-mem writes, when the
// user's new repositories default to SHA-256 (GIT_DEFAULT_HASH, which wins
// over init.defaultObjectFormat).
func TestDemoWhereNewRepositoriesAreSHA256(t *testing.T) {
	sb := newSandbox(t)
	sb.isolate()
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("GIT_DEFAULT_HASH", "sha256")
	out, errOut, code := sb.run("demo")
	require.Equal(t, 0, code, out+errOut)
	require.Contains(t, out, "mem: supersede")
	_, errOut, code = sb.run("add", "--global", "--", "Prefer small pull requests")
	require.Equal(t, 0, code, errOut)
	personal := filepath.Join(sb.home, "data", "git-mem", "personal.git")
	require.Equal(t, "sha1", gitAt(sb, personal, "rev-parse", "--show-object-format"))
}
