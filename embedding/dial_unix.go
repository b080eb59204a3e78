//go:build unix

package embedding

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// dial opens a TCP connection to host:port within ctx without package net:
// linking it (its resolver) makes the hook binary a cgo, dynamically linked
// program, which every hook would pay for at start, embeddings configured
// or not. The socket is handed to the runtime's poller through os.NewFile,
// so reads, writes and the connect itself honour deadlines. host is an IP
// address, localhost, or a name in /etc/hosts: a local model's address.
func dial(ctx context.Context, host, port string) (stream, error) {
	p, err := strconv.Atoi(port)
	if err != nil || p <= 0 || p > 65535 {
		return nil, fmt.Errorf("bad port %q", port)
	}
	addrs, err := resolve(host)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, a := range addrs {
		f, err := connect(ctx, a, p)
		if err == nil {
			return f, nil
		}
		errs = append(errs, fmt.Errorf("connect %s: %w", netip.AddrPortFrom(a, uint16(p)), err))
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}

// resolve finds host's addresses without DNS.
func resolve(host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a.Unmap()}, nil
	}
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.IPv6Loopback()}, nil
	}
	if addrs := hostsFile("/etc/hosts", h); len(addrs) > 0 {
		return addrs, nil
	}
	return nil, fmt.Errorf("cannot resolve %q without DNS: give git config mem.embed.url an IP address, localhost, or a name listed in /etc/hosts", host)
}

// hostsFile returns the addresses path gives for name.
func hostsFile(path, name string) []netip.Addr {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []netip.Addr
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fs := strings.Fields(line)
		if len(fs) < 2 {
			continue
		}
		a, err := netip.ParseAddr(fs[0])
		if err != nil {
			continue
		}
		for _, n := range fs[1:] {
			if strings.EqualFold(n, name) {
				out = append(out, a.Unmap())
				break
			}
		}
	}
	return out
}

// connect makes one non-blocking connection and waits for it within ctx.
func connect(ctx context.Context, a netip.Addr, port int) (stream, error) {
	family := syscall.AF_INET
	var sa syscall.Sockaddr = &syscall.SockaddrInet4{Port: port, Addr: a.As4()}
	if !a.Is4() {
		family = syscall.AF_INET6
		sa = &syscall.SockaddrInet6{Port: port, Addr: a.As16()}
	}
	syscall.ForkLock.RLock()
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, err
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	cerr := syscall.Connect(fd, sa)
	if cerr != nil && cerr != syscall.EINPROGRESS && cerr != syscall.EINTR {
		syscall.Close(fd)
		return nil, cerr
	}
	f := os.NewFile(uintptr(fd), "embedding endpoint")
	if dl, ok := ctx.Deadline(); ok {
		f.SetDeadline(dl)
	}
	if cerr == nil {
		return f, nil
	}
	stop := context.AfterFunc(ctx, func() { f.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	var soErr error
	werr := rc.Write(func(fd uintptr) bool {
		// writable, or not yet: connected once the peer has a name
		if _, err := syscall.Getpeername(int(fd)); err == nil {
			return true
		}
		n, err := syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_ERROR)
		switch {
		case err != nil:
			soErr = err
		case n != 0:
			soErr = syscall.Errno(n)
		default:
			return false // still connecting: wait until writable
		}
		return true
	})
	if werr == nil {
		werr = soErr
	}
	if werr != nil {
		f.Close()
		return nil, werr
	}
	return f, nil
}
