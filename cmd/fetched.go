package cmd

import (
	"context"
	"fmt"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/surface"
)

// mergeFetched merges, before a command reads or writes, the memory a plain
// git fetch brought after git mem share (gitstore.MergeFetched), and says
// so on stderr. A merge that fails is a warning: the command goes on with
// the memory as it was.
func (e *Env) mergeFetched(set *gitstore.Set) {
	f := surface.MergeFetched(context.Background(), set, e.writer(set, ""))
	for _, r := range f.Pulls {
		if r.Merge == nil || r.Merge.Kind == gitstore.MergeUpToDate || r.Merge.Kind == gitstore.MergeNothing {
			continue
		}
		fmt.Fprintf(e.Err, "git mem: merged the memory git fetch brought from %s: %s\n", terminalSafe(r.Remote.Display, false), terminalSafe(r.Merge.Summary(r.Remote.Display), false))
	}
	if perr := tellPulled(e, set, f.Pulled, f.ScrubErr); perr != nil {
		fmt.Fprintf(e.Err, "git mem: warning: %s\n", terminalSafe(perr.Error(), false))
	}
	if f.MergeErr != nil {
		fmt.Fprintf(e.Err, "git mem: warning: the memory git fetch brought was not merged: %s; run git mem pull --no-fetch\n", terminalSafe(f.MergeErr.Error(), false))
	}
}
