package secret

import (
	"encoding/base64"
	"math"
	"strings"
)

// Tuning of the high-entropy rule; doc.go explains the choice.
const (
	// minEntropyLen is the shortest value the entropy rule looks at.
	minEntropyLen = 20
	// minEntropyBits is the Shannon entropy, in bits per byte, a value must
	// reach to count as random.
	minEntropyBits = 3.5
	// maxWordShare is the share of a value that may be made of word-like
	// runs (letters with a vowel, three or more long) before the value is
	// taken for an identifier such as processIncomingWebhookEventsV2.
	maxWordShare = 0.65
)

// placeholderWord tells the values that stand for a secret without being one,
// compared whole and case-insensitively.
func placeholderWord(l string) bool {
	switch l {
	case "changeme", "change_me", "change-me", "changeit", "example", "sample", "placeholder",
		"redacted", "masked", "hidden", "removed", "omitted", "secret", "password", "passwd", "token",
		"apikey", "api_key", "api-key", "credentials", "test", "testing", "dummy", "foo", "bar",
		"foobar", "value", "todo", "tbd", "fixme", "none", "null", "nil", "undefined", "empty", "unset",
		"true", "false", "yes", "no", "on", "off", "enabled", "disabled", "required", "optional",
		"default", "auto", "n/a", "string", "str", "bytes", "bool", "boolean", "number", "int", "any",
		"secretstr", "inherit", "env", "prompt":
		return true
	}
	return false
}

// placeholderParts mark a value as a stand-in wherever they occur in it.
var placeholderParts = []string{
	"xxxx", "****", "...", "${", "{{", "}}", "<", ">", "your", "example",
	"changeme", "change_me", "change-me", "placeholder", "redacted",
	"replace_me", "replaceme", "replace-me",
}

// placeholderTokenParts mark a vendor-prefixed token as a documentation
// stand-in; they are too unlikely in a random token to cost a real finding.
var placeholderTokenParts = []string{
	"example", "xxxxxx", "******", "your", "placeholder", "redacted", "...", "<",
}

// notPlaceholderToken reports whether a token-shaped match looks like a real
// token rather than a documentation stand-in such as ghp_xxxx…: it must not
// contain a placeholder part and must use at least eight distinct bytes.
func notPlaceholderToken(v string) bool {
	l := asciiLower(v)
	for _, p := range placeholderTokenParts {
		if strings.Contains(l, p) {
			return false
		}
	}
	return distinct(v) >= 8
}

// literalValue reports whether an assigned value is a literal secret rather
// than a placeholder, a reference to one (an environment variable, a template,
// an expression) or an ordinary word. quoted is true when the value was
// written between quotes, which makes it a literal for sure.
func literalValue(v string, quoted bool) bool {
	if len(v) < 4 {
		return false
	}
	l := asciiLower(v)
	if placeholderWord(l) {
		return false
	}
	for _, p := range placeholderParts {
		if strings.Contains(l, p) {
			return false
		}
	}
	switch v[0] {
	case '$', '%', '{', '[', '*', '#', '@', '(':
		// $VAR, ${VAR}, %VAR%, {name}, [REDACTED], ****, @Value(...)
		return false
	}
	if distinct(v) < 3 {
		return false // aaaa, 0000, abab
	}
	if strings.Contains(l, "://") && !strings.Contains(l, "@") {
		return false // a URL with no credentials, e.g. token_url=https://…
	}
	if !quoted {
		if strings.ContainsAny(v, "()[]") {
			return false // os.Getenv("X"), os.environ["X"], secrets[name]
		}
		if isDottedIdent(v) || isEnvName(v) {
			return false // settings.DB_PASSWORD, process.env.TOKEN, DB_PASSWORD
		}
		if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") ||
			strings.HasPrefix(v, "../") || strings.HasPrefix(v, "~/") {
			return false // a path to a secret file, not the secret
		}
		for _, p := range []string{"env:", "vault:", "file:", "op://", "ref+", "secret:", "secretsmanager:", "ssm:", "awskms:"} {
			if strings.HasPrefix(l, p) {
				return false
			}
		}
	}
	return true
}

// isDottedIdent reports a.b or a.b.c where each part is an identifier:
// a reference to a variable or a config field.
func isDottedIdent(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if !isIdent(p) {
			return false
		}
	}
	return true
}

func isIdent(p string) bool {
	if p == "" {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '_' || c == '$' || isLetter(c):
		case isDigitByte(c) && i > 0:
		default:
			return false
		}
	}
	return true
}

// isEnvName reports an upper-case name with an underscore such as
// DB_PASSWORD: the name of a variable that holds the secret.
func isEnvName(v string) bool {
	if !strings.Contains(v, "_") || !isUpperByte(v[0]) {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !isUpperByte(c) && !isDigitByte(c) && c != '_' {
			return false
		}
	}
	return true
}

// looksLikeWord reports a value made of letters only: in a sentence it is
// the next word, not a credential.
func looksLikeWord(v string) bool {
	for i := 0; i < len(v); i++ {
		if !isLetter(v[i]) {
			return false
		}
	}
	return true
}

// pathWithHash reports whether v is a path (or an underscored name) of
// names and at least one lower-case hex segment of eight or more digits
// (FuzzParseSpec/4f1c2a9e, builds/0a1b2c3d4e/app): a reference, not a secret. A base64 secret that
// holds a slash has no all-lower-case hex segment of that length but by
// rare chance, and then its other segments look random.
func pathWithHash(v string) bool {
	// a test name joins its parts with '_' as often as a path with '/'
	// (test_decode_9c0ffee1d2e3, FuzzParseSpec_4f1c2a9e)
	segs := strings.FieldsFunc(v, func(r rune) bool { return r == '/' || r == '_' })
	if len(segs) < 2 {
		return false
	}
	hash := false
	for _, s := range segs {
		switch {
		case s == "":
		case len(s) >= 8 && isLowerHex(s):
			hash = true
		case isName(s):
		default:
			return false
		}
	}
	return hash
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}

// isName reports whether s reads as an identifier: letters first, then
// letters, digits, _ . -, with at most a quarter digits.
func isName(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	digits := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigitByte(c):
			digits++
		case isLetter(c) || c == '_' || c == '.' || c == '-':
		default:
			return false
		}
	}
	return 4*digits <= len(s)
}

// highEntropy reports whether a value assigned to an ordinary key looks
// random enough to be a credential. See doc.go for the rule.
func highEntropy(v string) bool {
	if len(v) < minEntropyLen {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !isLetter(c) && !isDigitByte(c) && !strings.ContainsRune("+/=_-", rune(c)) {
			return false
		}
	}
	if isHexish(v) || classes(v) < 2 {
		return false // hashes, commit ids, UUIDs; one-case words
	}
	if pathWithHash(v) {
		return false // a fuzz corpus entry, a build id in a path: Name/4f1c2a9e
	}
	l := asciiLower(v)
	for _, p := range []string{"sha1-", "sha256-", "sha384-", "sha512-", "md5-"} {
		if strings.HasPrefix(l, p) {
			return false // subresource integrity, lock files
		}
	}
	if shannon(v) < minEntropyBits || wordShare(v) > maxWordShare {
		return false
	}
	if isBase64Text(v) {
		return false
	}
	return true
}

// isHexish reports hex digits with optional dashes: SHAs, UUIDs, digests.
func isHexish(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !isDigitByte(c) && !(c >= 'a' && c <= 'f') && !(c >= 'A' && c <= 'F') && c != '-' {
			return false
		}
	}
	return true
}

// isBase64Text reports a value that decodes, as base64, to printable text:
// encoded prose or config, not key material.
func isBase64Text(v string) bool {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(v)
		if err != nil || len(b) == 0 {
			continue
		}
		printable := true
		for _, c := range b {
			if (c < 0x20 || c > 0x7e) && c != '\n' && c != '\r' && c != '\t' {
				printable = false
				break
			}
		}
		if printable {
			return true
		}
	}
	return false
}

// shannon is the Shannon entropy of v in bits per byte.
func shannon(v string) float64 {
	var counts [256]int
	for i := 0; i < len(v); i++ {
		counts[v[i]]++
	}
	n := float64(len(v))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// wordShare is the share of v's letters and digits that lie in word-like
// runs: a run of letters (an optional capital then lower case, or all
// capitals), three or more long, that holds a vowel. Identifiers score high,
// random keys low. Separators (-_+/=) count on neither side.
func wordShare(v string) float64 {
	covered, alnum := 0, 0
	for i := 0; i < len(v); i++ {
		if isLetter(v[i]) || isDigitByte(v[i]) {
			alnum++
		}
	}
	if alnum == 0 {
		return 0
	}
	for i := 0; i < len(v); {
		j := i
		switch {
		case isUpperByte(v[i]) && i+1 < len(v) && isLowerByte(v[i+1]):
			j = i + 1
			for j < len(v) && isLowerByte(v[j]) {
				j++
			}
		case isLowerByte(v[i]):
			for j < len(v) && isLowerByte(v[j]) {
				j++
			}
		case isUpperByte(v[i]):
			for j < len(v) && isUpperByte(v[j]) && !(j+1 < len(v) && isLowerByte(v[j+1]) && j > i) {
				j++
			}
		default:
			i++
			continue
		}
		if j-i >= 3 && strings.ContainsAny(v[i:j], "aeiouyAEIOUY") {
			covered += j - i
		}
		i = j
	}
	return float64(covered) / float64(alnum)
}

func distinct(v string) int {
	var seen [256]bool
	n := 0
	for i := 0; i < len(v); i++ {
		if !seen[v[i]] {
			seen[v[i]] = true
			n++
		}
	}
	return n
}

// classes counts which of upper case, lower case and digits v uses.
func classes(v string) int {
	n := 0
	if hasUpper(v) {
		n++
	}
	if hasLower(v) {
		n++
	}
	if hasDigit(v) {
		n++
	}
	return n
}

func hasUpper(v string) bool {
	return strings.IndexFunc(v, func(r rune) bool { return r >= 'A' && r <= 'Z' }) >= 0
}
func hasLower(v string) bool {
	return strings.IndexFunc(v, func(r rune) bool { return r >= 'a' && r <= 'z' }) >= 0
}
func hasDigit(v string) bool {
	return strings.IndexFunc(v, func(r rune) bool { return r >= '0' && r <= '9' }) >= 0
}

func isUpperByte(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLowerByte(c byte) bool { return c >= 'a' && c <= 'z' }
func isLetter(c byte) bool    { return isUpperByte(c) || isLowerByte(c) }
func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }
