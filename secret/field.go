package secret

import "strings"

// URLWithPassword finds a URL whose userinfo carries a password
// (scheme://user:password@host) in a value that should never hold one: a
// file path or a tag. Unlike the connection-string rule for free text, the
// password need not look like a literal: a path is not a URL, so one with a
// password in it is refused whatever the password is, except a reference to
// a variable ($DB_PASSWORD, ${DB_PASSWORD}) or a mask (****), which hold
// none. The finding spans the URL from its scheme to the '@'.
func URLWithPassword(v string) (Finding, bool) {
	for from := 0; ; {
		i := strings.Index(v[from:], "://")
		if i < 0 {
			return Finding{}, false
		}
		i += from
		from = i + 3
		start, ok := schemeStart(v, i)
		if !ok {
			continue
		}
		rest := v[i+3:]
		end := strings.IndexAny(rest, "/?#")
		if end < 0 {
			end = len(rest)
		}
		authority := rest[:end]
		at := strings.LastIndexByte(authority, '@')
		if at < 0 {
			continue
		}
		userinfo := authority[:at]
		if strings.ContainsAny(userinfo, " \t\n") {
			continue
		}
		_, password, ok := strings.Cut(userinfo, ":")
		if !ok || password == "" || strings.HasPrefix(password, "$") || strings.Trim(password, "*") == "" {
			continue
		}
		return Finding{Kind: "URL with a password", Start: start, End: i + 3 + at}, true
	}
}
