package install

// SetInstructions is setInstructions for the tests: a file whose begin
// marker has no end marker is returned as it is, as install leaves it.
func SetInstructions(old []byte) []byte {
	out, err := setInstructions(old)
	if err != nil {
		return old
	}
	return out
}

// RemoveInstructions is removeInstructions for the tests, likewise.
func RemoveInstructions(old []byte) []byte {
	out, err := removeInstructions(old)
	if err != nil {
		return old
	}
	return out
}

// Paths lists the files install writes for the options: hooks, MCP server
// and instruction files (some may be the same file).
func Paths(o InstallOptions) (hooksFile, mcpFile, instrFile string, err error) {
	sp, err := spec(o)
	if err != nil {
		return "", "", "", err
	}
	return sp.HooksFile(o.scope()), sp.MCPFile(o.scope()), sp.InstructionsFile(o.scope()), nil
}
