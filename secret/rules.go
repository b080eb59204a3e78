package secret

import (
	"regexp"
	"strings"
)

// rule is one compiled pattern. It runs only when one of its keywords occurs
// in the lower-cased text, which keeps Scan cheap on ordinary prose.
type rule struct {
	kind     string
	keywords []string // lower-case literals, any of which must occur
	re       *regexp.Regexp
	group    int // submatch whose span is the finding; 0 is the whole match
	// body, when set, is the submatch that must pass check; 0 means the span.
	body  int
	check func(v string) bool
	// boundary requires a non-word byte (or the text's start) before the
	// match; patterns leave out a leading \b so that regexp can skip ahead
	// to their literal prefix.
	boundary bool
	// start, when set, moves the finding's start back from the match's
	// (the URL rule matches from "://" and adds the scheme); ok false drops it.
	start func(text string, s int) (int, bool)
	// onLower matches re against the lower-cased text (same offsets): a
	// case-insensitive rule written in lower case keeps its literal prefix.
	onLower bool
	kwIDs   []int // keyword numbers, set by newKeywordIndex
}

func (r *rule) find(text, lower string, found *keywordSet, prio int, out []candidate) []candidate {
	hit := false
	for _, id := range r.kwIDs {
		if found.has(id) {
			hit = true
			break
		}
	}
	if !hit {
		return out
	}
	subject := text
	if r.onLower {
		subject = lower
	}
	for _, m := range r.re.FindAllStringSubmatchIndex(subject, -1) {
		s, e := m[2*r.group], m[2*r.group+1]
		if s < 0 {
			continue
		}
		if r.boundary && m[0] > 0 && isWordByte(text[m[0]-1]) {
			continue
		}
		if r.start != nil {
			var ok bool
			if s, ok = r.start(text, s); !ok {
				continue
			}
		}
		if r.check != nil {
			bs, be := s, e
			if r.body > 0 {
				bs, be = m[2*r.body], m[2*r.body+1]
			}
			if bs < 0 || !r.check(text[bs:be]) {
				continue
			}
		}
		out = append(out, candidate{Finding{Kind: r.kind, Start: s, End: e}, prio})
	}
	return out
}

// tokenRules are the specific rules: formats that identify a credential by
// shape alone (a vendor prefix, a PEM header). They win over every generic
// rule. Earlier entries win ties at the same position (sk-ant- before sk-).
// newTokenRules compiles the known-format rules.
func newTokenRules() []rule {
	return []rule{
		{
			kind:     "GCP service-account private key",
			keywords: []string{`"private_key"`},
			re:       regexp.MustCompile(`"private_key"\s*:\s*"(-----BEGIN[^"]*)`),
			group:    1,
		},
		{
			kind:     "private key block",
			keywords: []string{"private key"},
			re:       regexp.MustCompile(`-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----)?`),
		},
		{
			kind:     "private key block",
			keywords: []string{"putty-user-key-file-"},
			re:       regexp.MustCompile(`PuTTY-User-Key-File-\d+:[^\n]*`),
		},
		{
			kind:     "age secret key",
			keywords: []string{"age-secret-key-1"},
			re:       regexp.MustCompile(`AGE-SECRET-KEY-1[0-9A-Z]{58}\b`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "AWS access key id",
			keywords: []string{"akia", "asia", "abia", "acca", "a3t"},
			re:       regexp.MustCompile(`(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16}\b`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Google API key",
			keywords: []string{"aiza"},
			re:       regexp.MustCompile(`AIza[0-9A-Za-z_\-]{35}`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Google OAuth client secret",
			keywords: []string{"gocspx-"},
			re:       regexp.MustCompile(`GOCSPX-[0-9A-Za-z_\-]{28}`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Azure storage account key",
			keywords: []string{"accountkey"},
			re:       regexp.MustCompile(`accountkey\s*=\s*([A-Za-z0-9+/]{40,}={0,2})`),
			onLower:  true,
			boundary: true,
			group:    1,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Azure shared access key",
			keywords: []string{"sharedaccesskey"},
			re:       regexp.MustCompile(`sharedaccesskey\s*=\s*([A-Za-z0-9+/]{20,}={0,2})`),
			onLower:  true,
			boundary: true,
			group:    1,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Azure SAS signature",
			keywords: []string{"sig="},
			re:       regexp.MustCompile(`[?&]sig=([A-Za-z0-9%+/]{30,}(?:=|%3[dD])*)`),
			group:    1,
			check:    notPlaceholderToken,
		},
		{
			kind:     "GitHub token",
			keywords: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"},
			re:       regexp.MustCompile(`gh[pousr]_[A-Za-z0-9]{36,251}\b`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "GitHub token",
			keywords: []string{"github_pat_"},
			re:       regexp.MustCompile(`github_pat_[A-Za-z0-9_]{40,251}\b`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "GitLab token",
			keywords: []string{"glpat-", "glptt-", "gldt-", "glrt-", "glcbt-", "glsoat-", "glft-", "glimt-", "glagent-"},
			re:       regexp.MustCompile(`gl(?:pat|ptt|dt|rt|cbt|soat|ft|imt|agent)-[0-9A-Za-z_\-]{20,}`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Slack token",
			keywords: []string{"xox"},
			re:       regexp.MustCompile(`xox[abposre]-[0-9A-Za-z\-]{10,}`),
			boundary: true,
			check:    func(v string) bool { return notPlaceholderToken(v) && hasDigit(v) },
		},
		{
			kind:     "Slack token",
			keywords: []string{"xapp-"},
			re:       regexp.MustCompile(`xapp-\d-[0-9A-Za-z\-]{10,}`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Slack webhook URL",
			keywords: []string{"hooks.slack.com"},
			re:       regexp.MustCompile(`https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]{20,}`),
			check:    notPlaceholderToken,
		},
		{
			kind:     "Discord webhook URL",
			keywords: []string{"/api/webhooks/"},
			re:       regexp.MustCompile(`https?://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]{30,}`),
			check:    notPlaceholderToken,
		},
		{
			kind:     "Stripe secret key",
			keywords: []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_"},
			re:       regexp.MustCompile(`[sr]k_(?:live|test)_[0-9A-Za-z]{16,}`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Stripe webhook secret",
			keywords: []string{"whsec_"},
			re:       regexp.MustCompile(`whsec_[0-9A-Za-z+/=]{24,}`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Anthropic API key",
			keywords: []string{"sk-ant-"},
			re:       regexp.MustCompile(`sk-ant-[0-9A-Za-z_\-]{20,}`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "OpenAI API key",
			keywords: []string{"sk-"},
			re:       regexp.MustCompile(`sk-(?:proj-|svcacct-|admin-)?[0-9A-Za-z_\-]{20,}`),
			boundary: true,
			// A bare "sk-" prefix is common in prose (sk-learn-style names), so
			// the body must mix upper case, lower case and digits like a key.
			check: func(v string) bool { return notPlaceholderToken(v) && hasUpper(v) && hasLower(v) && hasDigit(v) },
		},
		{
			kind:     "npm token",
			keywords: []string{"npm_"},
			re:       regexp.MustCompile(`npm_[0-9A-Za-z]{36}\b`),
			boundary: true,
			check:    func(v string) bool { return notPlaceholderToken(v) && classes(v[4:]) >= 2 },
		},
		{
			kind:     "PyPI token",
			keywords: []string{"pypi-age"},
			re:       regexp.MustCompile(`pypi-AgE[0-9A-Za-z_\-]{50,}`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Twilio API key",
			keywords: []string{"sk"},
			re:       regexp.MustCompile(`SK[0-9a-fA-F]{32}\b`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "SendGrid API key",
			keywords: []string{"sg."},
			re:       regexp.MustCompile(`SG\.[0-9A-Za-z_\-]{16,32}\.[0-9A-Za-z_\-]{16,64}`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Hugging Face token",
			keywords: []string{"hf_"},
			re:       regexp.MustCompile(`hf_[A-Za-z0-9]{30,}\b`),
			boundary: true,
			check:    func(v string) bool { return notPlaceholderToken(v) && hasUpper(v[3:]) && hasLower(v[3:]) },
		},
		{
			kind:     "Shopify token",
			keywords: []string{"shpat_", "shpca_", "shppa_", "shpss_"},
			re:       regexp.MustCompile(`shp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}\b`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "DigitalOcean token",
			keywords: []string{"dop_v1_", "doo_v1_", "dor_v1_"},
			re:       regexp.MustCompile(`do[por]_v1_[0-9a-f]{64}\b`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Databricks token",
			keywords: []string{"dapi"},
			re:       regexp.MustCompile(`dapi[0-9a-f]{32}(?:-\d)?\b`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Linear API key",
			keywords: []string{"lin_api_"},
			re:       regexp.MustCompile(`lin_api_[0-9A-Za-z]{40}\b`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Telegram bot token",
			keywords: []string{":aa"},
			re:       regexp.MustCompile(`\d{8,10}:AA[0-9A-Za-z_\-]{33}\b`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "JWT",
			keywords: []string{"eyj"},
			re:       regexp.MustCompile(`eyJ[0-9A-Za-z_\-]{8,}\.eyJ[0-9A-Za-z_\-]{8,}\.[0-9A-Za-z_\-]{8,}`),
			boundary: true,
			check:    notPlaceholderToken,
		},
	}
}

// contextRules are generic rules that need context (a URL's userinfo, a
// header name, a command-line flag) to tell a credential from ordinary text.
// The value they capture must pass literalValue.
// newContextRules compiles the context rules.
func newContextRules() []rule {
	return []rule{
		{
			kind:     "connection string with password",
			keywords: []string{"://"},
			// scheme://user:password@host — the password may itself hold '@' or
			// ':', the host starts after the last '@'.
			re:    regexp.MustCompile("://[^\\s:/?#@\"'<>`]*:([^\\s/?#\"'<>`]+)@[^\\s/?#\"'<>`@]+"),
			body:  1,
			check: func(v string) bool { return literalValue(v, false) },
			start: schemeStart,
		},
		{
			kind:     "authorization header",
			keywords: []string{"authorization"},
			re:       regexp.MustCompile(`authorization["']?\s*[:=]\s*["']?(?:bearer|basic|token|bot)\s+([A-Za-z0-9._~+/\-]{8,}=*)`),
			onLower:  true,
			boundary: true,
			group:    1,
			check:    func(v string) bool { return literalValue(v, false) },
		},
		{
			kind:     "basic auth credentials",
			keywords: []string{"-u", "--user"},
			re:       regexp.MustCompile(`(?:^|\s)(?:-u|--user)[ =]["']?[^\s:"'$]+:([^\s"']+)`),
			group:    1,
			check:    func(v string) bool { return literalValue(v, false) },
		},
		{
			kind:     "password assignment",
			keywords: []string{"password"},
			// .netrc: machine host login user password secret
			re:       regexp.MustCompile(`login\s+\S+\s+password\s+(\S+)`),
			boundary: true,
			group:    1,
			check:    func(v string) bool { return literalValue(v, false) },
		},
		{
			kind:     "password assignment",
			keywords: []string{"--"},
			// --password hunter2 (a flag followed by a space, not '=')
			re:      regexp.MustCompile(`(?:^|\s)--?(?:[a-z0-9]+-)*(?:password|passwd|passphrase|token|secret|api-?key)[ \t]+["']?([^\s"'\-][^\s"']*)`),
			onLower: true,
			group:   1,
			check:   func(v string) bool { return literalValue(v, false) && !looksLikeWord(v) },
		},
		{
			kind:     "password assignment",
			keywords: []string{"pass"},
			// "the staging password is hunter2": only a value that is not a
			// plain word, six bytes or more, so "the password is stored in
			// vault" stays prose.
			re:       regexp.MustCompile("(?:password|passphrase|passwd)\\s+(?:is|was)\\s+[\"'`]?([^\\s\"'`]*[^\\s\"'`.,;:!?)])"),
			onLower:  true,
			boundary: true,
			group:    1,
			check: func(v string) bool {
				return len(v) >= 6 && literalValue(v, false) && !looksLikeWord(v)
			},
		},
	}
}

// schemeStart walks back from "://" over a URL scheme ([A-Za-z][A-Za-z0-9+.-]*,
// at most 32 bytes) and returns where the URL starts.
func schemeStart(text string, s int) (int, bool) {
	i := s
	for i > 0 && s-i < 32 && (isLetter(text[i-1]) || isDigitByte(text[i-1]) || strings.IndexByte("+.-", text[i-1]) >= 0) {
		i--
	}
	for i < s && !isLetter(text[i]) {
		i++
	}
	if i == s || (i > 0 && isWordByte(text[i-1])) {
		return 0, false
	}
	return i, true
}

func isWordByte(c byte) bool { return isLetter(c) || isDigitByte(c) || c == '_' }
