package secret

import (
	"regexp"
	"strings"
	"sync"
)

// rule is one compiled pattern. It runs only when one of its keywords occurs
// in the lower-cased text, which keeps Scan cheap on ordinary prose.
type rule struct {
	kind     string
	keywords []string              // lower-case literals, any of which must occur
	re       func() *regexp.Regexp // compiled when first needed (see pattern)
	group    int                   // submatch whose span is the finding; 0 is the whole match
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

// pattern compiles expr the first time a text holds one of its rule's
// keywords: compiling every rule would cost each write more than its scan,
// and most texts need none of them.
func pattern(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
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
	for _, m := range r.re().FindAllStringSubmatchIndex(subject, -1) {
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
// newTokenRules compiles the known-format rules, family by family, in the
// order of their ties.
func newTokenRules() []rule {
	var rules []rule
	for _, family := range []func() []rule{keyFileRules, cloudRules, codeAndChatRules, apiKeyRules, serviceRules} {
		rules = append(rules, family()...)
	}
	return rules
}

// keyFileRules are the specific rules for private keys and key files.
func keyFileRules() []rule {
	return []rule{
		{
			kind:     "GCP service-account private key",
			keywords: []string{`"private_key"`},
			re:       pattern(`"private_key"\s*:\s*"(-----BEGIN[^"]*)`),
			group:    1,
		},
		{
			kind:     "private key block",
			keywords: []string{"private key"},
			re:       pattern(`-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----)?`),
		},
		{
			kind:     "private key block",
			keywords: []string{"putty-user-key-file-"},
			re:       pattern(`PuTTY-User-Key-File-\d+:[^\n]*`),
		},
		{
			kind:     "age secret key",
			keywords: []string{"age-secret-key-1"},
			re:       pattern(`AGE-SECRET-KEY-1[0-9A-Z]{58}\b`),
			boundary: true,
			check:    notPlaceholderToken,
		},
	}
}

// cloudRules are the specific rules for the cloud providers' keys (AWS, Google, Azure).
func cloudRules() []rule {
	return []rule{
		{
			kind:     "AWS access key id",
			keywords: []string{"akia", "asia", "abia", "acca", "a3t"},
			re:       pattern(`(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16}\b`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Google API key",
			keywords: []string{"aiza"},
			re:       pattern(`AIza[0-9A-Za-z_\-]{35}`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Google OAuth client secret",
			keywords: []string{"gocspx-"},
			re:       pattern(`GOCSPX-[0-9A-Za-z_\-]{28}`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Azure storage account key",
			keywords: []string{"accountkey"},
			re:       pattern(`accountkey\s*=\s*([A-Za-z0-9+/]{40,}={0,2})`),
			onLower:  true,
			boundary: true,
			group:    1,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Azure shared access key",
			keywords: []string{"sharedaccesskey"},
			re:       pattern(`sharedaccesskey\s*=\s*([A-Za-z0-9+/]{20,}={0,2})`),
			onLower:  true,
			boundary: true,
			group:    1,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Azure SAS signature",
			keywords: []string{"sig="},
			re:       pattern(`[?&]sig=([A-Za-z0-9%+/]{30,}(?:=|%3[dD])*)`),
			group:    1,
			check:    notPlaceholderToken,
		},
	}
}

// codeAndChatRules are the specific rules for code hosts' and chat services' tokens and webhooks.
func codeAndChatRules() []rule {
	return []rule{
		{
			kind:     "GitHub token",
			keywords: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"},
			re:       pattern(`gh[pousr]_[A-Za-z0-9]{36,251}\b`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "GitHub token",
			keywords: []string{"github_pat_"},
			re:       pattern(`github_pat_[A-Za-z0-9_]{40,251}\b`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "GitLab token",
			keywords: []string{"glpat-", "glptt-", "gldt-", "glrt-", "glcbt-", "glsoat-", "glft-", "glimt-", "glagent-"},
			re:       pattern(`gl(?:pat|ptt|dt|rt|cbt|soat|ft|imt|agent)-[0-9A-Za-z_\-]{20,}`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Slack token",
			keywords: []string{"xox"},
			re:       pattern(`xox[abposre]-[0-9A-Za-z\-]{10,}`),
			boundary: true,
			check:    func(v string) bool { return notPlaceholderToken(v) && hasDigit(v) },
		},
		{
			kind:     "Slack token",
			keywords: []string{"xapp-"},
			re:       pattern(`xapp-\d-[0-9A-Za-z\-]{10,}`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Slack webhook URL",
			keywords: []string{"hooks.slack.com"},
			re:       pattern(`https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]{20,}`),
			check:    notPlaceholderToken,
		},
		{
			kind:     "Discord webhook URL",
			keywords: []string{"/api/webhooks/"},
			re:       pattern(`https?://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]{30,}`),
			check:    notPlaceholderToken,
		},
	}
}

// apiKeyRules are the specific rules for payment, AI and package registry keys.
func apiKeyRules() []rule {
	return []rule{
		{
			kind:     "Stripe secret key",
			keywords: []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_"},
			re:       pattern(`[sr]k_(?:live|test)_[0-9A-Za-z]{16,}`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Stripe webhook secret",
			keywords: []string{"whsec_"},
			re:       pattern(`whsec_[0-9A-Za-z+/=]{24,}`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Anthropic API key",
			keywords: []string{"sk-ant-"},
			re:       pattern(`sk-ant-[0-9A-Za-z_\-]{20,}`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "OpenAI API key",
			keywords: []string{"sk-"},
			re:       pattern(`sk-(?:proj-|svcacct-|admin-)?[0-9A-Za-z_\-]{20,}`),
			boundary: true,
			// A bare "sk-" prefix is common in prose (sk-learn-style names), so
			// the body must mix upper case, lower case and digits like a key.
			check: func(v string) bool { return notPlaceholderToken(v) && hasUpper(v) && hasLower(v) && hasDigit(v) },
		},
		{
			kind:     "npm token",
			keywords: []string{"npm_"},
			re:       pattern(`npm_[0-9A-Za-z]{36}\b`),
			boundary: true,
			check:    func(v string) bool { return notPlaceholderToken(v) && classes(v[4:]) >= 2 },
		},
		{
			kind:     "PyPI token",
			keywords: []string{"pypi-age"},
			re:       pattern(`pypi-AgE[0-9A-Za-z_\-]{50,}`),
			boundary: true,
			check:    notPlaceholderToken,
		},
	}
}

// serviceRules are the specific rules for other services' tokens, and JWTs.
func serviceRules() []rule {
	return []rule{
		{
			kind:     "Twilio API key",
			keywords: []string{"sk"},
			re:       pattern(`SK[0-9a-fA-F]{32}\b`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "SendGrid API key",
			keywords: []string{"sg."},
			re:       pattern(`SG\.[0-9A-Za-z_\-]{16,32}\.[0-9A-Za-z_\-]{16,64}`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Hugging Face token",
			keywords: []string{"hf_"},
			re:       pattern(`hf_[A-Za-z0-9]{30,}\b`),
			boundary: true,
			check:    func(v string) bool { return notPlaceholderToken(v) && hasUpper(v[3:]) && hasLower(v[3:]) },
		},
		{
			kind:     "Shopify token",
			keywords: []string{"shpat_", "shpca_", "shppa_", "shpss_"},
			re:       pattern(`shp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}\b`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "DigitalOcean token",
			keywords: []string{"dop_v1_", "doo_v1_", "dor_v1_"},
			re:       pattern(`do[por]_v1_[0-9a-f]{64}\b`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Databricks token",
			keywords: []string{"dapi"},
			re:       pattern(`dapi[0-9a-f]{32}(?:-\d)?\b`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Linear API key",
			keywords: []string{"lin_api_"},
			re:       pattern(`lin_api_[0-9A-Za-z]{40}\b`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "Telegram bot token",
			keywords: []string{":aa"},
			re:       pattern(`\d{8,10}:AA[0-9A-Za-z_\-]{33}\b`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		{
			kind:     "JWT",
			keywords: []string{"eyj"},
			re:       pattern(`eyJ[0-9A-Za-z_\-]{8,}\.eyJ[0-9A-Za-z_\-]{8,}\.[0-9A-Za-z_\-]{8,}`),
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
			re:    pattern("://[^\\s:/?#@\"'<>`]*:([^\\s/?#\"'<>`]+)@[^\\s/?#\"'<>`@]+"),
			body:  1,
			check: func(v string) bool { return literalValue(v, false) },
			start: schemeStart,
		},
		{
			kind:     "authorization header",
			keywords: []string{"authorization"},
			re:       pattern(`authorization["']?\s*[:=]\s*["']?(?:bearer|basic|token|bot)\s+([A-Za-z0-9._~+/\-]{8,}=*)`),
			onLower:  true,
			boundary: true,
			group:    1,
			check:    func(v string) bool { return literalValue(v, false) },
		},
		{
			kind:     "basic auth credentials",
			keywords: []string{"-u", "--user"},
			re:       pattern(`(?:^|\s)(?:-u|--user)[ =]["']?[^\s:"'$]+:([^\s"']+)`),
			group:    1,
			check:    func(v string) bool { return literalValue(v, false) },
		},
		{
			kind:     "password assignment",
			keywords: []string{"password"},
			// .netrc: machine host login user password secret
			re:       pattern(`login\s+\S+\s+password\s+(\S+)`),
			boundary: true,
			group:    1,
			check:    func(v string) bool { return literalValue(v, false) },
		},
		{
			kind:     "password assignment",
			keywords: []string{"--"},
			// --password hunter2 (a flag followed by a space, not '=')
			re:      pattern(`(?:^|\s)--?(?:[a-z0-9]+-)*(?:password|passwd|passphrase|token|secret|api-?key)[ \t]+["']?([^\s"'\-][^\s"']*)`),
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
			re:       pattern("(?:password|passphrase|passwd)\\s+(?:is|was)\\s+[\"'`]?([^\\s\"'`]*[^\\s\"'`.,;:!?)])"),
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
