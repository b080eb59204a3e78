package gitconfig

import "strings"

// Subsections returns the subsections of section that set key, in the
// order git reads them, each once: for section "mem" and key "url", the
// NAMEs of every mem.NAME.url (a multi-level NAME such as "link.acme" is
// returned whole). It reads what Get reads, includes followed through git
// when a file has them.
func (c *Config) Subsections(section, key string) []string {
	sec := strings.ToLower(section) + "."
	suffix := "." + strings.ToLower(key)
	entries := c.entries
	if strings.EqualFold(section, memSection) {
		if mem, ok := c.memSettings(); ok {
			entries = mem
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name, sec)
		if !ok {
			continue
		}
		sub, ok := strings.CutSuffix(rest, suffix)
		if !ok || sub == "" || seen[sub] {
			continue
		}
		seen[sub] = true
		out = append(out, sub)
	}
	return out
}
