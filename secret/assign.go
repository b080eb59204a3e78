package secret

import "strings"

// maxValueLen bounds how far a value is read past its separator, which
// keeps scanAssignments linear on pathological input such as "a=a=a=…".
const maxValueLen = 1024

// pair is one key=value found by nextPair, as byte offsets into the text.
type pair struct {
	keyStart, keyEnd int
	sep              string
	valStart, valEnd int
	quoted           bool
}

// nextPair finds the first key=value whose separator is at or after from, in
// the shapes agents write them: shell and .env (KEY=value), YAML and JSON
// ("key": "value"), code (key := "value", 'key' => 'value'), TOML/INI
// (key = value). A key is [A-Za-z_][A-Za-z0-9_.-]*, optionally quoted; a value
// is double-, single- or back-quoted on one line, or else runs up to
// whitespace, a quote, ',', ';' or '&'. It returns the pair and where to
// search next; ok is false when there is none left.
func nextPair(text string, from int) (p pair, next int, ok bool) {
	for i := from; i < len(text); {
		j := strings.IndexAny(text[i:], "=:")
		if j < 0 {
			return pair{}, len(text), false
		}
		i += j
		sepStart := i
		sep := text[i : i+1]
		if i+1 < len(text) {
			switch two := text[i : i+2]; two {
			case ":=", "=>", "==":
				sep = two
			}
		}
		i += len(sep)

		// The key ends just before the separator, past blanks and a quote.
		k := sepStart
		for k > 0 && (text[k-1] == ' ' || text[k-1] == '\t') {
			k--
		}
		if k > 0 && (text[k-1] == '"' || text[k-1] == '\'') {
			k--
		}
		keyEnd := k
		for k > 0 && isKeyByte(text[k-1]) {
			k--
		}
		for k < keyEnd && !isLetter(text[k]) && text[k] != '_' {
			k++
		}
		if k == keyEnd {
			continue
		}

		// The value starts after blanks.
		v := i
		for v < len(text) && (text[v] == ' ' || text[v] == '\t') {
			v++
		}
		if v >= len(text) {
			continue
		}
		limit := min(len(text), v+1+maxValueLen)
		switch q := text[v]; q {
		case '"', '\'', '`':
			end := strings.IndexAny(text[v+1:limit], string(q)+"\n")
			if end < 0 || text[v+1+end] != q {
				continue
			}
			return pair{k, keyEnd, sep, v + 1, v + 1 + end, true}, i, true
		}
		e := v
		for e < limit && !isValueStop(text[e]) {
			e++
		}
		if e == v {
			continue
		}
		return pair{k, keyEnd, sep, v, e, false}, i, true
	}
	return pair{}, len(text), false
}

func isKeyByte(c byte) bool {
	return isLetter(c) || isDigitByte(c) || c == '_' || c == '.' || c == '-'
}

func isValueStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v', '"', '\'', '`', ',', ';', '&':
		return true
	}
	return false
}

// hashKey tells the keys that name values that are digests by nature
// (go.sum's h1:, lock-file integrity, image digests): they are never run
// through the entropy rule. The word lists here are switches, which the
// compiler lays out, where maps were built at every process start.
func hashKey(w string) bool {
	switch w {
	case "h1", "sha", "sha1", "sha224", "sha256", "sha384", "sha512", "md5", "blake2b", "blake3",
		"integrity", "checksum", "hash", "digest", "etag", "sum", "commit", "rev", "revision", "oid",
		"fingerprint", "thumbprint", "ref", "tree", "parent":
		return true
	}
	return false
}

// passwordWord tells the words that, ending a key, make it name a password.
func passwordWord(w string) bool {
	switch w {
	case "password", "passwd", "passphrase", "passcode", "pass", "pwd":
		return true
	}
	return false
}

// secretWord tells the words that, ending a key, make it name another
// secret.
func secretWord(w string) bool {
	switch w {
	case "secret", "token", "apikey", "credential", "secretkey", "accesskey", "privatekey", "authkey",
		"clientsecret", "authtoken":
		return true
	}
	return false
}

// secretPair tells the two-word endings: api_key, secret_access_key, …
func secretPair(w string) bool {
	switch w {
	case "api key", "access key", "secret key", "auth key", "private key", "signing key",
		"encryption key", "master key", "account key", "app key", "key base", "session key",
		"client key", "license key", "webhook key":
		return true
	}
	return false
}

// scanAssignments adds to generic every key=value whose key names a secret
// and whose value is a literal, and to entropic every other key=value whose
// value looks random (highEntropy).
func scanAssignments(text string, generic, entropic []candidate) ([]candidate, []candidate) {
	if !strings.ContainsAny(text, "=:") {
		return generic, entropic
	}
	for pos := 0; ; {
		p, next, ok := nextPair(text, pos)
		if !ok {
			break
		}
		pos = next
		key, sep := text[p.keyStart:p.keyEnd], p.sep
		vs, ve, quoted := p.valStart, p.valEnd, p.quoted
		if !quoted {
			// Sentence punctuation after an unquoted value is not part of it.
			for ve > vs && strings.IndexByte(".)]}", text[ve-1]) >= 0 {
				ve--
			}
		}
		value := text[vs:ve]
		if value == "" {
			continue
		}
		if sep == ":" && !quoted && strings.HasPrefix(value, "//") {
			continue // scheme://…, handled by the URL rule
		}

		words := keyWords(key)
		kind := secretKind(words)
		if kind != "" {
			if !literalValue(value, quoted) {
				continue
			}
			// "password: see the vault entry" — an unquoted word followed by
			// more words is prose, not an assignment.
			if !quoted && looksLikeWord(value) && followedByWord(text, ve) {
				continue
			}
			if isAWSSecretKey(words, value) {
				kind = "AWS secret access key"
			}
			generic = append(generic, candidate{Finding{Kind: kind, Start: vs, End: ve}, len(contextRules)})
			continue
		}
		if len(words) > 0 && hashKey(words[len(words)-1]) {
			continue
		}
		if !quoted && nestedPair(value) {
			// "Next: commit=a4c1…": the value is itself a key=value, which
			// the reader visits next under its own key
			continue
		}
		if highEntropy(value) {
			entropic = append(entropic, candidate{Finding{Kind: "high-entropy value", Start: vs, End: ve}, 0})
		}
	}
	return generic, entropic
}

// secretKind tells whether a key, split into lower-case words, names a
// password ("password assignment"), another secret ("secret assignment"), or
// nothing secret (""). Only the key's last word(s) count, so DB_PASSWORD and
// apiKey name secrets while password_min_length and max_tokens do not.
func secretKind(words []string) string {
	n := len(words)
	if n == 0 {
		return ""
	}
	last := words[n-1]
	if passwordWord(last) {
		if last == "pwd" && n == 1 {
			return "" // $PWD is the working directory
		}
		return "password assignment"
	}
	if secretWord(last) {
		return "secret assignment"
	}
	if n >= 2 && secretPair(words[n-2]+" "+last) {
		return "secret assignment"
	}
	return ""
}

// isAWSSecretKey recognises aws_secret_access_key = <40 base64 characters>.
func isAWSSecretKey(words []string, v string) bool {
	if len(v) != 40 {
		return false
	}
	hasSecret, hasAccess := false, false
	for _, w := range words {
		hasSecret = hasSecret || w == "secret"
		hasAccess = hasAccess || w == "access" || w == "accesskey"
	}
	if !hasSecret || !hasAccess {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !isLetter(c) && !isDigitByte(c) && c != '+' && c != '/' {
			return false
		}
	}
	return true
}

// keyWords splits a key into lower-case words at '_', '-', '.' and case
// changes: "AWS_SECRET_ACCESS_KEY" → aws secret access key, "dbPassword" →
// db password, "APIKey" → api key.
func keyWords(key string) []string {
	var words []string
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, asciiLower(key[start:end]))
		}
		start = -1
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !isLetter(c) && !isDigitByte(c) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := key[i-1]
		switch {
		case isUpperByte(c) && isLowerByte(prev):
			flush(i) // dbPassword
			start = i
		case isUpperByte(c) && isUpperByte(prev) && i+1 < len(key) && isLowerByte(key[i+1]):
			flush(i) // APIKey
			start = i
		}
	}
	flush(len(key))
	return words
}

// followedByWord reports whether text after position i continues with a space
// and a letter, as a sentence does.
func followedByWord(text string, i int) bool {
	return i+1 < len(text) && text[i] == ' ' && isLetter(text[i+1])
}

// nestedPair reports a value that starts with a key and '=' (commit=…),
// not base64 padding (…Q==).
func nestedPair(v string) bool {
	i := strings.IndexByte(v, '=')
	return i > 0 && i+1 < len(v) && v[i+1] != '=' && isIdent(v[:i])
}
