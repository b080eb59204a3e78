// Package memview owns the one outside shape of a memory (View): what the
// CLI's --json, the MCP tools' structured output and the JSON exports show
// of a gitstore.Memory, with the same field names everywhere, its display
// id and its effective trust at the time the view was made. The memory
// model stays gitstore's; this is its face towards readers.
package memview
