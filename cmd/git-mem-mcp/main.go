// Command git-mem-mcp is git-mem's MCP server, in a binary of its own: it
// alone links the bleve search index and the MCP SDK, whose package
// initialization would otherwise slow down every git-mem command. Agents'
// configs run "git-mem mcp", which becomes this binary (found beside
// git-mem, else on PATH); it takes the same flags and environment:
//
//	git-mem-mcp [--agent NAME] [-C DIR]
//
// It serves on stdin/stdout until stdin closes, and brings the search index
// up to date in the background when it starts.
package main

import (
	"context"
	"io"
	"os"

	"github.com/git-mem/git-mem/cmd"
	"github.com/git-mem/git-mem/index"
	"github.com/git-mem/git-mem/index/bleveindex"
	"github.com/git-mem/git-mem/mcp"
)

func main() {
	index.UseEngine(bleveindex.Engine{})
	os.Exit(cmd.MCPMain(serve))
}

// serve runs the MCP server with the options git mem mcp parsed.
func serve(ctx context.Context, o cmd.MCPOptions, in io.Reader, out io.Writer) error {
	return mcp.New(mcp.Options{
		Dir:      o.Dir,
		Agent:    o.Agent,
		Session:  o.Session,
		Version:  o.Version,
		Now:      o.Now,
		GitDates: o.GitDates,
		Logger:   o.Logger,
	}).Run(ctx, in, out)
}
