package memview

import (
	"time"

	"github.com/git-mem/git-mem/gitstore"
)

// View is the one outside shape of a memory: the CLI's --json, the MCP
// tools' structured output and exports all use it, with the same field
// names. ID is the full id; ShortID the shortest unique prefix in its store,
// as listings show it (either is accepted wherever an id is taken). Trust is
// the effective trust at the time the view was made.
type View struct {
	ID           string           `json:"id" jsonschema:"the memory's full id"`
	ShortID      string           `json:"short_id" jsonschema:"the shortest unique prefix of the id, as listings show it"`
	Scope        string           `json:"scope" jsonschema:"project, private, personal, or org:NAME for a linked store"`
	Type         string           `json:"type"`
	Text         string           `json:"text,omitempty" jsonschema:"the memory's text; left out where a listing's text field shows it"`
	Tags         []string         `json:"tags"`
	Paths        []string         `json:"paths"`
	Keys         []string         `json:"keys,omitempty" jsonschema:"retrieval keys: other words a later reader might search with"`
	Source       string           `json:"source" jsonschema:"user, verified or inferred"`
	Tentative    bool             `json:"tentative,omitempty"`
	Pinned       bool             `json:"pinned,omitempty"`
	Trust        float64          `json:"trust" jsonschema:"effective trust, 0 to 1"`
	Agent        string           `json:"agent,omitempty" jsonschema:"the agent that wrote it"`
	Subagent     string           `json:"subagent,omitempty" jsonschema:"the subagent of that agent that wrote it, if one did"`
	Session      string           `json:"session,omitempty"`
	Author       string           `json:"author,omitempty" jsonschema:"the git identity that wrote it"`
	Anchor       *gitstore.Anchor `json:"anchor,omitempty"`
	Created      time.Time        `json:"created"`
	Updated      time.Time        `json:"updated"`
	ValidFrom    time.Time        `json:"valid_from"`
	ValidTo      *time.Time       `json:"valid_to,omitempty"`
	Supersedes   string           `json:"supersedes,omitempty"`
	SupersededBy string           `json:"superseded_by,omitempty"`
	Retired      bool             `json:"retired"`
	Events       []gitstore.Event `json:"events,omitempty"`
	Reinforced   []time.Time      `json:"reinforced,omitempty"`
	Origin       *gitstore.Origin `json:"origin,omitempty" jsonschema:"the file an import read it from"`
	Version      string           `json:"version" jsonschema:"this version of the memory; a change given it is made only while the memory is still at it"`
}

// New is the view of m at now; short is its display id ("" for the id's
// first gitstore.MinShownPrefix characters).
func New(m *gitstore.Memory, short string, now time.Time) View {
	tags, paths := m.Tags, m.Paths
	if tags == nil {
		tags = []string{}
	}
	if paths == nil {
		paths = []string{}
	}
	if short == "" {
		short = gitstore.Clip(m.ID, gitstore.MinShownPrefix)
	}
	return View{
		ID: m.ID, ShortID: short, Scope: string(m.Scope()), Type: m.Type, Text: m.Text,
		Tags: tags, Paths: paths, Keys: m.Keys, Source: m.Source, Tentative: m.Tentative, Pinned: m.Pinned,
		Trust: m.EffectiveTrust(now), Agent: m.Agent, Session: m.Session, Author: m.Author,
		Anchor: m.Anchor, Created: m.Created, Updated: m.Updated, ValidFrom: m.ValidFrom,
		ValidTo: m.ValidTo, Supersedes: m.Supersedes, SupersededBy: m.SupersededBy,
		Retired: m.Retired(now), Events: m.Events, Reinforced: m.Reinforced,
		Subagent: m.Subagent, Origin: m.Origin, Version: m.Version(),
	}
}
