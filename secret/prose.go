package secret

import "strings"

// scanProse adds to generic a random-looking value written right after a
// secret's name in prose, without = or : ("aws secret key <value>", "api
// token <value>"): the assignment rules need a separator, and an agent's
// note often has none. The value must be the next word, at least
// minEntropyLen bytes, and pass the entropy rule; the name is a secret word
// or pair as for assignments (secretWord, secretPair, passwordWord).
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
	name := func(i int) bool {
		w := strings.Trim(words[i], ".,;:()\"'`")
		if secretWord(w) || passwordWord(w) && w != "pwd" && w != "pass" {
			return true
		}
		if i > 0 {
			prev := strings.Trim(words[i-1], ".,;:()\"'`")
			return secretPair(prev + " " + w)
		}
		return false
	}
	for i := 0; i+1 < len(words); i++ {
		if !name(i) {
			continue
		}
		start := offs[i+1]
		value := text[start : start+len(words[i+1])]
		value = strings.TrimRight(value, ".,;)\"'`")
		value = strings.TrimLeft(value, "(\"'`")
		if len(value) < minEntropyLen || !highEntropy(value) {
			continue
		}
		vs := strings.Index(text[start:], value) + start
		generic = append(generic, candidate{Finding{Kind: "secret after its name", Start: vs, End: vs + len(value)}, len(contextRules) + 1})
	}
	return generic
}
