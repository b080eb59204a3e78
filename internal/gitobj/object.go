package gitobj

import (
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// ObjectType is a git object's type, numbered as git's packs number them.
type ObjectType int8

// The object types git-mem reads and writes, and AnyObject, which asks for
// an object whatever its type.
const (
	CommitObject ObjectType = ObjectType(plumbing.CommitObject)
	TreeObject   ObjectType = ObjectType(plumbing.TreeObject)
	BlobObject   ObjectType = ObjectType(plumbing.BlobObject)
	AnyObject    ObjectType = ObjectType(plumbing.AnyObject)
)

// String is the type's name as a loose object's header writes it.
func (t ObjectType) String() string { return plumbing.ObjectType(t).String() }

// FileMode is a tree entry's mode.
type FileMode uint32

// The modes of the entries git-mem writes.
const (
	ModeDir     FileMode = FileMode(filemode.Dir)
	ModeRegular FileMode = FileMode(filemode.Regular)
)

// parseMode reads a tree entry's octal mode as git writes it.
func parseMode(s string) (FileMode, error) {
	m, err := filemode.New(s)
	return FileMode(m), err
}

// ErrNotFound is an object the database does not hold; it is go-git's own
// error, so that errors.Is finds it whichever side reported it.
var ErrNotFound error = plumbing.ErrObjectNotFound

// ErrInvalidType is an object of another type than the one asked for.
var ErrInvalidType error = plumbing.ErrInvalidType

// errNotFound reports h missing, as go-git does, so that errors.Is finds
// ErrNotFound.
func errNotFound(h Hash) error {
	return fmt.Errorf("object %s: %w", h, ErrNotFound)
}

// Object is a git object: its type and content, and its hash, computed
// once when first asked for.
type Object struct {
	Type ObjectType
	Data []byte

	hash   Hash
	hashed bool
}

// NewObject is the object of type t with content data.
func NewObject(t ObjectType, data []byte) *Object {
	return &Object{Type: t, Data: data}
}

// Hash is the object's id, as git computes it from its type and content.
func (o *Object) Hash() Hash {
	if !o.hashed {
		o.hash, o.hashed = Hash(plumbing.ComputeHash(plumbing.ObjectType(o.Type), o.Data)), true
	}
	return o.hash
}

// Size is the length of the object's content.
func (o *Object) Size() int64 { return int64(len(o.Data)) }

// encoded is the object as go-git's pack encoder reads it.
func (o *Object) encoded() plumbing.EncodedObject {
	mo := &plumbing.MemoryObject{}
	mo.SetType(plumbing.ObjectType(o.Type))
	mo.Write(o.Data) // a MemoryObject keeps what it is given: no error
	return mo
}
