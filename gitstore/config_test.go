package gitstore

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-mem/git-mem/internal/gittest"
	"github.com/stretchr/testify/require"
)

// TestMemSettingsFollowIncludes: git-mem's own settings are read as git
// config --get reads them, include and includeIf followed, later settings
// winning, settings given to a calling git by git -c too; without any of
// those, the files' own values.
func TestMemSettingsFollowIncludes(t *testing.T) {
	for _, tc := range []struct {
		name string
		// set writes the configuration of the repository at dir, whose
		// global config file is global
		set  func(t *testing.T, dir, global string)
		want map[string]string // "section.subsection.key" -> value
	}{
		{"no include", func(t *testing.T, dir, _ string) {
			gittest.Run(t, dir, "config", "mem.agent", "local")
		}, map[string]string{"mem..agent": "local"}},
		{"include in the repository", func(t *testing.T, dir, _ string) {
			writeFile(t, filepath.Join(dir, ".git", "mem.inc"), "[mem]\n\tagent = included\n\tinjectChars = 1234\n[mem \"embed\"]\n\turl = http://127.0.0.1:9/v1\n")
			gittest.Run(t, dir, "config", "include.path", "mem.inc")
		}, map[string]string{"mem..agent": "included", "mem..injectchars": "1234", "mem.embed.url": "http://127.0.0.1:9/v1"}},
		{"includeIf gitdir in the global file", func(t *testing.T, dir, global string) {
			writeFile(t, filepath.Join(filepath.Dir(global), "work.inc"), "[mem]\n\tagent = work-agent\n\tpromptChars = 99\n")
			writeFile(t, global, "[includeIf \"gitdir:"+dir+"/\"]\n\tpath = work.inc\n")
		}, map[string]string{"mem..agent": "work-agent", "mem..promptchars": "99"}},
		{"includeIf of another directory", func(t *testing.T, dir, global string) {
			writeFile(t, filepath.Join(filepath.Dir(global), "work.inc"), "[mem]\n\tagent = work-agent\n")
			writeFile(t, global, "[mem]\n\tagent = home-agent\n[includeIf \"gitdir:/elsewhere/\"]\n\tpath = work.inc\n")
		}, map[string]string{"mem..agent": "home-agent"}},
		{"a later setting wins over the include", func(t *testing.T, dir, _ string) {
			writeFile(t, filepath.Join(dir, ".git", "mem.inc"), "[mem]\n\tagent = included\n\tpushVerify = true\n")
			gittest.Run(t, dir, "config", "include.path", "mem.inc")
			gittest.Run(t, dir, "config", "mem.agent", "local")
		}, map[string]string{"mem..agent": "local", "mem..pushverify": "true"}},
		{"git -c of a calling git", func(t *testing.T, dir, _ string) {
			gittest.Run(t, dir, "config", "mem.agent", "local")
			t.Setenv("GIT_CONFIG_COUNT", "1")
			t.Setenv("GIT_CONFIG_KEY_0", "mem.agent")
			t.Setenv("GIT_CONFIG_VALUE_0", "from-git-c")
		}, map[string]string{"mem..agent": "from-git-c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			global := filepath.Join(home, "gitconfig")
			writeFile(t, global, "")
			t.Setenv("HOME", home)
			t.Setenv("GIT_CONFIG_GLOBAL", global)
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			dir := gitInit(t)
			tc.set(t, dir, global)
			r, err := Open(dir)
			require.NoError(t, err)
			for name, want := range tc.want {
				parts := strings.SplitN(name, ".", 3)
				require.Equal(t, want, r.Config().Get(parts[0], parts[1], parts[2]), name)
				// what git itself reads
				key := parts[0] + "." + parts[2]
				if parts[1] != "" {
					key = parts[0] + "." + parts[1] + "." + parts[2]
				}
				c := exec.Command("git", "-C", dir, "config", "--get", key)
				out, err := c.Output()
				require.NoError(t, err, key)
				require.Equal(t, want, strings.TrimSpace(string(out)), key)
			}
		})
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
}
