//go:build !unix

package embedding

import (
	"context"
	"net"
)

// dial opens a TCP connection to host:port within ctx (see dial_unix.go
// for why unix systems do without package net).
func dial(ctx context.Context, host, port string) (stream, error) {
	var d net.Dialer
	return d.DialContext(ctx, "tcp", net.JoinHostPort(host, port))
}
