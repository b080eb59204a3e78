package memfile

import (
	"regexp"
	"strings"
	"sync"

	"github.com/git-mem/git-mem/gitstore"
)

var (
	decisionText   = lazyRegexp(`(?i)\b(we|i|the team)\s+(decided|chose|agreed|picked|settled on|opted)\b|\bdecided (to|that|on)\b|^decision:`)
	gotchaText     = lazyRegexp(`(?i)\b(gotchas?|beware|careful|watch out|caveats?|pitfalls?|breaks|fails|throws|hangs|flaky|crashes)\b`)
	preferenceText = lazyRegexp(`(?i)\b(i|user|the user)\s+(prefers?|likes?|wants?|dislikes?|hates?)\b`)
	ruleText       = lazyRegexp(`(?i)\b(never|always|must|do not|don't|dont|should|shouldn't|avoid)\b`)
	codeSpan       = lazyRegexp("`([^`\n]+)`")
)

// commandWords are programs a command in backticks commonly starts with.
var commandWords = map[string]bool{
	"go": true, "npm": true, "npx": true, "pnpm": true, "yarn": true, "bun": true, "bunx": true, "deno": true, "node": true,
	"make": true, "just": true, "cargo": true, "rustup": true, "python": true, "python3": true, "pip": true, "pip3": true,
	"uv": true, "uvx": true, "poetry": true, "pytest": true, "tox": true, "ruff": true, "mypy": true, "git": true,
	"docker": true, "kubectl": true, "helm": true, "terraform": true, "bash": true, "sh": true, "zsh": true,
	"mvn": true, "gradle": true, "./gradlew": true, "dotnet": true, "bundle": true, "rake": true, "rails": true,
	"php": true, "composer": true, "mix": true, "swift": true, "xcodebuild": true, "flutter": true, "dart": true,
	"gh": true, "curl": true, "brew": true, "apt": true, "apt-get": true, "psql": true, "redis-cli": true,
	"jest": true, "vitest": true, "playwright": true, "tsc": true, "eslint": true, "prettier": true, "turbo": true, "nx": true,
	"cmake": true, "ctest": true, "bazel": true, "sbt": true, "lein": true, "stack": true, "cabal": true, "gem": true,
}

var shellLangs = map[string]bool{"": true, "sh": true, "bash": true, "shell": true, "console": true, "zsh": true, "fish": true, "powershell": true, "ps1": true, "pwsh": true, "cmd": true, "bat": true}

// looksLikeCommand reports a code span that is a command line: a known
// program, or a local script, with arguments or alone.
func looksLikeCommand(span string) bool {
	f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(span), "$ "))
	if len(f) == 0 {
		return false
	}
	prog := f[0]
	if commandWords[prog] {
		return len(f) > 1 || prog == "make" || prog == "just"
	}
	return strings.HasPrefix(prog, "./") || strings.HasPrefix(prog, "scripts/") || strings.HasPrefix(prog, "bin/")
}

// hasCommand reports a command in backticks in text.
func hasCommand(text string) bool {
	for _, m := range codeSpan().FindAllStringSubmatch(text, -1) {
		if looksLikeCommand(m[1]) {
			return true
		}
	}
	return false
}

// sectionType is the type a heading names, "" when it names none;
// command sections count only for text holding a command.
func sectionType(heading string) string {
	h := strings.ToLower(heading)
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(h, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("decision", "adr"):
		return gitstore.TypeDecision
	case has("gotcha", "pitfall", "caveat", "known issue", "troubleshoot", "warning", "watch out", "common mistake"):
		return gitstore.TypeGotcha
	case has("preference"):
		return gitstore.TypePreference
	case has("convention", "style", "guideline", "rules", "standards", "best practice", "naming", "do's", "dos and"):
		return gitstore.TypeConvention
	case has("command", "script", "build", "how to run", "running", "setup", "development", "testing", "tests"):
		return gitstore.TypeCommand
	}
	return ""
}

// InferType is the type the text (then its section heading) says a memory
// is; fact when neither says. See the package documentation for the order.
func InferType(text, heading string) string {
	switch {
	case decisionText().MatchString(text):
		return gitstore.TypeDecision
	case gotchaText().MatchString(text):
		return gitstore.TypeGotcha
	case preferenceText().MatchString(text):
		return gitstore.TypePreference
	}
	section := sectionType(heading)
	if section != "" && section != gitstore.TypeCommand {
		return section
	}
	switch {
	case ruleText().MatchString(text):
		return gitstore.TypeConvention
	case hasCommand(text) || section == gitstore.TypeCommand && strings.Contains(text, "`"):
		return gitstore.TypeCommand
	}
	return gitstore.TypeFact
}

// lazyRegexp compiles a pattern on its first use, not when the package is
// initialized: every git-mem process links this package, few import files.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
