package gitstore

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/stretchr/testify/require"

	"github.com/git-mem/git-mem/gitstore/gitstoretest"
)

// catFileAll is every object of the repository in dir as git itself reads
// it: hash -> type and content.
func catFileAll(t *testing.T, dir string) map[Hash]rawObject {
	t.Helper()
	c := exec.Command("git", "-C", dir, "cat-file", "--batch-all-objects", "--batch")
	c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := c.Output()
	require.NoError(t, err)
	types := map[string]int{"commit": objCommit, "tree": objTree, "blob": objBlob, "tag": objTag}
	all := map[Hash]rawObject{}
	r := bufio.NewReader(bytes.NewReader(out))
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		f := strings.Fields(line)
		require.Len(t, f, 3, line)
		h, ok := parseHash(f[0])
		require.True(t, ok)
		n, err := strconv.Atoi(f[2])
		require.NoError(t, err)
		data := make([]byte, n+1) // the content and its newline
		_, err = io.ReadFull(r, data)
		require.NoError(t, err)
		all[h] = rawObject{typ: types[f[1]], data: data[:n]}
	}
	return all
}

// TestPackReaderReadsWhatGitReads: after git packs a store of memories
// that were revised many times (so that its trees and blobs are deltas,
// against an offset and, with repack.useDeltaBaseOffset off, against a
// hash), every object the reader finds is the one git cat-file shows, and
// it finds every packed object.
func TestPackReaderReadsWhatGitReads(t *testing.T) {
	for _, ofs := range []string{"true", "false"} {
		t.Run("useDeltaBaseOffset="+ofs, func(t *testing.T) {
			ctx, w := context.Background(), Writer{Agent: "test"}
			dir, st := projectStoreOnDisk(t)
			var ids []string
			for i := 0; i < 60; i++ {
				m, err := st.Add(ctx, w, NewMemory{Type: TypeFact, Text: fmt.Sprintf("Fact %d: the nightly export of region %d runs at %02d:00 UTC and writes to bucket exports-%d.", i, i%7, i%24, i), Source: SourceUser})
				require.NoError(t, err)
				ids = append(ids, m.ID)
			}
			for i, id := range ids[:30] {
				_, err := st.Revise(ctx, w, id, fmt.Sprintf("Fact %d, revised: the nightly export of region %d runs at %02d:30 UTC and writes to bucket exports-%d-v2.", i, i%7, i%24, i))
				require.NoError(t, err)
			}
			runGit(t, dir, "-c", "repack.useDeltaBaseOffset="+ofs, "gc", "-q", "--aggressive", "--prune=now")
			loose, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "??", "*"))
			require.Empty(t, loose, "git gc packed everything")
			verify := runGit(t, dir, "verify-pack", "-v", filepath.Join(dir, ".git", "objects", "pack", mustGlobOne(t, filepath.Join(dir, ".git", "objects", "pack", "*.idx"))))
			require.Contains(t, verify, "chain length", "the pack holds deltas")

			all := catFileAll(t, dir)
			require.Greater(t, len(all), 200)
			p := newPackReader(filepath.Join(dir, ".git", "objects"))
			defer p.close()
			for h, want := range all {
				got, err := p.read(h)
				require.NoError(t, err, h.String())
				require.Equal(t, want.typ, got.typ, h.String())
				require.True(t, bytes.Equal(want.data, got.data), h.String())
			}
			_, err := p.read(Hash{1, 2, 3})
			require.ErrorIs(t, err, errNotInPacks)

			// and the store reads through it: every memory, as before the gc
			repo2, err := Open(dir)
			require.NoError(t, err)
			ms, err := NewStore(repo2, RefMain, ScopeProject).List(Filter{})
			require.NoError(t, err)
			require.Len(t, ms, 60)
		})
	}
}

func mustGlobOne(t *testing.T, pattern string) string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	require.NoError(t, err)
	require.Len(t, m, 1)
	return filepath.Base(m[0])
}

func TestApplyDeltaRejectsBadDeltas(t *testing.T) {
	base := []byte("hello, world")
	tests := []struct {
		name  string
		delta []byte
		want  string
		ok    bool
	}{
		{"copy and insert", []byte{12, 7, 0x90, 5, 2, '!', '!'}, "hello!!", true},
		{"source size wrong", []byte{11, 5, 0x90, 5}, "", false},
		{"copy past the base", []byte{12, 20, 0x91, 8, 20}, "", false},
		{"insert past the delta", []byte{12, 3, 5, 'a'}, "", false},
		{"result size wrong", []byte{12, 9, 0x90, 5}, "", false},
		{"truncated sizes", []byte{0x80}, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := applyDelta(base, tc.delta)
			if !tc.ok {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got))
		})
	}
}

// TestPackReaderAfterNewLooseObjects: objects written loose after the
// reader listed their directories are still read (loose, once the packs do
// not hold them), and so are objects packed after it listed the packs.
func TestPackReaderAfterNewLooseObjects(t *testing.T) {
	ctx, w := context.Background(), Writer{Agent: "test"}
	dir, st := projectStoreOnDisk(t)
	for i := 0; i < 40; i++ {
		_, err := st.Add(ctx, w, NewMemory{Type: TypeFact, Text: fmt.Sprintf("Packed fact %d about the ledger.", i), Source: SourceUser})
		require.NoError(t, err)
	}
	runGit(t, dir, "gc", "-q", "--prune=now")
	repo, err := Open(dir)
	require.NoError(t, err)
	st = NewStore(repo, RefMain, ScopeProject)
	ms, err := st.List(Filter{})
	require.NoError(t, err)
	require.Len(t, ms, 40, "read from the pack; every loose directory listed (empty)")
	for i := 0; i < 40; i++ {
		_, err := st.Add(ctx, w, NewMemory{Type: TypeFact, Text: fmt.Sprintf("Loose fact %d about the invoices.", i), Source: SourceUser})
		require.NoError(t, err)
	}
	ms, err = st.List(Filter{})
	require.NoError(t, err)
	require.Len(t, ms, 80, "the new loose objects are read although their directories were listed empty")
	runGit(t, dir, "gc", "-q", "--prune=now")
	ms, err = st.List(Filter{})
	require.NoError(t, err)
	require.Len(t, ms, 80, "objects packed and pruned since are read")
}

// projectStoreOnDisk is the project store of a new repository made by git.
func projectStoreOnDisk(t *testing.T) (string, *Store) {
	t.Helper()
	dir := gitInit(t)
	repo, err := Open(dir)
	require.NoError(t, err)
	return dir, NewStore(repo, RefMain, ScopeProject)
}

// TestPackReaderReadsLooseObjects: every loose object of a store, as git
// cat-file shows it; a loose object whose header is not git's is an
// error, never content.
func TestPackReaderReadsLooseObjects(t *testing.T) {
	ctx, w := context.Background(), Writer{Agent: "test"}
	dir, st := projectStoreOnDisk(t)
	for i := 0; i < 20; i++ {
		_, err := st.Add(ctx, w, NewMemory{Type: TypeFact, Text: fmt.Sprintf("Loose fact %d: the invoice run %d starts at %02d:15.", i, i, i%24), Source: SourceUser})
		require.NoError(t, err)
	}
	all := catFileAll(t, dir)
	require.Greater(t, len(all), 60)
	p := newPackReader(filepath.Join(dir, ".git", "objects"))
	defer p.close()
	for h, want := range all {
		require.True(t, p.isLoose(h), h.String())
		got, err := p.readLoose(h)
		require.NoError(t, err, h.String())
		require.Equal(t, want.typ, got.typ, h.String())
		require.True(t, bytes.Equal(want.data, got.data), h.String())
	}

	for name, raw := range map[string]string{
		"unknown type":  "note 3\x00abc",
		"no size":       "blob\x00abc",
		"bad size":      "blob x\x00abc",
		"short content": "blob 10\x00abc",
		"no header end": strings.Repeat("b", 40),
	} {
		gitstoretest.Damaged(dir)
		t.Run(name, func(t *testing.T) {
			h := Hash{0xfe, byte(len(name))}
			path := filepath.Join(dir, ".git", "objects", h.String()[:2], h.String()[2:])
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			var buf bytes.Buffer
			zw := zlib.NewWriter(&buf)
			_, err := zw.Write([]byte(raw))
			require.NoError(t, err)
			require.NoError(t, zw.Close())
			require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o444))
			_, err = p.readLoose(h)
			require.Error(t, err)
		})
	}
}

// TestDecodeTreeEntriesAsGoGit: every tree of a store, decoded by
// readTree, has the entries go-git decodes; a tree not in git's format is
// an error.
func TestDecodeTreeEntriesAsGoGit(t *testing.T) {
	ctx, w := context.Background(), Writer{Agent: "test"}
	dir, st := projectStoreOnDisk(t)
	for i := 0; i < 30; i++ {
		_, err := st.Add(ctx, w, NewMemory{Type: TypeFact, Text: fmt.Sprintf("Tree fact %d: the batch %d runs at %02d:45.", i, i, i%24), Source: SourceUser, Paths: []string{fmt.Sprintf("jobs/batch_%d.go", i)}})
		require.NoError(t, err)
	}
	for _, packed := range []bool{false, true} {
		if packed {
			runGit(t, dir, "gc", "-q", "--prune=now")
		}
		repo, err := Open(dir)
		require.NoError(t, err)
		trees := 0
		for h, o := range catFileAll(t, dir) {
			if o.typ != objTree {
				continue
			}
			trees++
			got, err := repo.readTree(h)
			require.NoError(t, err)
			want, err := object.DecodeTree(newMemObjects(), goGitObject(t, plumbing.TreeObject, o.data))
			require.NoError(t, err)
			require.Equal(t, goGitEntries(want.Entries), got.Entries, h.String())
			require.Equal(t, want.Hash, got.Hash, h.String())
			// and written back, it is what go-git writes
			enc, err := encodeTree(got.Entries)
			require.NoError(t, err)
			require.Equal(t, goGitEncoding(t, want), enc, h.String())
		}
		require.Greater(t, trees, 30, "packed %v", packed)
		// and git finds nothing to say about the objects git-mem wrote
		runGit(t, dir, "fsck", "--strict", "--no-dangling")
	}

	for name, raw := range map[string]string{
		"no mode":     " name\x00" + strings.Repeat("a", 20),
		"bad mode":    "10x644 name\x00" + strings.Repeat("a", 20),
		"no name":     "100644 \x00" + strings.Repeat("a", 20),
		"short hash":  "100644 name\x00" + strings.Repeat("a", 19),
		"no name end": "100644 name",
	} {
		_, err := decodeTreeEntries([]byte(raw))
		require.ErrorIs(t, err, errBadTree, name)
	}
}

// goGitObject is content as a go-git object of type typ.
func goGitObject(t *testing.T, typ plumbing.ObjectType, data []byte) *plumbing.MemoryObject {
	o := &plumbing.MemoryObject{}
	o.SetType(typ)
	_, err := o.Write(data)
	require.NoError(t, err)
	return o
}

// goGitEncoding is the content go-git writes for o.
func goGitEncoding(t *testing.T, o interface {
	Encode(plumbing.EncodedObject) error
}) []byte {
	mo := &plumbing.MemoryObject{}
	require.NoError(t, o.Encode(mo))
	r, err := mo.Reader()
	require.NoError(t, err)
	data, err := io.ReadAll(r)
	require.NoError(t, err)
	return data
}

func goGitEntries(es []object.TreeEntry) []treeEntry {
	out := make([]treeEntry, len(es))
	for i, e := range es {
		out[i] = treeEntry{Name: e.Name, Mode: e.Mode, Hash: e.Hash}
	}
	return out
}

// TestCommitsAsGoGit: every commit of a store, git-mem's and git's (a
// merge, a commit with a signature header, one in another time zone), is
// decoded as go-git decodes it, and a commit git-mem writes is the object
// go-git would write; commits that are not in git's format are errors.
func TestCommitsAsGoGit(t *testing.T) {
	ctx, w := context.Background(), Writer{Agent: "test"}
	dir, st := projectStoreOnDisk(t)
	for i := 0; i < 5; i++ {
		_, err := st.Add(ctx, w, NewMemory{Type: TypeFact, Text: fmt.Sprintf("Commit fact %d: the queue %d drains at %02d:15.", i, i, i), Source: SourceUser})
		require.NoError(t, err)
	}
	// commits git writes: on a branch of their own, a merge, a signature
	// header (as a signing setup adds) and a zone west of Greenwich
	runGit(t, dir, "commit", "-q", "--allow-empty", "-m", "first")
	runGit(t, dir, "checkout", "-q", "-b", "side")
	runGit(t, dir, "commit", "-q", "--allow-empty", "-m", "side\n\nbody line")
	runGit(t, dir, "checkout", "-q", "-")
	runGit(t, dir, "commit", "-q", "--allow-empty", "-m", "main")
	runGit(t, dir, "merge", "-q", "--no-ff", "-m", "merge side", "side")
	head := strings.TrimSpace(runGit(t, dir, "rev-parse", "HEAD"))
	raw := runGit(t, dir, "cat-file", "commit", head)
	signed := strings.Replace(raw, "\n\n", "\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n abcdef\n -----END PGP SIGNATURE-----\n\n", 1)
	signed = strings.Replace(signed, "+0000", "-0330", -1)
	hashObject := exec.Command("git", "-C", dir, "hash-object", "-t", "commit", "-w", "--stdin")
	hashObject.Stdin = strings.NewReader(signed)
	out, err := hashObject.Output()
	require.NoError(t, err)
	require.NotEmpty(t, strings.TrimSpace(string(out)))

	repo, err := Open(dir)
	require.NoError(t, err)
	commits := 0
	for h, o := range catFileAll(t, dir) {
		if o.typ != objCommit {
			continue
		}
		commits++
		got, err := repo.readCommit(h)
		require.NoError(t, err)
		want, err := object.DecodeCommit(newMemObjects(), goGitObject(t, plumbing.CommitObject, o.data))
		require.NoError(t, err)
		require.Equal(t, want.Hash, got.Hash)
		require.Equal(t, want.TreeHash, got.TreeHash, h.String())
		require.Equal(t, want.ParentHashes, got.ParentHashes, h.String())
		require.Equal(t, want.Message, got.Message, h.String())
		for _, sig := range []struct {
			want object.Signature
			got  signature
		}{{want.Author, got.Author}, {want.Committer, got.Committer}} {
			require.Equal(t, sig.want.Name, sig.got.Name, h.String())
			require.Equal(t, sig.want.Email, sig.got.Email, h.String())
			require.True(t, sig.want.When.Equal(sig.got.When), h.String())
			require.Equal(t, sig.want.When.Format("-0700"), sig.got.When.Format("-0700"), h.String())
		}
		// written back without a signature, it is what go-git writes
		want.PGPSignature = ""
		require.Equal(t, string(goGitEncoding(t, want)), string(got.encode()), h.String())
	}
	require.Equal(t, 10, commits, "5 of git-mem, 4 of git, 1 signed in another zone")

	for name, raw := range map[string]string{
		"no tree":    "author A <a> 1 +0000\ncommitter A <a> 1 +0000\n\nmsg",
		"bad tree":   "tree xyz\nauthor A <a> 1 +0000\n\nmsg",
		"bad parent": "tree " + strings.Repeat("a", 40) + "\nparent 12\n\nmsg",
	} {
		_, err := decodeCommit(plumbing.ZeroHash, []byte(raw))
		require.ErrorIs(t, err, ErrCorrupt, name)
	}
	// headers without the line that ends them: no message, as go-git reads it
	c, err := decodeCommit(plumbing.ZeroHash, []byte("tree "+strings.Repeat("a", 40)+"\nauthor A <a> 1 +0100"))
	require.NoError(t, err)
	require.Equal(t, "A", c.Author.Name)
	require.Empty(t, c.Message)
	// a second author or committer line (git fsck's multipleAuthors): the
	// first counts, as git reads it
	c, err = decodeCommit(plumbing.ZeroHash, []byte("tree "+strings.Repeat("a", 40)+"\nauthor A <a> 1 +0000\ncommitter C <c> 2 +0000\nauthor X <x> 3 +0000\ncommitter Y <y> 4 +0000\n\nm"))
	require.NoError(t, err)
	require.Equal(t, "A", c.Author.Name)
	require.Equal(t, "C", c.Committer.Name)
}
