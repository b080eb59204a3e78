// Package surface owns what every surface of git-mem (the CLI, the hooks,
// the MCP server and the web page) does per request, written once below
// them so that each surface stays a thin adapter:
//
//   - opening the set of stores on the request's clock and the git date
//     variables the caller read from its environment (OpenStores, UseClock);
//   - merging the memory a plain git fetch brought and scrubbing the caches
//     after a teammate's purge (MergeFetched, AfterPulls);
//   - anchoring a new memory at the code state it was written against
//     (Anchor);
//   - listing the newest memories from the recall snapshot (Newest);
//   - the JSON shapes the CLI and the MCP server both return around the one
//     view of a memory (memview.View): a recall hit (Hit), a version of a
//     memory's history (Version), the counts of the stores (Stats) and what
//     a write's duplicate check did (Dedupe).
//
// Each surface keeps its own words: errors and results here carry facts,
// and the CLI, the hooks and the MCP server say what to do next.
//
// surface reads no environment variable: the caller passes what it read.
// It imports neither bleve, cobra nor the MCP SDK, so git-mem-hook links it.
package surface
