package handoff

import (
	"path"
	"strings"
	"unicode"

	"github.com/git-mem/git-mem/gitstore"
)

// noteKeys are a session note's retrieval keys, taken from what the session
// touched as a later reader would name it: the identifiers its commit
// subjects mention (most specific first), then the names of the files it
// changed without their extension, then the directories they sit in. The
// note's text holds the subjects and paths whole; the keys give recall the
// words inside them a question would use ("the refund webhook handler"
// finds a session whose subject says `verifyRefundWebhook`). None is a
// credential, and the list fits gitstore's limits.
func noteKeys(a *Activity) []string {
	var keys []string
	seen := map[string]bool{}
	add := func(k string) {
		k = strings.Join(strings.Fields(k), " ")
		low := strings.ToLower(k)
		if len(keys) >= gitstore.MaxKeys || len(k) < 3 || len(k) > gitstore.MaxKeyBytes || seen[low] {
			return
		}
		if strings.ContainsFunc(k, unicode.IsControl) || gitstore.CheckSecrets(k) != nil {
			return
		}
		seen[low] = true
		keys = append(keys, k)
	}
	for _, c := range a.Commits {
		// "<short hash> <subject>"
		_, subject, _ := strings.Cut(c, " ")
		for _, id := range subjectIdentifiers(subject) {
			add(id)
		}
	}
	files := append(append([]string(nil), a.Changed...), a.Dirty...)
	for _, f := range files {
		base := path.Base(f)
		add(strings.TrimSuffix(base, path.Ext(base)))
	}
	for _, f := range files {
		if dir := path.Dir(f); dir != "." {
			add(dir)
		}
	}
	return keys
}

// subjectIdentifiers are the words of a commit subject that name code rather
// than say English: quoted in backticks, or holding an underscore, a dot
// between letters, a call's parentheses, a digit, or a capital after the
// first letter (camelCase, HTTPServer).
func subjectIdentifiers(subject string) []string {
	var out []string
	for {
		i := strings.IndexByte(subject, '`')
		if i < 0 {
			break
		}
		j := strings.IndexByte(subject[i+1:], '`')
		if j < 0 {
			break
		}
		out = append(out, subject[i+1:i+1+j])
		subject = subject[:i] + " " + subject[i+2+j:]
	}
	for _, w := range strings.Fields(subject) {
		w = strings.TrimRight(strings.TrimLeft(w, "\"'([{<"), "\"',.;:!?)]}>")
		w = strings.TrimSuffix(w, "()")
		if w == "" || !looksLikeIdentifier(w) {
			continue
		}
		out = append(out, w)
	}
	return out
}

func looksLikeIdentifier(w string) bool {
	if strings.Contains(w, "://") {
		return false
	}
	for i, r := range w {
		switch {
		case r == '_' || unicode.IsDigit(r):
			return true
		case r == '.' && i > 0 && i < len(w)-1:
			return true
		case i > 0 && unicode.IsUpper(r):
			return true
		}
	}
	return false
}
