package secret

import "strings"

// scanProse adds to generic a credential written after a secret's name in
// prose rather than in an assignment: "aws secret key <value>", "the AWS
// secret access key is <value>", "api token: <value>", "the password was
// <value>". The assignment rules need the name and the value side by side
// around a separator, and an agent's note often has words between them.
//
// The name is a secret word or pair as for assignments (secretWord,
// secretPair, passwordWord), alone or ending a key-like word
// (AWS_SECRET_ACCESS_KEY, dbPassword); up to three filler words may follow
// it (is, was, =, :, set to, …); then the next word is the value. After a
// secret's name the value must pass the entropy rule, or be 32 or more hex
// digits mixing letters and digits (a hex API key); after a password's name
// it must be a literal of six bytes or more that is not a plain word, as for
// "the password is …". Anything else ("the api token expires after fifteen
// minutes", "password reset emails") is prose.
func scanProse(text, lower string, generic []candidate) []candidate {
	words := strings.Fields(lower)
	if len(words) < 2 {
		return generic
	}
	// byte offsets of the fields, in text and lower alike
	offs := make([]int, 0, len(words))
	pos := 0
	for _, w := range words {
		i := strings.Index(lower[pos:], w)
		offs = append(offs, pos+i)
		pos += i + len(w)
	}
	const trim = ".,;:()\"'`"
	// name tells whether word i names a secret: 0 no, 1 a secret, 2 a password
	name := func(i int) int {
		w := strings.Trim(words[i], trim)
		if !plainName(w) {
			// $DB_PASSWORD, os.Getenv("DB_PASSWORD"), .data.password: a
			// reference to a secret, not its name before a value
			return 0
		}
		if passwordWord(w) {
			if w == "pwd" || w == "pass" {
				return 0 // the working directory; "pass the flag"
			}
			return 2
		}
		if secretWord(w) {
			return 1
		}
		if i > 0 && secretPair(strings.Trim(words[i-1], trim)+" "+w) {
			return 1
		}
		if strings.ContainsAny(w, "_-") {
			// a key-like word: AWS_SECRET_ACCESS_KEY, db-password
			raw := strings.Trim(text[offs[i]:offs[i]+len(words[i])], trim)
			switch secretKind(keyWords(raw)) {
			case "password assignment":
				return 2
			case "secret assignment":
				return 1
			}
		}
		return 0
	}
	for i := 0; i+1 < len(words); i++ {
		kind := name(i)
		if kind == 0 || strings.ContainsAny(words[i][len(words[i])-1:], ",;.") {
			continue // "key: password, secrets: inherit": a list, not a value
		}
		j := i + 1
		for k := 0; k < 3 && j+1 < len(words) && proseFiller(strings.Trim(words[j], ".,;")); k++ {
			j++
		}
		start := offs[j]
		if strings.Contains(text[offs[i]:start], "\n") {
			continue // a name ending a line, and whatever starts the next
		}
		value := text[start : start+len(words[j])]
		value = strings.TrimRight(value, ".,;)\"'`")
		value = strings.TrimLeft(value, "(\"'`")
		if value == "" || strings.HasSuffix(value, ":") {
			continue // a label that starts the next clause
		}
		switch kind {
		case 1:
			if !highEntropy(value) && !hexKey(value) {
				continue
			}
		case 2:
			if len(value) < 6 || !literalValue(value, false) || looksLikeWord(value) || strings.Contains(value, "/") {
				continue
			}
		}
		vs := strings.Index(text[start:], value) + start
		what := "secret after its name"
		if kind == 1 && isAWSSecretKey(nameWords(words[max(0, i-2):i+1]), value) {
			what = "AWS secret access key"
		}
		generic = append(generic, candidate{Finding{Kind: what, Start: vs, End: vs + len(value)}, len(contextRules) + 1})
	}
	return generic
}

// proseFiller tells the words that may stand between a secret's name and
// its value in a sentence.
func proseFiller(w string) bool {
	switch w {
	case "is", "was", "are", "were", "be", "=", ":", ":=", "-", "–", "—", "->", "=>", "set", "to", "now",
		"equals", "value", "reads", "of", "here", "still":
		return true
	}
	return false
}

// hexKey reports a hex API key: 32 hex digits or more, with letters and
// digits both, and no dashes (a UUID is an identifier far more often).
func hexKey(v string) bool {
	if len(v) < 32 || strings.Contains(v, "-") || !isHexish(v) {
		return false
	}
	return hasDigit(v) && strings.ContainsAny(asciiLower(v), "abcdef") && distinct(v) >= 10
}

// nameWords splits the words that name a secret into key words
// (AWS_SECRET_ACCESS_KEY: aws secret access key).
func nameWords(ws []string) []string {
	var out []string
	for _, w := range ws {
		out = append(out, keyWords(w)...)
	}
	return out
}

// plainName reports a word that can name a secret: letters, digits, '_' and
// '-' only.
func plainName(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; !isLetter(c) && !isDigitByte(c) && c != '_' && c != '-' {
			return false
		}
	}
	return w != ""
}
