package embedding

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits of what the endpoint may answer. Nothing it sends is buffered past
// them: a server that streams one endless header line or an endless body
// is cut off at the limit, not read until the deadline.
const (
	// maxHeader bounds the status line and headers together.
	maxHeader = 64 << 10
	// maxChunkLine bounds a chunk-size line (with its extensions).
	maxChunkLine = 4 << 10
	// bodyBase and bodyPerText bound an answer's body: room for the JSON
	// around the vectors, and for one vector of maxDim numbers, each
	// written at full float64 precision, per text asked.
	bodyBase    = 64 << 10
	bodyPerText = maxDim * 32
	maxDim      = 16384
	// batchSize is how many texts one request carries.
	batchSize = 32
)

// ErrEndpoint marks every failure of the endpoint: unreachable, too slow,
// or an answer that is not what was asked (status, JSON, dimensions).
var ErrEndpoint = errors.New("embedding endpoint")

// request embeds texts in one round trip within ctx, returning one unit
// vector per text.
func (e *Embedder) request(ctx context.Context, texts []string) ([][]float32, error) {
	u, err := e.cfg.endpoint()
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(map[string]any{"model": e.cfg.Model, "input": texts})
	if err != nil {
		return nil, err
	}
	status, resp, err := post(ctx, u, e.key, body, answerLimit(len(texts)))
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrEndpoint, u.Redacted(), err)
	}
	if status != 200 {
		return nil, fmt.Errorf("%w %s answered HTTP %d: %s", ErrEndpoint, u.Redacted(), status, snippet(resp))
	}
	vs, err := decodeVectors(resp, len(texts))
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrEndpoint, u.Redacted(), err)
	}
	return vs, nil
}

// answerLimit is the largest body accepted in answer to n texts.
func answerLimit(n int) int64 {
	return bodyBase + int64(n)*bodyPerText
}

// snippet is the start of a response, for an error message. It is the
// server's text: whoever prints it to a terminal escapes it.
func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 120 {
		cut := 120
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strings.ReplaceAll(s, "\n", " ")
}

// decodeVectors reads an OpenAI-compatible embeddings answer for n inputs.
func decodeVectors(resp []byte, n int) ([][]float32, error) {
	var r struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		return nil, fmt.Errorf("the answer is not an embeddings response: %v", err)
	}
	if len(r.Data) != n {
		return nil, fmt.Errorf("the answer holds %d embeddings for %d inputs", len(r.Data), n)
	}
	out := make([][]float32, n)
	dim := 0
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil {
			return nil, fmt.Errorf("the answer's embedding index %d is out of place", d.Index)
		}
		if len(d.Embedding) == 0 || len(d.Embedding) > maxDim || (dim != 0 && len(d.Embedding) != dim) {
			return nil, fmt.Errorf("the answer's embeddings have %d dimensions, expected %d", len(d.Embedding), max(dim, 1))
		}
		dim = len(d.Embedding)
		v, ok := unit(d.Embedding)
		if !ok {
			return nil, errors.New("the answer holds a zero or non-finite vector")
		}
		out[d.Index] = v
	}
	return out, nil
}

// unit is v scaled to length 1; ok is false for a zero or non-finite vector.
func unit(v []float64) ([]float32, bool) {
	var n float64
	for _, x := range v {
		n += x * x
	}
	n = math.Sqrt(n)
	if n == 0 || math.IsInf(n, 0) || math.IsNaN(n) {
		return nil, false
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x / n)
	}
	return out, true
}

// stream is a connection: *os.File on unix (dial_unix.go), net.Conn elsewhere.
type stream interface {
	io.ReadWriteCloser
	SetDeadline(time.Time) error
}

// post sends one HTTP/1.1 POST of a JSON body and reads the whole answer
// within ctx (which must carry a deadline). It is the smallest client a
// local model server needs: package net/http would add its start-up cost to
// every hook, embeddings configured or not.
func post(ctx context.Context, u *url.URL, key string, body []byte, limit int64) (int, []byte, error) {
	port := u.Port()
	if port == "" {
		port = "80"
	}
	conn, err := dial(ctx, u.Hostname(), port)
	if err != nil {
		return 0, nil, err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	var req bytes.Buffer
	fmt.Fprintf(&req, "POST %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: git-mem\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: %d\r\nConnection: close\r\n", u.RequestURI(), u.Host, len(body))
	if key != "" {
		fmt.Fprintf(&req, "Authorization: Bearer %s\r\n", key)
	}
	req.WriteString("\r\n")
	req.Write(body)
	if _, err := conn.Write(req.Bytes()); err != nil {
		return 0, nil, ctxErr(ctx, err)
	}
	status, resp, err := readResponse(bufio.NewReader(conn), limit)
	return status, resp, ctxErr(ctx, err)
}

// ctxErr prefers the context's reason (deadline) to the socket's.
func ctxErr(ctx context.Context, err error) error {
	if err != nil && (ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded)) {
		return fmt.Errorf("no answer in time: %w", ctx.Err())
	}
	return err
}

// errTooLarge is the failure of an answer past a limit.
var errTooLarge = errors.New("the answer is too large")

// readResponse reads a status line, headers and a body framed by
// Content-Length, chunked encoding or the end of the connection; the
// headers may take maxHeader bytes and the body limit.
func readResponse(br *bufio.Reader, limit int64) (int, []byte, error) {
	budget := maxHeader
	line, err := readLine(br, &budget)
	if err != nil {
		return 0, nil, err
	}
	proto, rest, _ := strings.Cut(line, " ")
	code, _, _ := strings.Cut(rest, " ")
	status, err := strconv.Atoi(code)
	if !strings.HasPrefix(proto, "HTTP/1.") || err != nil {
		return 0, nil, fmt.Errorf("not an HTTP answer: %q", snippet([]byte(line)))
	}
	length, chunked := int64(-1), false
	for {
		h, err := readLine(br, &budget)
		if err != nil {
			return 0, nil, err
		}
		if h == "" {
			break
		}
		k, v, _ := strings.Cut(h, ":")
		v = strings.TrimSpace(v)
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "content-length":
			if length, err = strconv.ParseInt(v, 10, 64); err != nil || length < 0 {
				return 0, nil, fmt.Errorf("bad Content-Length %q", snippet([]byte(v)))
			}
			if length > limit {
				return 0, nil, fmt.Errorf("%w: Content-Length %d, at most %d accepted", errTooLarge, length, limit)
			}
		case "transfer-encoding":
			chunked = strings.Contains(strings.ToLower(v), "chunked")
		}
	}
	var body []byte
	switch {
	case chunked:
		body, err = readChunked(br, limit)
	case length >= 0:
		// read as it arrives: a length announced is not yet a body sent
		body, err = io.ReadAll(io.LimitReader(br, length))
		if err == nil && int64(len(body)) < length {
			err = io.ErrUnexpectedEOF
		}
	default:
		body, err = io.ReadAll(io.LimitReader(br, limit+1))
		if err == nil && int64(len(body)) > limit {
			err = fmt.Errorf("%w: more than %d bytes", errTooLarge, limit)
		}
	}
	return status, body, err
}

func readChunked(br *bufio.Reader, limit int64) ([]byte, error) {
	var body []byte
	for {
		budget := maxChunkLine
		line, err := readLine(br, &budget)
		if err != nil {
			return nil, err
		}
		sz, _, _ := strings.Cut(line, ";")
		n, err := strconv.ParseInt(strings.TrimSpace(sz), 16, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("bad chunk size %q", snippet([]byte(line)))
		}
		if int64(len(body))+n > limit {
			return nil, fmt.Errorf("%w: more than %d bytes", errTooLarge, limit)
		}
		if n == 0 {
			return body, nil // trailers, if any, are not needed
		}
		start := len(body)
		body = append(body, make([]byte, n)...)
		if _, err := io.ReadFull(br, body[start:]); err != nil {
			return nil, err
		}
		budget = maxChunkLine
		if _, err := readLine(br, &budget); err != nil {
			return nil, err
		}
	}
}

// readLine reads one line of at most *budget bytes, taking them from the
// budget. It reads the line piece by piece, so a line that never ends
// costs at most the budget, never the whole stream.
func readLine(br *bufio.Reader, budget *int) (string, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		*budget -= len(frag)
		if *budget < 0 {
			return "", fmt.Errorf("%w: a header or chunk line runs past its limit", errTooLarge)
		}
		line = append(line, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return "", err
		}
		return strings.TrimRight(string(line), "\r\n"), nil
	}
}
