package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Hook events (the argument of git mem hook).
const (
	EventSessionStart = "session-start"
	EventPrompt       = "prompt"
	EventSessionEnd   = "session-end"
	EventStop         = "stop"
)

// Events lists the hook events.
var Events = []string{EventSessionStart, EventPrompt, EventSessionEnd, EventStop}

// NormalizeEvent maps an event argument (ours or an agent's name for it) to
// one of Events; "" when unknown.
func NormalizeEvent(e string) string {
	switch strings.ToLower(strings.TrimSpace(e)) {
	case "sessionstart", "session-start", "session_start":
		return EventSessionStart
	case "userpromptsubmit", "beforeagent", "beforesubmitprompt", "prompt":
		return EventPrompt
	case "sessionend", "session-end", "session_end":
		return EventSessionEnd
	case "stop", "afteragent":
		return EventStop
	}
	return ""
}

// Payload is the union of the fields git-mem reads from the agents' hook
// payloads; everything else is ignored.
type Payload struct {
	SessionID      string   `json:"session_id"`
	ConversationID string   `json:"conversation_id"`
	Cwd            string   `json:"cwd"`
	WorkspaceRoots []string `json:"workspace_roots"`
	HookEventName  string   `json:"hook_event_name"`
	Source         string   `json:"source"`
	Prompt         string   `json:"prompt"`
	StopHookActive bool     `json:"stop_hook_active"`
	AgentID        string   `json:"agent_id"`
	AgentType      string   `json:"agent_type"`
	TurnID         string   `json:"turn_id"`
	Timestamp      string   `json:"timestamp"`
	CursorVersion  string   `json:"cursor_version"`
	PermissionMode string   `json:"permission_mode"`
	InitialPrompt  string   `json:"initial_prompt"`
	Reason         string   `json:"reason"`
	// TranscriptPath is kept raw: Codex sends null where Claude Code sends a path.
	TranscriptPath json.RawMessage `json:"transcript_path"`
}

// ErrPayload is returned for a hook payload that is empty or not a JSON
// object.
var ErrPayload = errors.New("invalid hook payload")

// ParsePayload decodes a hook payload. Empty input and anything but a JSON
// object fail with ErrPayload.
func ParsePayload(data []byte) (*Payload, error) {
	// trimmed in place: a payload of megabytes (up to the hooks' cap) is not
	// copied before it is refused
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: empty hook payload on stdin", ErrPayload)
	}
	if data[0] != '{' {
		return nil, fmt.Errorf("%w: the hook payload is not a JSON object", ErrPayload)
	}
	var p Payload
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%w: the hook payload is not valid JSON: %v", ErrPayload, err)
	}
	return &p, nil
}

// Session is the payload's session id (Cursor: conversation_id).
func (p *Payload) Session() string {
	if p.SessionID != "" {
		return p.SessionID
	}
	return p.ConversationID
}

// Dir is the directory the agent works in: cwd, else Cursor's first
// workspace root.
func (p *Payload) Dir() string {
	if p.Cwd != "" {
		return p.Cwd
	}
	for _, r := range p.WorkspaceRoots {
		if r != "" {
			return r
		}
	}
	return ""
}

// Subagent reports whether the hook runs inside a subagent.
func (p *Payload) Subagent() bool { return p.AgentID != "" }

// copilotShaped reports whether a payload with a timestamp is the Copilot
// CLI's rather than the Gemini CLI's: Claude's event names (Gemini has
// BeforeAgent and AfterAgent), SessionStart's initial_prompt, or a
// SessionEnd reason only Copilot sends.
func copilotShaped(p *Payload) bool {
	switch {
	case p.InitialPrompt != "", p.HookEventName == "UserPromptSubmit", p.HookEventName == "Stop":
		return true
	case p.HookEventName == "SessionEnd":
		return p.Reason == "complete" || p.Reason == "error" || p.Reason == "user_exit"
	}
	return false
}

// Detect names the agent that sent a hook payload: from the payload's own
// fields, else from the environment the agent started the hook in, else
// Claude Code.
func Detect(p *Payload, getenv func(string) string) string {
	// Qwen Code and the Copilot CLI send Gemini's and Claude Code's payload
	// fields (timestamp) and set GEMINI_PROJECT_DIR and CLAUDE_PROJECT_DIR
	// too: their own variables come first
	if a := fromEnvOf(getenv, mimics); a != "" {
		return a
	}
	if p != nil {
		switch {
		case p.ConversationID != "" || len(p.WorkspaceRoots) > 0 || p.CursorVersion != "":
			return Cursor
		case p.Timestamp != "" && p.PermissionMode != "":
			return Qwen // Gemini sends no permission_mode, Claude Code no timestamp
		case p.Timestamp != "" && copilotShaped(p):
			return Copilot
		case p.Timestamp != "" || p.HookEventName == "BeforeAgent" || p.HookEventName == "AfterAgent":
			return Gemini
		case p.TurnID != "":
			return Codex
		}
	}
	if a := fromEnv(getenv, false); a != "" {
		return a
	}
	if p != nil && string(p.TranscriptPath) == "null" {
		return Codex // Codex's transcript_path is string|null; Claude Code always sends one
	}
	return Claude
}
