package cmd

import (
	"context"
	"fmt"

	"github.com/git-mem/git-mem/embedding"
	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/internal/health"
)

// checkEmbeddings asks the configured embedding endpoint for one vector
// (git config mem.embed.url): whether recall can use it, or why it is
// lexical only. Nothing is said when none is configured.
func checkEmbeddings(ctx context.Context, env *Env, set *gitstore.Set, _ *doctorOptions) []health.Finding {
	repo := set.Repo
	if repo == nil {
		repo = set.Personal
	}
	e := embedding.Open(repo)
	if e == nil {
		return nil
	}
	cfg := e.Config()
	f := health.Finding{Check: "embeddings " + cfg.Model}
	if err := e.Check(ctx, env.Now()); err != nil {
		f.Status = health.Warn
		f.Message = fmt.Sprintf("%v; recall, the hooks and writes are lexical only until it answers", err)
		f.Fix = "start the model server, correct git config mem.embed.url and mem.embed.model, or turn embeddings off: git config --unset mem.embed.url"
		return []health.Finding{f}
	}
	n, err := e.Count()
	if err != nil {
		f.Status, f.Message = health.Warn, "the vector cache cannot be read: "+err.Error()
		f.Fix = "git mem reindex"
		return []health.Finding{f}
	}
	f.Status = health.OK
	f.Message = fmt.Sprintf("%s answers; %d memories have a vector (similarity from %.2f is returned, from %.2f injected)", gitstore.RedactURL(cfg.URL), n, cfg.MinScore, cfg.InjectScore())
	return []health.Finding{f}
}
