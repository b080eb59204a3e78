package install

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Codex's config.toml is edited as text, so that everything else in it —
// comments, order, formatting — stays as it was: git-mem's MCP server is one
// table (with its subtables), preceded by a marker comment, replaced in place
// on a re-install and removed on uninstall.

const tomlMarker = "# git-mem MCP server (managed by git mem install)"

// The patterns are compiled on first use: the hook binary links this file
// but runs it only when installing.
var tomlHeader = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$`)
})

// tomlSection is one table: its header line index and the index after its
// last line.
type tomlSection struct {
	name       string
	start, end int
}

func tomlSections(lines []string) []tomlSection {
	var out []tomlSection
	for i, l := range lines {
		if m := tomlHeader().FindStringSubmatch(l); m != nil {
			if len(out) > 0 {
				// comment lines right above a header belong to it
				end := i
				for end > out[len(out)-1].start+1 && strings.HasPrefix(strings.TrimSpace(lines[end-1]), "#") {
					end--
				}
				out[len(out)-1].end = end
			}
			out = append(out, tomlSection{name: m[1], start: i, end: len(lines)})
		}
	}
	return out
}

// tomlServer returns the MCP server a table belongs to ("" when it is no
// mcp_servers table): mcp_servers.NAME or mcp_servers."NAME", subtables included.
func tomlServer(name string) string {
	rest, ok := strings.CutPrefix(name, "mcp_servers.")
	if !ok {
		return ""
	}
	if strings.HasPrefix(rest, `"`) {
		if end := strings.Index(rest[1:], `"`); end >= 0 {
			return rest[1 : end+1]
		}
		return ""
	}
	if i := strings.Index(rest, "."); i >= 0 {
		rest = rest[:i]
	}
	return strings.TrimSpace(rest)
}

var tomlCommand = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*command\s*=\s*"([^"]*)"`)
})

var tomlArgs = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*args\s*=\s*\[\s*"([^"]*)"(?:\s*,\s*"([^"]*)")?`)
})

// ownServers names the mcp_servers tables that run git-mem's MCP server.
func ownServers(lines []string, secs []tomlSection) map[string]bool {
	own := map[string]bool{}
	for _, s := range secs {
		srv := tomlServer(s.name)
		if srv == "" || s.name != "mcp_servers."+srv && s.name != `mcp_servers."`+srv+`"` {
			continue
		}
		if srv == MCPServerName {
			own[srv] = true
			continue
		}
		var cmd, a0, a1 string
		for _, l := range lines[s.start+1 : s.end] {
			if m := tomlCommand().FindStringSubmatch(l); m != nil {
				cmd = m[1]
			}
			if m := tomlArgs().FindStringSubmatch(l); m != nil {
				a0, a1 = m[1], m[2]
			}
		}
		base := cmd[strings.LastIndexAny(cmd, `/\`)+1:]
		base = strings.TrimSuffix(base, ".exe")
		if base == "git-mem" && a0 == "mcp" || base == "git" && a0 == "mem" && a1 == "mcp" {
			own[srv] = true
		}
	}
	return own
}

// tomlCut removes git-mem's server tables (and their marker comments) and
// reports the line where the first one was (-1: none).
func tomlCut(old []byte) (lines []string, at int) {
	lines = strings.Split(string(old), "\n")
	secs := tomlSections(lines)
	own := ownServers(lines, secs)
	drop := map[int]bool{}
	at = -1
	for _, s := range secs {
		if srv := tomlServer(s.name); srv != "" && own[srv] {
			start := s.start
			if start > 0 && strings.TrimSpace(lines[start-1]) == tomlMarker {
				start--
			}
			for i := start; i < s.end; i++ {
				drop[i] = true
			}
			if at < 0 {
				at = start
			}
		}
	}
	var kept []string
	newAt := -1
	for i, l := range lines {
		if i == at {
			newAt = len(kept)
		}
		if !drop[i] {
			kept = append(kept, l)
		}
	}
	return kept, newAt
}

func tomlBlock(o InstallOptions) []string {
	return []string{
		tomlMarker,
		"[mcp_servers." + MCPServerName + "]",
		"command = " + strconv.Quote(binaryOr(o.Binary)),
		`args = ["mcp"]`,
		"",
	}
}

// tomlSetMCP puts git-mem's MCP server table into a config.toml: where it
// was, else at the end.
func tomlSetMCP(old []byte, o InstallOptions) []byte {
	lines, at := tomlCut(old)
	block := tomlBlock(o)
	if at < 0 {
		for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
			lines = lines[:len(lines)-1]
		}
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, block...)
		return []byte(strings.Join(lines, "\n"))
	}
	out := append(append(append([]string(nil), lines[:at]...), block...), lines[at:]...)
	return []byte(tidyBlank(strings.Join(out, "\n")))
}

// tomlRemoveMCP removes git-mem's MCP server tables; nil when nothing else is left.
func tomlRemoveMCP(old []byte) []byte {
	lines, at := tomlCut(old)
	if at < 0 {
		return old
	}
	s := tidyBlank(strings.Join(lines, "\n"))
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return []byte(s)
}

// tidyBlank collapses runs of blank lines left by a cut and ends the text
// with one newline.
func tidyBlank(s string) string {
	for strings.Contains(s, "\n\n\n") {
		s = strings.ReplaceAll(s, "\n\n\n", "\n\n")
	}
	return strings.TrimRight(s, "\n") + "\n"
}
