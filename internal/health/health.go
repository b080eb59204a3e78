package health

// A finding's Status.
const (
	OK   = "ok"
	Info = "info"
	Warn = "warn"
	Fail = "fail"
)

// Finding is one result of a health check: what was checked, how it stands,
// and what fixes it when something is wrong.
type Finding struct {
	Check   string `json:"check"`
	Status  string `json:"status"`
	Message string `json:"message"`
	// Fix is the fix in git's or the system's words (git fsck, rm FILE). A
	// fix that is a git-mem operation is Action instead, which each surface
	// says in its own words (the CLI fills Fix from it, cmd/doctor.go).
	Fix string `json:"fix,omitempty"`
	// Action is the git-mem operation that fixes the finding; Target is
	// what it applies to (a memory id, a remote).
	Action FixAction `json:"action,omitempty"`
	Target string    `json:"target,omitempty"`
}

// FixAction names a git-mem operation that fixes a doctor finding.
type FixAction string

// The operations a finding can ask for.
const (
	// FixSaveOrPull: there is no memory yet; save one, or pull the team's.
	FixSaveOrPull FixAction = "save-or-pull"
	// FixRestore: a ref's objects are damaged; check them with git fsck,
	// then pull from a clone that has the memory.
	FixRestore FixAction = "restore"
	// FixForget: forget the invalid document Target (its history shows
	// its earlier versions).
	FixForget FixAction = "forget"
	// FixForgetEach: forget each invalid document listed.
	FixForgetEach FixAction = "forget-each"
	// FixFindGoodVersion: documents are unreadable; find a good version in
	// a memory's history, and check the objects with git fsck.
	FixFindGoodVersion FixAction = "find-good-version"
	// FixRecreatePersonal: the personal store's directory is not a
	// repository; move it aside and the next personal write creates one.
	FixRecreatePersonal FixAction = "recreate-personal"
	// FixPush: push the memory to the remote Target.
	FixPush FixAction = "push"
	// FixPull: fetch and merge the memory of the remote Target.
	FixPull FixAction = "pull"
	// FixMergeFetched: merge the already fetched memory of the remote
	// Target, without contacting it.
	FixMergeFetched FixAction = "merge-fetched"
	// FixShare: configure the remote Target so that a plain git fetch
	// brings its memory.
	FixShare FixAction = "share"
)
