package gitstore

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-mem/git-mem/memerr"
	"github.com/stretchr/testify/require"
)

func TestRemoteRefPushRefFetchRefs(t *testing.T) {
	w := newRemoteWorld(t)
	ctx := context.Background()
	_, r := w.clone("Ann")
	rem := w.origin(r)
	const ref = "refs/memory/proposals/ann/0123456789abcdef"
	when := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	one, err := r.WriteCommit(nil, nil, "mem: one\n", when, "", "")
	require.NoError(t, err)
	two, err := r.WriteCommit([]Hash{one}, nil, "mem: two\n", when, "", "")
	require.NoError(t, err)
	remoteAt := func() Hash {
		t.Helper()
		h, err := r.RemoteRef(ctx, rem, ref, TransportOptions{})
		require.NoError(t, err)
		return h
	}
	var busy *memerr.BusyError

	require.True(t, remoteAt().IsZero(), "no such ref yet")
	require.ErrorAs(t, r.PushRef(ctx, rem, ref, one, two, TransportOptions{}), &busy, "the ref is not at from")
	require.True(t, remoteAt().IsZero())
	require.NoError(t, r.PushRef(ctx, rem, ref, zeroHash, one, TransportOptions{}))
	require.Equal(t, one, remoteAt())
	require.ErrorAs(t, r.PushRef(ctx, rem, ref, zeroHash, two, TransportOptions{}), &busy, "the ref exists")
	require.NoError(t, r.PushRef(ctx, rem, ref, one, two, TransportOptions{}))
	require.Equal(t, two, remoteAt())

	const tracking = "refs/memory/remotes/origin/proposals/"
	require.NoError(t, r.FetchRefs(ctx, rem, TransportOptions{}, "+refs/memory/proposals/*:"+tracking+"*"))
	got, err := r.ListRefs(tracking)
	require.NoError(t, err)
	require.Equal(t, map[string]Hash{tracking + "ann/0123456789abcdef": two}, got)
	c, err := r.ReadCommit(two)
	require.NoError(t, err)
	require.Equal(t, "mem: two\n", c.Message)

	require.ErrorAs(t, r.PushRef(ctx, rem, ref, one, zeroHash, TransportOptions{}), &busy, "a delete leases too")
	require.NoError(t, r.PushRef(ctx, rem, ref, two, zeroHash, TransportOptions{}))
	require.True(t, remoteAt().IsZero(), "a zero to deletes the ref")
	require.NoError(t, r.FetchRefs(ctx, rem, TransportOptions{}, "+refs/memory/proposals/*:"+tracking+"*"))
	got, err = r.ListRefs(tracking)
	require.NoError(t, err)
	require.Empty(t, got, "what the remote no longer has is pruned")

	hook := filepath.Join(w.remote, "hooks", "pre-receive")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\necho 'proposals are closed' >&2\nexit 1\n"), 0o755))
	err = r.PushRef(ctx, rem, ref, zeroHash, one, TransportOptions{})
	require.ErrorIs(t, err, memerr.ErrRemote)
	require.Contains(t, err.Error(), "proposals are closed", "the host's message is kept")

	gone := &Remote{Display: "gone", Slug: "gone", arg: filepath.Join(w.root, "no-such.git")}
	_, err = r.RemoteRef(ctx, gone, ref, TransportOptions{})
	require.ErrorIs(t, err, memerr.ErrRemote)
	require.Error(t, r.FetchRefs(ctx, gone, TransportOptions{}, "+refs/memory/proposals/*:"+tracking+"*"))
}

// TestRemoteRefsStayUnderMemory: the remote calls touch refs under
// refs/memory/ only, whatever a caller passes; nothing is run for others.
func TestRemoteRefsStayUnderMemory(t *testing.T) {
	w := newRemoteWorld(t)
	ctx := context.Background()
	_, r := w.clone("Ann")
	rem := w.origin(r)
	one, err := r.WriteCommit(nil, nil, "mem: one\n", time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), "", "")
	require.NoError(t, err)
	refsOf := func(dir string) string {
		t.Helper()
		out, err := exec.Command("git", "-C", dir, "for-each-ref", "--format=%(refname) %(objectname)").Output()
		require.NoError(t, err)
		return string(out)
	}
	remoteBefore, localBefore := refsOf(w.remote), refsOf(r.GitDir)
	for _, ref := range []string{"refs/heads/main", "HEAD", "refs/memory", "refs/memory/../heads/main", "refs/tags/v1"} {
		_, err := r.RemoteRef(ctx, rem, ref, TransportOptions{})
		require.ErrorIs(t, err, memerr.ErrInvalid, ref)
		require.ErrorIs(t, r.PushRef(ctx, rem, ref, zeroHash, one, TransportOptions{}), memerr.ErrInvalid, ref)
		require.ErrorIs(t, r.FetchRefs(ctx, rem, TransportOptions{}, "+"+ref+":refs/memory/remotes/x/y"), memerr.ErrInvalid, ref)
		require.ErrorIs(t, r.FetchRefs(ctx, rem, TransportOptions{}, "+refs/memory/main:"+ref), memerr.ErrInvalid, ref)
	}
	require.ErrorIs(t, r.FetchRefs(ctx, rem, TransportOptions{}, "refs/memory/main"), memerr.ErrInvalid, "no destination")
	require.Equal(t, remoteBefore, refsOf(w.remote), "nothing pushed")
	require.Equal(t, localBefore, refsOf(r.GitDir), "nothing fetched")
}
