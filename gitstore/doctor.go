package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-mem/git-mem/internal/gitobj"
	"github.com/git-mem/git-mem/internal/health"
)

// CheckMemoryRefs checks every ref under refs/memory/: its name has a known
// shape, it resolves to a readable commit and tree, and (for main and private)
// every memory document decodes. It also looks for lock files left behind.
func (r *Repo) CheckMemoryRefs(ctx context.Context) []health.Finding {
	var out []health.Finding
	refs, err := r.refs.list("refs/memory/")
	if err != nil {
		return []health.Finding{{Check: "memory refs", Status: health.Fail, Message: "cannot list refs/memory/*: " + err.Error(), Fix: "git fsck"}}
	}
	if len(refs) == 0 {
		out = append(out, health.Finding{Check: "memory refs", Status: health.Info, Message: "no memory yet (no refs/memory/* ref)", Action: health.FixSaveOrPull})
	}
	for _, name := range sortedKeys(refs) {
		if err := ctx.Err(); err != nil {
			return out
		}
		f, bad := r.checkRef(name, refs[name])
		out = append(append(out, f), bad...)
	}
	return append(out, r.staleLocks()...)
}

// maxListedInvalid bounds how many invalid documents doctor lists one by one per ref.
const maxListedInvalid = 50

// checkRef checks one memory ref. For refs/memory/main and private it also
// returns one finding per invalid document (at most maxListedInvalid), each
// with the command that removes it.
func (r *Repo) checkRef(name string, tip Hash) (health.Finding, []health.Finding) {
	f := health.Finding{Check: name}
	rest := strings.TrimPrefix(name, "refs/memory/")
	full := name == RefMain || name == RefPrivate
	switch {
	case full:
	case strings.HasPrefix(rest, "remotes/") && strings.HasSuffix(rest, "/main") && validRemoteName(strings.TrimSuffix(strings.TrimPrefix(rest, "remotes/"), "/main")):
	case !validRemoteName(rest):
		f.Status, f.Message, f.Fix = health.Fail, "malformed ref name", "git update-ref -d "+name
		return f, nil
	default:
		f.Status, f.Message = health.Warn, "not a ref git-mem uses (refs/memory/main, refs/memory/private, refs/memory/remotes/<remote>/main); it is ignored"
		f.Fix = "git update-ref -d " + name + "   (if you do not need it)"
		return f, nil
	}
	snap, err := r.snapshotAt(tip)
	if err != nil {
		f.Status, f.Message, f.Action = health.Fail, err.Error(), health.FixRestore
		return f, nil
	}
	n, unreadable, bad := 0, 0, 0
	var firstBad string
	var invalid []health.Finding
	err = snap.entries(func(id string, h Hash) error {
		n++
		if !full {
			return nil
		}
		_, err := r.readMemory(h, id)
		var de *DocumentError
		switch {
		case errors.As(err, &de):
			bad++
			if len(invalid) < maxListedInvalid {
				invalid = append(invalid, health.Finding{Check: name + " " + de.Path(), Status: health.Fail,
					Message: "invalid memory document: " + de.Reason + "; reads skip it and a pull does not merge it",
					Action:  health.FixForget, Target: id})
			}
		case err != nil:
			unreadable++
			if firstBad == "" {
				firstBad = id + ": " + err.Error()
			}
		}
		return nil
	})
	switch {
	case err != nil:
		f.Status, f.Message, f.Action = health.Fail, err.Error(), health.FixRestore
	case unreadable > 0:
		f.Status, f.Message, f.Action = health.Fail, fmt.Sprintf("%d of %d memory documents are unreadable (first: %s)", unreadable, n, firstBad), health.FixFindGoodVersion
	case bad > 0:
		f.Status, f.Message = health.Fail, fmt.Sprintf("%d memories at %s, %d of them invalid (listed below)", n, tip.Short(), bad)
		if bad > len(invalid) {
			f.Message += fmt.Sprintf("; the first %d are listed", len(invalid))
		}
		f.Action = health.FixForgetEach
	default:
		f.Status, f.Message = health.OK, fmt.Sprintf("%d memories at %s", n, tip.Short())
	}
	return f, invalid
}

// staleLocks reports ref lock files under refs/memory/ (and packed-refs.lock)
// older than the age at which a writer is considered dead.
func (r *Repo) staleLocks() []health.Finding {
	if r.CommonDir == "" {
		return nil
	}
	var out []health.Finding
	report := func(p string) {
		st, err := os.Stat(p)
		if err != nil || time.Since(st.ModTime()) < 10*time.Second {
			return
		}
		out = append(out, health.Finding{Check: "lock", Status: health.Warn,
			Message: fmt.Sprintf("%s is %s old: a git or git-mem process died holding it (the next write breaks it)", filepath.ToSlash(p), time.Since(st.ModTime()).Round(time.Second)),
			Fix:     "rm " + p + "   (when no git or git-mem process is running)"})
	}
	_ = filepath.WalkDir(filepath.Join(r.CommonDir, "refs", "memory"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lock") {
			report(p)
		}
		return nil
	})
	report(filepath.Join(r.CommonDir, "packed-refs.lock"))
	return out
}

// CheckPersonal reports where the personal store is and whether it is usable,
// and each invalid document of it (at most maxListedInvalid).
func CheckPersonal() (health.Finding, []health.Finding) {
	f := health.Finding{Check: "personal store"}
	dir, err := personalDir()
	if err != nil {
		f.Status, f.Message, f.Fix = health.Warn, err.Error(), "set XDG_DATA_HOME"
		return f, nil
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		f.Status, f.Message = health.OK, dir+" (not created yet: the first memory saved to it creates it)"
	case err != nil:
		f.Status, f.Message = health.Fail, err.Error()
	case !st.IsDir() || !isGitDir(dir):
		f.Status, f.Message, f.Action = health.Fail, dir+" exists but is not a git repository", health.FixRecreatePersonal
	default:
		r, err := openGitDir(dir, "")
		if err != nil {
			f.Status, f.Message = health.Fail, err.Error()
			return f, nil
		}
		rf, bad := r.checkRef(RefMain, mustRead(r, RefMain))
		f.Status, f.Message, f.Fix, f.Action, f.Target = rf.Status, dir+": "+rf.Message, rf.Fix, rf.Action, rf.Target
		return f, bad
	}
	return f, nil
}

func mustRead(r *Repo, name string) Hash {
	h, _ := r.refs.read(name)
	return h
}

// remoteStatus compares the remote's memory with this repository's.
type remoteStatus struct {
	Remote *Remote
	// RemoteTip is the remote's refs/memory/main (zero: it has no memory);
	// Tracking is refs/memory/remotes/<remote>/main; Local is refs/memory/main.
	RemoteTip, Tracking, Local Hash
	// Fetched: the remote tip's commit is in this repository.
	Fetched bool
	// Merged: the remote tip is contained in refs/memory/main.
	Merged bool
	// Unpushed: refs/memory/main has commits the remote lacks.
	Unpushed bool
	// Shared: a plain git fetch of the remote brings its memory.
	Shared bool
}

// CompareRemote asks the remote (git ls-remote, nothing is downloaded) where
// its memory is, compares it with this repository's, and says how they
// stand as doctor findings, each with the operation that acts on it.
func (r *Repo) CompareRemote(ctx context.Context, rem *Remote, t TransportOptions) ([]health.Finding, error) {
	st, err := r.compareRemote(ctx, rem, t)
	if err != nil {
		return nil, err
	}
	return st.findings(), nil
}

func (r *Repo) compareRemote(ctx context.Context, rem *Remote, t TransportOptions) (*remoteStatus, error) {
	st := &remoteStatus{Remote: rem}
	var err error
	if st.RemoteTip, err = r.lsRemote(ctx, rem, t); err != nil {
		return nil, err
	}
	if st.Tracking, err = r.refs.read(rem.TrackingRef()); err != nil {
		return nil, err
	}
	if st.Local, err = r.refs.read(RefMain); err != nil {
		return nil, err
	}
	if st.Shared, err = r.shared(ctx, rem); err != nil {
		return nil, err
	}
	main := NewStore(r, RefMain, ScopeProject)
	// A commit present locally is not proof of a fetch (a clone from a local
	// path copies every object): fetched means reachable from the tracking ref
	// or from refs/memory/main.
	have := false
	if !st.RemoteTip.IsZero() {
		o, err := r.objects.Read(st.RemoteTip)
		have = err == nil && o.Type == gitobj.CommitObject
	}
	if have {
		if st.Merged, err = main.IsAncestor(ctx, st.RemoteTip, st.Local); err != nil {
			return nil, err
		}
		st.Fetched = st.Merged
		if !st.Fetched && !st.Tracking.IsZero() {
			if st.Fetched, err = main.IsAncestor(ctx, st.RemoteTip, st.Tracking); err != nil {
				return nil, err
			}
		}
	}
	if !st.Local.IsZero() && st.Local != st.RemoteTip {
		in := false
		if have {
			if in, err = main.IsAncestor(ctx, st.Local, st.RemoteTip); err != nil {
				return nil, err
			}
		}
		st.Unpushed = !in
	}
	return st, nil
}

// findings turns the comparison into doctor findings, each with the
// operation that acts on it.
func (st *remoteStatus) findings() []health.Finding {
	name := st.Remote.Display
	check := "remote " + name
	var out []health.Finding
	switch {
	case st.RemoteTip.IsZero():
		f := health.Finding{Check: check, Status: health.Info, Message: name + " has no memory yet"}
		if !st.Local.IsZero() {
			f.Action, f.Target = health.FixPush, name
		}
		out = append(out, f)
	case !st.Fetched && st.Tracking.IsZero():
		out = append(out, health.Finding{Check: check, Status: health.Warn,
			Message: fmt.Sprintf("%s has memory that was never fetched here (refs/memory/main at %s)", name, st.RemoteTip.Short()),
			Action:  health.FixPull, Target: name})
	case !st.Fetched:
		out = append(out, health.Finding{Check: check, Status: health.Warn,
			Message: fmt.Sprintf("%s has memory not fetched here yet (its refs/memory/main is at %s)", name, st.RemoteTip.Short()),
			Action:  health.FixPull, Target: name})
	case !st.Merged:
		out = append(out, health.Finding{Check: check, Status: health.Warn,
			Message: fmt.Sprintf("%s's memory (%s) is fetched but not merged into refs/memory/main; git-mem merges it the next time it runs", name, st.RemoteTip.Short()),
			Action:  health.FixMergeFetched, Target: name})
	default:
		out = append(out, health.Finding{Check: check, Status: health.OK, Message: fmt.Sprintf("refs/memory/main contains %s's memory (%s)", name, st.RemoteTip.Short())})
	}
	if st.Unpushed {
		out = append(out, health.Finding{Check: check, Status: health.Info, Message: "refs/memory/main has memory " + name + " lacks", Action: health.FixPush, Target: name})
	}
	if st.Remote.Name != "" && !st.Shared {
		out = append(out, health.Finding{Check: check, Status: health.Info,
			Message: "a plain git fetch does not bring memory from " + name,
			Action:  health.FixShare, Target: st.Remote.Name})
	}
	return out
}
