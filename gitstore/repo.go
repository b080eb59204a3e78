package gitstore

import (
	"errors"

	"github.com/git-mem/git-mem/internal/gitconfig"
	"github.com/git-mem/git-mem/internal/gitobj"
	"github.com/git-mem/git-mem/internal/gitrefs"
	"github.com/git-mem/git-mem/memerr"

	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Repo is one git repository as git-mem sees it: an object database, a ref
// database, and where its directories are.
type Repo struct {
	objects gitobj.DB
	refs    refDB

	// GitDir is the repository's git directory (per worktree); CommonDir holds
	// the objects and the shared refs (the same as GitDir outside linked
	// worktrees); WorkTree is empty for bare and in-memory repositories.
	GitDir, CommonDir, WorkTree string
	// personal marks the personal store, shared by every project of this user.
	personal bool

	config *Config
	// Now is the clock used for memory times and commits' author dates;
	// tests replace it, and so does GIT_AUTHOR_DATE (UseGitDates).
	Now func() time.Time
	// isolated: opened by OpenIn; its git commands drop the redirecting
	// variables of the environment.
	isolated bool
	// committerNow, when set, dates commits' committer (GIT_COMMITTER_DATE);
	// otherwise the committer date is the author date.
	committerNow func() time.Time

	identOnce sync.Once
	ident     identityConfig // user, author and committer settings, as git reads them

	skipMu  sync.Mutex
	skipped map[Hash]*DocumentError // invalid documents reads skipped

	statusMu sync.Mutex
	status   func() ([]byte, error) // a git status started ahead (StartWorktreeStatus)

	trees *treeCache

	// lazyFetchFailed: a partial clone's promisor remote could not give a
	// missing object; no more are asked of it (partial.go)
	lazyFetchFailed atomic.Bool

	// objectDir and extraAlternates replace <common dir>/objects and add
	// to its alternates when git's environment says so (quarantine.go)
	objectDir       string
	extraAlternates []string
}

// NewMemoryRepo returns an empty repository held in memory, for tests and previews.
func NewMemoryRepo() *Repo {
	return &Repo{objects: gitobj.NewMemDB(), refs: refDB{gitrefs.NewMem()}, config: &Config{}, Now: time.Now, trees: &treeCache{}}
}

// Open finds the repository containing dir, as git would: GIT_DIR when set,
// else the nearest enclosing .git directory or file, or a bare repository.
// It returns memerr.ErrNoRepo when there is none.
func Open(dir string) (*Repo, error) {
	gitDir, workTree, err := discover(dir)
	if err != nil {
		return nil, err
	}
	return openGitDir(gitDir, workTree)
}

func openGitDir(gitDir, workTree string) (*Repo, error) {
	commonDir := gitDir
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(data))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		commonDir = filepath.Clean(c)
	}
	// before anything is read or written: git refuses a repository of
	// another user (safe.directory), and an object or ref git-mem wrote in
	// a format the repository does not use would be one git rejects
	if err := checkOwnership(gitDir, workTree); err != nil {
		return nil, err
	}
	if err := checkFormat(commonDir); err != nil {
		return nil, err
	}
	cfg := gitconfig.Load(commonDir)
	if cfg.Bool("extensions", "worktreeConfig", false) {
		// git reads the worktree's own settings (git config --worktree)
		// after the repository's
		if data, err := os.ReadFile(filepath.Join(gitDir, "config.worktree")); err == nil {
			if entries, ok := gitconfig.Parse(data); ok {
				cfg.Add(entries)
			}
		}
	}
	r := &Repo{
		refs:      refDB{gitrefs.OpenDisk(commonDir)},
		GitDir:    gitDir,
		CommonDir: commonDir,
		WorkTree:  workTree,
		config:    cfg,
		Now:       time.Now,
		trees:     treeCacheOf(filepath.Join(commonDir, "objects")),
	}
	cfg.AskGit(func(pattern string) ([]byte, error) {
		return r.runGit(context.Background(), TransportOptions{}, nil, "config", "--includes", "-z", "--get-regexp", pattern)
	}, func(err error) bool {
		// exit 1: none is set
		var ge *gitError
		return errors.As(err, &ge) && ge.exitCode() == 1
	})
	r.reopenObjects()
	return r, nil
}

// reopenObjects (re)opens the object database. It caches the list of packs;
// after a concurrent git gc an object may have moved into a new pack, and a
// fresh list finds it.
func (r *Repo) reopenObjects() {
	if r.CommonDir == "" {
		return
	}
	if d, ok := r.objects.(*gitobj.DiskDB); ok {
		d.Close()
	}
	dir := r.objectDir
	if dir == "" {
		dir = filepath.Join(r.CommonDir, "objects")
	}
	r.objects = gitobj.OpenDiskWithAlternates(dir, looseCompression(r.config), r.extraAlternates)
}

// OpenIn finds the repository containing dir by its files alone: unlike
// Open, it ignores GIT_DIR, GIT_WORK_TREE and the other variables that
// point git elsewhere, and the git commands the repository runs do not
// inherit them. Hooks and the MCP server open the repository of a payload's
// cwd or a client's roots this way: an environment inherited from whoever
// started the agent must not decide whose memory a session sees.
func OpenIn(dir string) (*Repo, error) {
	gitDir, workTree, err := discoverIn(dir, false)
	if err != nil {
		return nil, err
	}
	r, err := openGitDir(gitDir, workTree)
	if err != nil {
		return nil, err
	}
	r.isolated = true
	return r, nil
}

// redirectVars are the variables that make git use another repository,
// worktree or index than the one of its working directory.
var redirectVars = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES"}

// gitEnv is the environment of a git command run for this repository, plus
// extra: the process's, without the redirecting variables for a repository
// opened by OpenIn.
func (r *Repo) gitEnv(extra ...string) []string {
	env := os.Environ()
	if r.isolated {
		env = slices.DeleteFunc(env, func(kv string) bool {
			k, _, _ := strings.Cut(kv, "=")
			return slices.Contains(redirectVars, k)
		})
	}
	return append(env, extra...)
}

// discover walks up from dir to the repository, honouring GIT_DIR and GIT_WORK_TREE.
func discover(dir string) (gitDir, workTree string, err error) { return discoverIn(dir, true) }

func discoverIn(dir string, honourEnv bool) (gitDir, workTree string, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", "", err
	}
	if env := os.Getenv("GIT_DIR"); env != "" && honourEnv {
		if !filepath.IsAbs(env) {
			env = filepath.Join(abs, env)
		}
		if !isGitDir(env) {
			return "", "", fmt.Errorf("%w: GIT_DIR=%s is not a git directory", memerr.ErrNoRepo, env)
		}
		wt := os.Getenv("GIT_WORK_TREE")
		if wt == "" && filepath.Base(env) == ".git" {
			wt = filepath.Dir(env)
		}
		return filepath.Clean(env), wt, nil
	}
	if _, err := os.Stat(abs); err != nil {
		return "", "", fmt.Errorf("%w: %s does not exist", memerr.ErrNoRepo, abs)
	}
	for d := abs; ; d = filepath.Dir(d) {
		dotgit := filepath.Join(d, ".git")
		if st, err := os.Stat(dotgit); err == nil {
			if st.IsDir() && isGitDir(dotgit) {
				return dotgit, d, nil
			}
			if !st.IsDir() {
				if gd, ok := readGitFile(dotgit); ok {
					return gd, d, nil
				}
			}
		}
		if isGitDir(d) {
			return d, "", nil
		}
		if filepath.Dir(d) == d {
			return "", "", &memerr.NoRepoError{Dir: abs}
		}
	}
}

// readGitFile follows a "gitdir: <path>" file, as linked worktrees and submodules use.
func readGitFile(path string) (string, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	gd, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
	if !ok {
		return "", false
	}
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(filepath.Dir(path), gd)
	}
	gd = filepath.Clean(gd)
	return gd, isGitDir(gd)
}

// isGitDir applies git's test: HEAD, plus objects and refs (in the common dir
// for a linked worktree).
func isGitDir(d string) bool {
	if st, err := os.Stat(filepath.Join(d, "HEAD")); err != nil || st.IsDir() {
		return false
	}
	if _, err := os.Stat(filepath.Join(d, "commondir")); err == nil {
		return true
	}
	if st, err := os.Stat(filepath.Join(d, "objects")); err != nil || !st.IsDir() {
		return false
	}
	st, err := os.Stat(filepath.Join(d, "refs"))
	return err == nil && st.IsDir()
}

// personalDir is where the personal store lives:
// $XDG_DATA_HOME/git-mem/personal.git, by default ~/.local/share/git-mem/personal.git.
func personalDir() (string, error) {
	base := os.Getenv("XDG_DATA_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot locate the personal store: %w; set XDG_DATA_HOME", err)
		}
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "git-mem", "personal.git"), nil
}

// OpenPersonal opens the personal store. With create it is initialised when
// missing and created reports that; without, a missing store is memerr.ErrEmptyStore.
func OpenPersonal(create bool) (r *Repo, created bool, err error) {
	dir, err := personalDir()
	if err != nil {
		return nil, false, err
	}
	if !isGitDir(dir) {
		if !create {
			return nil, false, memerr.ErrEmptyStore
		}
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return nil, false, fmt.Errorf("cannot create the personal store at %s: %w", dir, err)
		}
		// git itself initialises the store: linking go-git's porcelain for this
		// alone would pull its transports into every start of the binary.
		// in the formats git-mem writes, whatever init.defaultObjectFormat,
		// init.defaultRefFormat or GIT_DEFAULT_HASH say (the variables win
		// over the settings; a git that predates them ignores them)
		cmd := exec.Command("git", "init", "-q", "--bare", dir)
		cmd.Env = append(os.Environ(), InitFormatEnv...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, false, fmt.Errorf("cannot create the personal store at %s: %v: %s", dir, err, strings.TrimSpace(string(out)))
		}
		created = true
	}
	r, err = openGitDir(dir, "")
	if err != nil {
		return nil, false, err
	}
	r.personal = true
	return r, created, nil
}

// Config returns the git configuration seen by this repository.
func (r *Repo) Config() *Config { return r.config }

// Head reports the checked-out commit and branch: the anchor of a new memory.
// An unborn branch has a branch and no commit; a detached HEAD a commit and no branch.
func (r *Repo) Head() Anchor {
	if r.GitDir == "" {
		return Anchor{}
	}
	data, err := os.ReadFile(filepath.Join(r.GitDir, "HEAD"))
	if err != nil {
		return Anchor{}
	}
	s := strings.TrimSpace(string(data))
	if target, ok := strings.CutPrefix(s, "ref: "); ok {
		a := Anchor{Branch: strings.TrimPrefix(target, "refs/heads/")}
		if h, err := r.refs.read(target); err == nil && !h.IsZero() {
			a.Commit = h.String()
		}
		return a
	}
	if h, ok := parseHash(s); ok {
		return Anchor{Commit: h.String()}
	}
	return Anchor{}
}

// ListRefs returns the refs under prefix (e.g. "refs/memory/").
func (r *Repo) ListRefs(prefix string) (map[string]Hash, error) { return r.refs.list(prefix) }

// Author is the identity memory commits are written as, "Name <email>".
func (r *Repo) Author() string {
	id := r.identities().author
	return id.name + " <" + id.email + ">"
}
