package surface

import (
	"context"
	"time"

	"github.com/git-mem/git-mem/gitstore"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/memview"
)

// Hit is a recalled memory as the CLI (git mem recall --json) and the MCP
// server (memory_recall) return it: the memory's view with how it ranked.
type Hit struct {
	memview.View
	Score      float64 `json:"score" jsonschema:"recall ranking score"`
	Relevance  float64 `json:"relevance" jsonschema:"how well the memory's words match the query"`
	Confidence float64 `json:"confidence" jsonschema:"how likely the memory is what the query is about, 0 to 1"`
	// Label names the confidence: strong, likely or weak.
	Label       string `json:"label" jsonschema:"the confidence named: strong (what the prompt hook injects), likely (more often relevant than not) or weak (shares the query's words); empty for a memory shown without matching"`
	LowTrust    bool   `json:"low_trust" jsonschema:"its trust is low: verify it before relying on it"`
	Stale       bool   `json:"stale" jsonschema:"its files changed since it was written"`
	StaleReason string `json:"stale_reason,omitempty"`
	// Similarity is the embedding similarity, with embeddings configured.
	Similarity float64 `json:"similarity,omitempty" jsonschema:"the embedding similarity, with embeddings configured"`
}

// NewHit is a recall hit's JSON, its memory's id shown as short.
func NewHit(h index.Hit, short string, now time.Time) Hit {
	v := memview.New(h.Memory, short, now)
	v.Trust, v.Scope = h.Trust, string(h.Scope)
	return Hit{
		View:  v,
		Score: Round3(h.Score), Relevance: Round3(h.Relevance), Confidence: Round3(h.Confidence),
		Label: label(h), LowTrust: h.Trust < index.LowTrust,
		Stale: h.Stale, StaleReason: h.StaleReason, Similarity: Round3(h.Similarity),
	}
}

// label names a hit's confidence, or nothing for a memory shown without
// matching anything.
func label(h index.Hit) string {
	if h.Relevance == 0 && h.Confidence == 0 {
		return ""
	}
	return index.ConfidenceLabel(h.Confidence)
}

// Round3 rounds a figure of a JSON answer to three decimals.
func Round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

// Version is one change of a memory, as git mem history --json and
// memory_history return it.
type Version struct {
	Commit string    `json:"commit"`
	Time   time.Time `json:"time"`
	Op     string    `json:"op" jsonschema:"add, revise, confirm, dispute, reinforce, supersede, forget, merge or purge"`
	Agent  string    `json:"agent,omitempty"`
	Author string    `json:"author"`
	// Text is the memory after the change; null when the change removed it
	// (or left an invalid document).
	Text  *string  `json:"text" jsonschema:"the memory's text after the change; null when the change removed it"`
	Trust *float64 `json:"trust,omitempty" jsonschema:"its trust after the change"`
}

// NewVersions is a memory's history (newest first) as JSON.
func NewVersions(vs []gitstore.Version) []Version {
	out := make([]Version, 0, len(vs))
	for _, v := range vs {
		j := Version{Commit: v.Commit.String(), Time: v.Time.UTC(), Op: v.Op, Agent: v.Agent, Author: v.Author}
		if v.Memory != nil {
			text, trust := v.Memory.Text, v.Memory.EffectiveTrust(v.Time)
			j.Text, j.Trust = &text, &trust
		}
		out = append(out, j)
	}
	return out
}

// StoreStats counts one store.
type StoreStats struct {
	Scope   string         `json:"scope" jsonschema:"project, private, personal, or org:NAME for a linked store"`
	Ref     string         `json:"ref"`
	GitDir  string         `json:"git_dir"`
	Tip     string         `json:"tip,omitempty" jsonschema:"the store's last commit"`
	Current int            `json:"current"`
	Retired int            `json:"retired" jsonschema:"superseded or expired"`
	ByType  map[string]int `json:"by_type"`
}

// Stats are the counts of the stores in scope, as git mem stats --json and
// memory_stats return them.
type Stats struct {
	InRepo bool         `json:"in_repo" jsonschema:"false when no git repository is in scope: only the personal store is served"`
	Stores []StoreStats `json:"stores"`
}

// CountStores counts the memories of each store of the set (from the
// recall snapshot's summaries when there is one, read as acc says: no
// memory is decoded).
func CountStores(ctx context.Context, acc index.Access, set *gitstore.Set, now time.Time) (Stats, error) {
	out := Stats{InRepo: set.InRepo(), Stores: []StoreStats{}}
	counts, err := acc.Count(ctx, set, now)
	if err != nil {
		return out, err
	}
	for _, st := range set.Stores() {
		tip, err := st.Tip()
		if err != nil {
			return out, err
		}
		s := StoreStats{Scope: string(st.Scope), Ref: st.Ref, GitDir: st.Repo.GitDir, ByType: map[string]int{}}
		if !tip.IsZero() {
			s.Tip = tip.String()
		}
		if n := counts[st.Scope]; n != nil {
			s.Current, s.Retired, s.ByType = n.Current, n.Retired, n.ByType
		}
		out.Stores = append(out.Stores, s)
	}
	return out, nil
}

// Dedupe is what a write's duplicate check did, beside the saved memory.
type Dedupe struct {
	Reinforced bool `json:"reinforced" jsonschema:"an existing memory made the same claim and was reinforced instead"`
	// PossibleDuplicateOf is the full id of an alike memory that makes a
	// different claim.
	PossibleDuplicateOf string `json:"possible_duplicate_of,omitempty" jsonschema:"full id of an alike memory making a different claim"`
}

// NewDedupe is the duplicate check's outcome as JSON.
func NewDedupe(o *index.Outcome) Dedupe {
	d := Dedupe{Reinforced: o.Reinforced}
	if o.PossibleDuplicateOf != nil {
		d.PossibleDuplicateOf = o.PossibleDuplicateOf.ID
	}
	return d
}
