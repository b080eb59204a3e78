package mcp

import sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

var _ = sdkmcp.NewServer
