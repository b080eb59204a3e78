// Package gitobj owns git's object database as git-mem reads and writes
// it: object ids (Hash), loose objects (zlib-compressed, written by a
// temporary file and a rename as git writes them), packs and their
// indexes (read without loading a whole index, deltas applied; written by
// go-git's pack encoder), alternates, and the encoding of the commits and
// trees git-mem writes. It is the only package of the module that imports
// go-git, and its exported API names none of go-git's types
// (cmd/architecture_test.go checks both).
//
// It is held against real git by differential tests: every object of a
// repository git wrote, loose, packed with deltas or across many packs, is
// read as git cat-file shows it; every tree and commit is decoded as go-git
// decodes it and encoded back as it writes it; and git fsck accepts what
// it writes. gitstore's own tests hold the database under a memory store
// against git as well (a store packed by git gc, a version 1 pack index,
// alternates, loose compression).
package gitobj
