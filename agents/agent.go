package agents

import (
	"slices"
	"strings"
)

// The agents git-mem installs hooks for.
const (
	Claude = "claude"
	Codex  = "codex"
	Cursor = "cursor"
	Gemini = "gemini"
	// Qwen is Qwen Code, Copilot the GitHub Copilot CLI, OpenCode OpenCode
	// (hooks through a plugin git-mem writes; see install).
	Qwen     = "qwen"
	Copilot  = "copilot"
	OpenCode = "opencode"
)

// Names lists the agents git-mem installs hooks for.
var Names = []string{Claude, Codex, Cursor, Gemini, Qwen, Copilot, OpenCode}

// Normalize maps an agent name (claude, claude-code, codex, …) to one of
// Names; "" when unknown.
func Normalize(a string) string {
	switch strings.ToLower(strings.TrimSpace(a)) {
	case "claude", "claude-code", "claudecode":
		return Claude
	case "codex", "codex-cli":
		return Codex
	case "cursor":
		return Cursor
	case "gemini", "gemini-cli":
		return Gemini
	case "qwen", "qwen-code", "qwen-cli":
		return Qwen
	case "copilot", "copilot-cli", "github-copilot", "gh-copilot":
		return Copilot
	case "opencode", "opencode-ai":
		return OpenCode
	}
	return ""
}

// WriterName is how memories written by an agent name it (the Agent
// trailer): Claude Code is "claude-code", the others their own name.
func WriterName(agent string) string {
	if agent == Claude {
		return "claude-code"
	}
	return agent
}

// clientWords maps a word found in an MCP client's name to the writer name
// git-mem records, in the order they are tried. Short, common words match
// only a whole word of the name.
var clientWords = []struct {
	word, writer string
	whole        bool
}{
	{"claude-ai", "claude-desktop", false},
	{"claude desktop", "claude-desktop", false},
	{"claude", WriterName(Claude), false},
	{"codex", Codex, false},
	{"cursor", Cursor, false},
	{"gemini", Gemini, false},
	{"qwen", Qwen, false},
	{"windsurf", "windsurf", false},
	{"copilot", Copilot, false},
	{"visual studio code", "vscode", false},
	{"vscode", "vscode", false},
	{"opencode", OpenCode, false},
	{"zed", "zed", true},
	{"goose", "goose", true},
	{"cline", "cline", true},
	{"continue", "continue", true},
	{"aider", "aider", true},
}

// FromClientName turns an MCP clientInfo.name into the writer name recorded
// with writes: the known coding agents by their usual names ("claude-code",
// "codex", "cursor", "gemini", …; e.g. "codex-mcp-client" is "codex"), any
// other name lower-cased with runs of characters other than letters, digits,
// '.', '_' and '-' turned into '-', at most 40 characters. Empty for an empty
// name.
func FromClientName(name string) string {
	lower := strings.ToLower(strings.TrimSpace(name))
	words := strings.FieldsFunc(lower, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') })
	for _, k := range clientWords {
		if !k.whole && strings.Contains(lower, k.word) || k.whole && slices.Contains(words, k.word) {
			return k.writer
		}
	}
	var b strings.Builder
	dash := false
	for _, r := range lower {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
		if !ok {
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = true
			continue
		}
		dash = false
		b.WriteRune(r)
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > 40 {
		out = strings.TrimRight(out[:40], "-")
	}
	return out
}
