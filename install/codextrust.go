package install

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-mem/git-mem/internal/lockfile"
	"github.com/git-mem/git-mem/memerr"
)

// Codex runs a hook only when it is trusted: config.toml holds, per hook,
// [hooks.state."<sourcePath>:<event>:<group>:<handler>"] trusted_hash =
// "sha256:…", the hash of the hook's definition as Codex computes it. The
// keys and hashes come from Codex itself: its app-server answers the
// JSON-RPC request hooks/list with each hook's key, currentHash and
// trustStatus. TrustCodexHooks asks it and records trust for git-mem's own
// hooks only, each section preceded by a marker comment so uninstall removes
// exactly those.

const codexTrustMarker = "# git-mem hook trust (managed by git mem install)"

// codexTrustTimeout bounds the exchange with codex app-server.
const codexTrustTimeout = 20 * time.Second

// CodexHook is one hook as codex app-server lists it.
type CodexHook struct {
	Key         string `json:"key"`
	EventName   string `json:"eventName"`
	Command     string `json:"command"`
	SourcePath  string `json:"sourcePath"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
}

// ListCodexHooks asks codex app-server (codexBin, with env, CODEX_HOME
// included) which hooks apply in cwd.
func ListCodexHooks(ctx context.Context, codexBin string, env []string, cwd string) ([]CodexHook, error) {
	ctx, cancel := context.WithTimeout(ctx, codexTrustTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, codexBin, "app-server")
	cmd.Env = env
	cmd.Dir = cwd
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting codex app-server: %w", err)
	}
	defer func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	}()
	send := func(v any) error {
		data, _ := json.Marshal(v)
		_, err := stdin.Write(append(data, '\n'))
		return err
	}
	if err := send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"clientInfo": map[string]any{"name": "git-mem", "version": "1"}}}); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	type response struct {
		ID     *int            `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	waitFor := func(id int) (json.RawMessage, error) {
		for sc.Scan() {
			var r response
			if json.Unmarshal(sc.Bytes(), &r) != nil || r.ID == nil || *r.ID != id {
				continue
			}
			if r.Error != nil {
				return nil, errors.New("codex app-server: " + r.Error.Message)
			}
			return r.Result, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("codex app-server did not answer within %v", codexTrustTimeout)
		}
		return nil, fmt.Errorf("codex app-server ended without answering: %v", sc.Err())
	}
	if _, err := waitFor(1); err != nil {
		return nil, err
	}
	if err := send(map[string]any{"jsonrpc": "2.0", "method": "initialized"}); err != nil {
		return nil, err
	}
	if err := send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": map[string]any{"cwds": []string{cwd}}}); err != nil {
		return nil, err
	}
	raw, err := waitFor(2)
	if err != nil {
		return nil, err
	}
	var res struct {
		Data []struct {
			Hooks []CodexHook `json:"hooks"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("codex app-server hooks/list: %w", err)
	}
	var out []CodexHook
	for _, d := range res.Data {
		out = append(out, d.Hooks...)
	}
	return out, nil
}

// TrustCodexHooks records trust for git-mem's hooks among those Codex lists
// for cwd, in codexHome/config.toml, and returns their keys.
func TrustCodexHooks(ctx context.Context, codexBin, codexHome string, env []string, cwd string) ([]string, error) {
	hs, err := ListCodexHooks(ctx, codexBin, append(env, "CODEX_HOME="+codexHome), cwd)
	if err != nil {
		return nil, err
	}
	var own []CodexHook
	for _, h := range hs {
		if IsOwnCommand(h.Command) && h.Key != "" && strings.HasPrefix(h.CurrentHash, "sha256:") {
			own = append(own, h)
		}
	}
	if len(own) == 0 {
		return nil, fmt.Errorf("%w: codex lists none of git-mem's hooks for %s", memerr.ErrNotFound, cwd)
	}
	path := filepath.Join(codexHome, "config.toml")
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	data := old
	var keys []string
	for _, h := range own {
		if data, err = tomlSetTrust(data, h.Key, h.CurrentHash); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		keys = append(keys, h.Key)
	}
	if string(data) != string(old) {
		if err := lockfile.WriteAtomic(path, data, 0o644); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

func tomlTrustHeader(key string) string { return "[hooks.state." + tomlString(key) + "]" }

// tomlSetTrust puts one marked trust section into a config.toml, or
// updates the hash of the section of the same key in place.
func tomlSetTrust(old []byte, key, hash string) ([]byte, error) {
	d, err := parseTOML(old)
	if err != nil {
		return nil, tomlInvalid(err)
	}
	for i := range d.tables {
		t := &d.tables[i]
		if !slices.Equal(t.key, []string{"hooks", "state", key}) {
			continue
		}
		if kv := t.kv("trusted_hash"); kv != nil {
			return splice(old, kv.valStart, kv.valEnd, tomlString(hash)), nil
		}
		at := lineEnd(old, t.header)
		return splice(old, at, at, "trusted_hash = "+tomlString(hash)+"\n"), nil
	}
	return appendBlock(old, codexTrustMarker+"\n"+tomlTrustHeader(key)+"\ntrusted_hash = "+tomlString(hash)+"\n"), nil
}

// tomlRemoveTrust removes the trust sections git-mem recorded (those after
// its marker comment) for hooks of the file sourcePath; nil when nothing
// else is left.
func tomlRemoveTrust(old []byte, sourcePath string) ([]byte, error) {
	d, err := parseTOML(old)
	if err != nil {
		return nil, tomlInvalid(err)
	}
	found := false
	match := func(t *tomlTable) bool {
		ok := len(t.key) == 3 && t.key[0] == "hooks" && t.key[1] == "state" && strings.HasPrefix(t.key[2], sourcePath+":") &&
			strings.Contains(string(old[t.start:t.header]), codexTrustMarker)
		found = found || ok
		return ok
	}
	out := d.cut(match)
	if !found {
		return old, nil
	}
	if len(bytes.TrimSpace(out)) == 0 {
		return nil, nil
	}
	return out, nil
}

// UntrustCodexHooks removes the trust git-mem recorded for the hooks of
// sourcePath (a hooks.json) from codexHome/config.toml.
func UntrustCodexHooks(codexHome, sourcePath string) (bool, error) {
	path := filepath.Join(codexHome, "config.toml")
	old, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	data, err := tomlRemoveTrust(old, sourcePath)
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case string(data) == string(old):
		return false, nil
	case data == nil:
		return true, os.Remove(path)
	}
	return true, lockfile.WriteAtomic(path, data, 0o644)
}
