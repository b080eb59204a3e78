package linkstore

import (
	"context"
	"fmt"
	"sort"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/memerr"
)

// remote is the org store as a remote of the copy.
func (c *Copy) remote(ctx context.Context) (*gitstore.Remote, error) {
	if c.Repo == nil {
		return nil, fmt.Errorf("%w: the local copy of %s was never fetched", memerr.ErrEmptyStore, gitstore.RedactURL(c.URL))
	}
	return c.Repo.ResolveRemote(ctx, c.URL)
}

// Push sends what was written to the copy to the org store's
// refs/memory/main (gitstore's push: pulled, merged and pushed again while
// others' pushes land first). Without push rights it fails with the host's
// message and the memories stay in the copy, unpushed.
func (c *Copy) Push(ctx context.Context, w gitstore.Writer, t gitstore.TransportOptions) (*gitstore.PushResult, error) {
	rem, err := c.remote(ctx)
	if err != nil {
		return nil, err
	}
	return c.Repo.Push(ctx, w, rem, gitstore.PushOptions{TransportOptions: t})
}

// Unpushed returns the ids of the memories the copy's refs/memory/main holds
// in another version than the one last fetched from, or pushed to, the org
// store: what was written here and has not reached it yet.
func (c *Copy) Unpushed(ctx context.Context) ([]string, error) {
	if c.Repo == nil {
		return nil, nil
	}
	rem, err := c.remote(ctx)
	if err != nil {
		return nil, err
	}
	mine, err := blobs(gitstore.NewStore(c.Repo, gitstore.RefMain, gitstore.ScopeProject))
	if err != nil {
		return nil, err
	}
	theirs, err := blobs(gitstore.NewStore(c.Repo, rem.TrackingRef(), gitstore.ScopeProject))
	if err != nil {
		return nil, err
	}
	var out []string
	for id, h := range mine {
		if theirs[id] != h {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out, nil
}

func blobs(s *gitstore.Store) (map[string]gitstore.Hash, error) {
	rd, err := s.Read()
	if err != nil {
		return nil, err
	}
	return rd.BlobHashes()
}
