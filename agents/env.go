package agents

// envSignals are the environment variables that name the agent a process
// runs under, in the order they are tried. shell marks the variables an
// agent sets only in the processes it starts (its shell tool, its hooks);
// the others (CODEX_HOME, GEMINI_PROJECT_DIR, CLAUDE_CODE_SESSION_ID) a user
// may also set in every shell, so they are trusted only in a hook, which the
// agent itself starts.
var envSignals = []struct {
	name, agent string
	shell       bool
}{
	{"CLAUDECODE", Claude, true},
	{"CLAUDE_CODE_SESSION_ID", Claude, false},
	{"GEMINI_CLI", Gemini, true},
	{"GEMINI_PROJECT_DIR", Gemini, false},
	{"CODEX_SANDBOX", Codex, true},
	{"CODEX_THREAD_ID", Codex, true},
	{"CODEX_HOME", Codex, false},
	// Qwen Code sets these in its hooks (measured; docs/agents.md)
	{"QWEN_PROJECT_DIR", Qwen, false},
	{"QWEN_CODE_SESSION_ID", Qwen, false},
	// the Copilot CLI sets COPILOT_CLI=1 in every process it starts
	{"COPILOT_CLI", Copilot, true},
	{"COPILOT_PROJECT_DIR", Copilot, false},
	// OpenCode's own process has OPENCODE=1, which its shells inherit
	{"OPENCODE", OpenCode, true},
}

// mimics are the agents whose hooks also get other agents' variables
// (GEMINI_PROJECT_DIR, CLAUDE_PROJECT_DIR) and payload fields: they are
// recognised first.
var mimics = []string{Qwen, Copilot, OpenCode}

// agentOrder is the order agents are recognised from the environment when
// several signals are set.
var agentOrder = append(append([]string(nil), mimics...), Claude, Gemini, Codex)

// fromEnv names the first agent (in agentOrder) with a set signal; onlyShell
// keeps to the variables set only inside an agent's own processes.
func fromEnv(getenv func(string) string, onlyShell bool) string {
	return fromEnvAmong(getenv, agentOrder, onlyShell)
}

// fromEnvOf names the first of the agents with any set signal.
func fromEnvOf(getenv func(string) string, among []string) string {
	return fromEnvAmong(getenv, among, false)
}

func fromEnvAmong(getenv func(string) string, order []string, onlyShell bool) string {
	if getenv == nil {
		return ""
	}
	for _, a := range order {
		for _, s := range envSignals {
			if s.agent == a && (s.shell || !onlyShell) && getenv(s.name) != "" {
				return a
			}
		}
	}
	return ""
}

// InShell names the agent whose shell tool runs this process (one of Names),
// or "" when none: a command a person types is not recorded as an agent's.
func InShell(getenv func(string) string) string { return fromEnv(getenv, true) }
