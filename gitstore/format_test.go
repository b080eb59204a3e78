package gitstore

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
	"github.com/git-mem/git-mem/internal/gittest"
	"github.com/git-mem/git-mem/memerr"
)

// TestOpenRefusesFormatsItCannotWrite: a repository whose objects or refs
// are in a format git-mem does not write is refused by every way of opening
// it, with an error that is not "no repository" (which would send a write to
// the personal store), and the formats git-mem does write are opened.
func TestOpenRefusesFormatsItCannotWrite(t *testing.T) {
	sha256 := func(t *testing.T) string { return gitInit(t, "--object-format=sha256") }
	// git 2.39 cannot create a reftable repository, nor one with the newer
	// extensions: their config is written by hand, as a newer git writes it
	withExt := func(key, value string) func(t *testing.T) string {
		return func(t *testing.T) string {
			dir := gitInit(t)
			keepGitReadable(t, dir)
			gittest.Run(t, dir, "config", "core.repositoryformatversion", "1")
			gittest.Run(t, dir, "config", "extensions."+key, value)
			return dir
		}
	}
	for _, tc := range []struct {
		name    string
		repo    func(t *testing.T) string
		refused string // the extension named, "" when the repository opens
	}{
		{"sha256", sha256, "objectformat"},
		{"reftable", withExt("refStorage", "reftable"), "refstorage"},
		{"reftable and sha256", func(t *testing.T) string {
			dir := sha256(t)
			keepGitReadable(t, dir)
			gittest.Run(t, dir, "config", "extensions.refStorage", "reftable")
			return dir
		}, "objectformat"},
		{"compat object format", withExt("compatObjectFormat", "sha256"), "compatobjectformat"},
		{"unknown extension", withExt("someFutureThing", "true"), "somefuturething"},
		{"sha1 said", withExt("objectFormat", "sha1"), ""},
		{"files refs said", withExt("refStorage", "files"), ""},
		{"worktree config", withExt("worktreeConfig", "true"), ""},
		{"partial clone", withExt("partialClone", "origin"), ""},
		{"precious objects", withExt("preciousObjects", "true"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.repo(t)
			opens := map[string]func() error{
				"Open":        func() error { _, err := Open(dir); return err },
				"OpenIn":      func() error { _, err := OpenIn(dir); return err },
				"OpenSet":     func() error { _, err := OpenSet(dir); return err },
				"OpenSetIn":   func() error { _, err := OpenSetIn(dir); return err },
				"subfolder":   func() error { _, err := Open(filepath.Join(dir, ".git", "objects")); return err },
				"Open gitdir": func() error { _, err := Open(filepath.Join(dir, ".git")); return err },
			}
			for name, open := range opens {
				err := open()
				if tc.refused == "" {
					require.NoError(t, err, name)
					continue
				}
				require.ErrorIs(t, err, memerr.ErrUnsupportedFormat, name)
				require.NotErrorIs(t, err, memerr.ErrNoRepo, name)
				var fe *memerr.FormatError
				require.True(t, errors.As(err, &fe), name)
				require.Equal(t, tc.refused, fe.Extension, name)
				require.Contains(t, err.Error(), "wrote nothing", name)
			}
		})
	}
}

// TestPersonalStoreIsSHA1WhateverTheDefault: git-mem creates the personal
// store in the format it writes, even when the user's new repositories
// default to SHA-256.
func TestPersonalStoreIsSHA1WhateverTheDefault(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("GIT_DEFAULT_HASH", "sha256")
	r, created, err := OpenPersonal(true)
	require.NoError(t, err)
	require.True(t, created)
	cfg, err := os.ReadFile(filepath.Join(r.CommonDir, "config"))
	require.NoError(t, err)
	require.NotContains(t, string(cfg), "sha256")
	add(t, NewStore(r, RefMain, ScopePersonal), "a personal preference")
	require.Empty(t, gitstoretest.GitVerdict(r.CommonDir))
}

// keepGitReadable puts the repository's config back as it is now when the
// test ends, before git judges the repository: this git refuses the
// extensions a test fakes, which a newer git would read.
func keepGitReadable(t *testing.T, dir string) {
	t.Helper()
	path := filepath.Join(dir, ".git", "config")
	cfg, err := os.ReadFile(path)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, os.WriteFile(path, cfg, 0o644)) })
}
