package gitobj

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-mem/git-mem/internal/gittest"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/stretchr/testify/require"
)

// commitFiles has git commit n files, one commit each, named and filled by
// format and their number, in directories of their own: blobs, trees and
// commits, loose.
func commitFiles(t testing.TB, dir string, n int, format string) {
	t.Helper()
	for i := 0; i < n; i++ {
		name := filepath.Join(dir, "jobs", fmt.Sprintf("d%d", i%4), fmt.Sprintf("f%d.txt", i))
		require.NoError(t, os.MkdirAll(filepath.Dir(name), 0o755))
		require.NoError(t, os.WriteFile(name, []byte(fmt.Sprintf(format, i)+"\n"), 0o644))
		gittest.Run(t, dir, "add", "-A")
		gittest.Run(t, dir, "commit", "-q", "-m", fmt.Sprintf(format, i))
	}
}

func objectsDir(dir string) string { return filepath.Join(dir, ".git", "objects") }

// catFileAll is every object of the repository in dir as git itself reads
// it: hash -> type and content.
func catFileAll(t *testing.T, dir string) map[Hash]rawObject {
	t.Helper()
	types := map[string]int{"commit": objCommit, "tree": objTree, "blob": objBlob, "tag": objTag}
	all := map[Hash]rawObject{}
	for id, o := range gittest.CatFileAll(t, dir) {
		h, ok := ParseHash(id)
		require.True(t, ok, id)
		all[h] = rawObject{typ: types[o.Type], data: o.Data}
	}
	return all
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

// TestPackReaderReadsLooseObjects: every loose object of a repository, as git
// cat-file shows it; a loose object whose header is not git's is an
// error, never content.
func TestPackReaderReadsLooseObjects(t *testing.T) {
	dir := gittest.Init(t)
	commitFiles(t, dir, 20, "Loose fact %d: the invoice run starts at 15 past.")
	all := catFileAll(t, dir)
	require.Greater(t, len(all), 60)
	p := newPackReader(objectsDir(dir))
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

// TestDecodeTreeEntriesAsGoGit: every tree of a repository, read loose
// and packed and decoded by DecodeTree, has the entries go-git decodes,
// and encoded back by EncodeTree is what go-git writes, which written
// again is the same object; a tree not in git's format is an error.
func TestDecodeTreeEntriesAsGoGit(t *testing.T) {
	dir := gittest.Init(t)
	commitFiles(t, dir, 30, "Tree fact %d: the batch runs at 45 past.")
	for _, packed := range []bool{false, true} {
		if packed {
			gittest.Run(t, dir, "gc", "-q", "--prune=now")
		}
		db := OpenDiskWithAlternates(objectsDir(dir), 1, nil)
		trees := 0
		for h, o := range catFileAll(t, dir) {
			if o.typ != objTree {
				continue
			}
			trees++
			read, err := db.Read(h)
			require.NoError(t, err)
			got, err := DecodeTree(read.Data)
			require.NoError(t, err)
			want, err := object.DecodeTree(NewMemDB().store, goGitObject(t, plumbing.TreeObject, o.data))
			require.NoError(t, err)
			require.Equal(t, goGitEntries(want.Entries), got, h.String())
			require.Equal(t, want.Hash, plumbing.Hash(h), h.String())
			// and written back, it is what go-git writes
			enc, err := EncodeTree(got)
			require.NoError(t, err)
			require.Equal(t, goGitEncoding(t, want), enc, h.String())
			again, err := db.Write(NewObject(TreeObject, enc))
			require.NoError(t, err)
			require.Equal(t, h, again)
		}
		require.Greater(t, trees, 30, "packed %v", packed)
		db.Close()
		// and git finds nothing to say about the objects written
		gittest.Run(t, dir, "fsck", "--strict", "--no-dangling")
	}

	for name, raw := range map[string]string{
		"no mode":     " name\x00" + strings.Repeat("a", 20),
		"bad mode":    "10x644 name\x00" + strings.Repeat("a", 20),
		"no name":     "100644 \x00" + strings.Repeat("a", 20),
		"short hash":  "100644 name\x00" + strings.Repeat("a", 19),
		"no name end": "100644 name",
	} {
		_, err := DecodeTree([]byte(raw))
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

func goGitEntries(es []object.TreeEntry) []TreeEntry {
	out := make([]TreeEntry, len(es))
	for i, e := range es {
		out[i] = TreeEntry{Name: e.Name, Mode: FileMode(e.Mode), Hash: Hash(e.Hash)}
	}
	return out
}

// TestCommitsAsGoGit: every commit of a repository, git-mem's (written by
// Encode) and git's (a merge, a commit with a signature header, one in
// another time zone), is
// decoded as go-git decodes it, and a commit git-mem writes is the object
// go-git would write; commits that are not in git's format are errors.
func TestCommitsAsGoGit(t *testing.T) {
	dir := gittest.Init(t)
	db := OpenDiskWithAlternates(objectsDir(dir), 1, nil)
	// five commits as git-mem writes them: a tree, a parent, a subject and
	// trailers
	var parent []Hash
	for i := 0; i < 5; i++ {
		blob, err := db.Write(NewObject(BlobObject, []byte(fmt.Sprintf("{\"text\":\"Commit fact %d\"}\n", i))))
		require.NoError(t, err)
		data, err := EncodeTree([]TreeEntry{{Name: fmt.Sprintf("m%d.json", i), Mode: ModeRegular, Hash: blob}})
		require.NoError(t, err)
		tree, err := db.Write(NewObject(TreeObject, data))
		require.NoError(t, err)
		sig := Signature{Name: "Test User", Email: "test@example.com", When: time.Unix(1700000000+int64(i), 0).In(time.FixedZone("", 3600))}
		c := &Commit{TreeHash: tree, ParentHashes: parent, Author: sig, Committer: sig, Message: fmt.Sprintf("mem: add %d fact: Commit fact %d\n\nMemory-Id: %d\nMemory-Op: add\n", i, i, i)}
		h, err := db.Write(NewObject(CommitObject, c.Encode()))
		require.NoError(t, err)
		parent = []Hash{h}
	}
	gittest.Run(t, dir, "update-ref", "refs/memory/main", parent[0].String())
	// commits git writes: on a branch of their own, a merge, a signature
	// header (as a signing setup adds) and a zone west of Greenwich
	gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "first")
	gittest.Run(t, dir, "checkout", "-q", "-b", "side")
	gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "side\n\nbody line")
	gittest.Run(t, dir, "checkout", "-q", "-")
	gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "main")
	gittest.Run(t, dir, "merge", "-q", "--no-ff", "-m", "merge side", "side")
	head := strings.TrimSpace(gittest.Run(t, dir, "rev-parse", "HEAD"))
	raw := gittest.Run(t, dir, "cat-file", "commit", head)
	signed := strings.Replace(raw, "\n\n", "\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n abcdef\n -----END PGP SIGNATURE-----\n\n", 1)
	signed = strings.Replace(signed, "+0000", "-0330", -1)
	hashObject := exec.Command("git", "-C", dir, "hash-object", "-t", "commit", "-w", "--stdin")
	hashObject.Stdin = strings.NewReader(signed)
	out, err := hashObject.Output()
	require.NoError(t, err)
	require.NotEmpty(t, strings.TrimSpace(string(out)))

	commits := 0
	for h, o := range catFileAll(t, dir) {
		if o.typ != objCommit {
			continue
		}
		commits++
		read, err := db.Read(h)
		require.NoError(t, err)
		require.Equal(t, CommitObject, read.Type)
		got, err := DecodeCommit(h, read.Data)
		require.NoError(t, err)
		want, err := object.DecodeCommit(NewMemDB().store, goGitObject(t, plumbing.CommitObject, o.data))
		require.NoError(t, err)
		require.Equal(t, want.Hash, plumbing.Hash(got.Hash))
		require.Equal(t, want.TreeHash, plumbing.Hash(got.TreeHash), h.String())
		require.Equal(t, len(want.ParentHashes), len(got.ParentHashes), h.String())
		for i := range want.ParentHashes {
			require.Equal(t, want.ParentHashes[i], plumbing.Hash(got.ParentHashes[i]), h.String())
		}
		require.Equal(t, want.Message, got.Message, h.String())
		for _, sig := range []struct {
			want object.Signature
			got  Signature
		}{{want.Author, got.Author}, {want.Committer, got.Committer}} {
			require.Equal(t, sig.want.Name, sig.got.Name, h.String())
			require.Equal(t, sig.want.Email, sig.got.Email, h.String())
			require.True(t, sig.want.When.Equal(sig.got.When), h.String())
			require.Equal(t, sig.want.When.Format("-0700"), sig.got.When.Format("-0700"), h.String())
		}
		// written back without a signature, it is what go-git writes
		want.PGPSignature = ""
		require.Equal(t, string(goGitEncoding(t, want)), string(got.Encode()), h.String())
	}
	require.Equal(t, 10, commits, "5 of git-mem, 4 of git, 1 signed in another zone")
	// and git finds nothing to say about the commits written
	gittest.Run(t, dir, "fsck", "--strict", "--no-dangling")

	for name, raw := range map[string]string{
		"no tree":    "author A <a> 1 +0000\ncommitter A <a> 1 +0000\n\nmsg",
		"bad tree":   "tree xyz\nauthor A <a> 1 +0000\n\nmsg",
		"bad parent": "tree " + strings.Repeat("a", 40) + "\nparent 12\n\nmsg",
	} {
		_, err := DecodeCommit(zeroHash, []byte(raw))
		require.Error(t, err, name)
	}
	// headers without the line that ends them: no message, as go-git reads it
	c, err := DecodeCommit(zeroHash, []byte("tree "+strings.Repeat("a", 40)+"\nauthor A <a> 1 +0100"))
	require.NoError(t, err)
	require.Equal(t, "A", c.Author.Name)
	require.Empty(t, c.Message)
	// a second author or committer line (git fsck's multipleAuthors): the
	// first counts, as git reads it
	c, err = DecodeCommit(zeroHash, []byte("tree "+strings.Repeat("a", 40)+"\nauthor A <a> 1 +0000\ncommitter C <c> 2 +0000\nauthor X <x> 3 +0000\ncommitter Y <y> 4 +0000\n\nm"))
	require.NoError(t, err)
	require.Equal(t, "A", c.Author.Name)
	require.Equal(t, "C", c.Committer.Name)
}
