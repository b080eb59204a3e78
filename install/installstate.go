package install

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// The install state is a small JSON file (InstallOptions.StateFile) that
// maps a config file's path to the key paths of the user's empty objects
// an install filled. It is read and written only by install and uninstall;
// losing it only means an uninstall drops those objects once emptied.

func loadInstallState(path string) map[string][]string {
	st := map[string][]string{}
	if path == "" {
		return st
	}
	if data, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(data, &st) // a damaged state is as good as none
	}
	return st
}

func saveInstallState(path string, st map[string][]string) {
	if path == "" {
		return
	}
	if len(st) == 0 {
		os.Remove(path)
		return
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return
	}
	_ = os.MkdirAll(filepath.Dir(path), 0o755)
	_ = writeFileAtomic(path, append(data, '\n'))
}
