package gitstore

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	formatcfg "github.com/go-git/go-git/v5/plumbing/format/config"
)

// Config is git's configuration as git-mem reads it: system, global, then the
// repository's own file, later files winning (docs/architecture.md, configuration: settings are git
// config keys such as mem.injectChars). Include directives are not followed.
type Config struct {
	files []*formatcfg.Config
}

func loadConfig(commonDir string) *Config {
	c := &Config{}
	var paths []string
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		paths = append(paths, "/etc/gitconfig")
	}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		paths = append(paths, g)
	} else {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		home, _ := os.UserHomeDir()
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			paths = append(paths, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			paths = append(paths, filepath.Join(home, ".gitconfig"))
		}
	}
	if commonDir != "" {
		paths = append(paths, filepath.Join(commonDir, "config"))
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		cfg := formatcfg.New()
		if formatcfg.NewDecoder(f).Decode(cfg) == nil {
			c.files = append(c.files, cfg)
		}
		f.Close()
	}
	return c
}

// Get returns the last value of section[.subsection].key, or "" when unset.
func (c *Config) Get(section, subsection, key string) string {
	v := ""
	for _, f := range c.files {
		if !f.HasSection(section) {
			continue
		}
		s := f.Section(section)
		opts := s.Options
		if subsection != "" {
			if !s.HasSubsection(subsection) {
				continue
			}
			opts = s.Subsection(subsection).Options
		}
		if opts.Has(key) {
			all := opts.GetAll(key)
			v = all[len(all)-1]
		}
	}
	return v
}

// hasIncludes reports whether a file sets include or includeIf, which this
// reader does not follow.
func (c *Config) hasIncludes() bool {
	for _, f := range c.files {
		if f.HasSection("include") || f.HasSection("includeIf") {
			return true
		}
	}
	return false
}

// Int returns section.key as an integer, or def when unset or malformed.
func (c *Config) Int(section, key string, def int) int {
	if n, err := strconv.Atoi(strings.TrimSpace(c.Get(section, "", key))); err == nil {
		return n
	}
	return def
}

// Bool returns section.key as a git boolean (true/yes/on/1, false/no/off/0),
// or def when unset or malformed.
func (c *Config) Bool(section, key string, def bool) bool {
	switch strings.ToLower(strings.TrimSpace(c.Get(section, "", key))) {
	case "true", "yes", "on", "1":
		return true
	case "false", "no", "off", "0":
		return false
	}
	return def
}
