package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// MaxFrameBytes bounds one inbound JSON-RPC message (one line).
const MaxFrameBytes = 10 << 20

// frameFilter stands between the client's stream and the SDK's stdio
// transport, which ends the session on the first line it cannot decode. It
// reads newline-delimited JSON-RPC and passes on only the lines that decode
// as one message (request, notification or response). Every other line is
// answered here with a JSON-RPC error and dropped, so that one malformed line
// never kills the server:
//
//   - not UTF-8, not JSON, or a truncated object: -32700 (parse error), id null;
//   - JSON that is no JSON-RPC 2.0 message ({}, [], null, 42, a wrong
//     "jsonrpc" or id): -32600 (invalid request), with the message's id
//     when it has a usable one, else null;
//   - a batch (an array): -32600; MCP since 2025-06-18 has no batches;
//   - a line over MaxFrameBytes: -32600, and the rest of the line is skipped.
//
// Blank lines are ignored, as the SDK does.
type frameFilter struct {
	r       *bufio.Reader
	out     *lockedWriter
	pending []byte
	err     error
}

func newFrameFilter(in io.Reader, out *lockedWriter) *frameFilter {
	return &frameFilter{r: bufio.NewReaderSize(in, 64<<10), out: out}
}

func (f *frameFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, tooLong, err := f.readLine()
		if err != nil {
			f.err = err
		}
		f.pending = f.check(line, tooLong)
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// readLine reads up to and including the next newline (or to the end of the
// stream); a line longer than MaxFrameBytes is consumed but not kept.
func (f *frameFilter) readLine() (line []byte, tooLong bool, err error) {
	for {
		chunk, err := f.r.ReadSlice('\n')
		if !tooLong && len(line)+len(chunk) > MaxFrameBytes {
			tooLong, line = true, nil
		}
		if !tooLong {
			line = append(line, chunk...)
		}
		if err != bufio.ErrBufferFull {
			return line, tooLong, err
		}
	}
}

// check returns the line to pass on (with its newline), or nil after
// answering it with an error.
func (f *frameFilter) check(line []byte, tooLong bool) []byte {
	if tooLong {
		f.reply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message over %d bytes: not read", MaxFrameBytes))
		return nil
	}
	msg := bytes.TrimSpace(line)
	switch {
	case len(msg) == 0:
		return nil
	case !utf8.Valid(msg):
		f.reply(nil, jsonrpc.CodeParseError, "parse error: the message is not valid UTF-8")
		return nil
	case !json.Valid(msg):
		f.reply(nil, jsonrpc.CodeParseError, "parse error: not a JSON value (or a truncated one); send one JSON-RPC message per line")
		return nil
	case msg[0] == '[':
		f.reply(nil, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported; send one message per line")
		return nil
	}
	if _, err := jsonrpc.DecodeMessage(msg); err != nil {
		f.reply(idOf(msg), jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		return nil
	}
	return append(msg, '\n')
}

// idOf is the id of a malformed message when it is a string or a number.
func idOf(msg []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(m.ID, &v) != nil {
		return nil
	}
	switch v.(type) {
	case string, float64:
		return m.ID
	}
	return nil
}

// reply writes a JSON-RPC error response (id null when id is nil).
func (f *frameFilter) reply(id json.RawMessage, code int64, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	resp := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id}
	resp.Error.Code, resp.Error.Message = code, message
	data, err := json.Marshal(resp)
	if err != nil {
		return
	}
	_, _ = f.out.Write(append(data, '\n'))
}

// lockedWriter serializes writes to the client, so that the filter's error
// replies and the SDK's messages never interleave (each is one Write).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }
