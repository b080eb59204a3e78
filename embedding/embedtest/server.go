// Package embedtest starts a stand-in OpenAI-compatible /v1/embeddings
// server for tests: deterministic vectors, no model. A text's vector is a
// hashed bag of its concepts (a word, or the concept Synonyms maps it to),
// so texts sharing concepts are near and texts sharing none are nearly
// orthogonal.
package embedtest

import (
	"encoding/json"
	"hash/fnv"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode"
)

// Dim is the stand-in's vector dimension unless Server.Dim is set.
const Dim = 256

// Paraphrases are the concepts the tests' paraphrases use: a query in
// these words shares no word with the memory it means, only its meaning.
// Tests read it; none changes it.
var Paraphrases = map[string]string{
	"widget": "frobnicator", "keys": "credentials", "cycling": "rotate",
	"weekly": "every", "tue": "tuesday",
}

// Server is a running stand-in. Its fields may be changed while it runs.
type Server struct {
	*httptest.Server

	mu sync.Mutex
	// Synonyms maps a word to the concept it stands for.
	Synonyms map[string]string
	// Dim is the dimension of the vectors answered.
	Dim int
	// Delay is waited before each answer (a slow endpoint).
	Delay time.Duration
	// Status, when not 0 or 200, is answered with an error body.
	Status int
	// Body, when set, is answered as is (a wrong endpoint).
	Body string
	// Requests counts the requests; Inputs the texts embedded; Keys the
	// Authorization headers seen.
	Requests, Inputs int
	Auth             []string
}

// Start starts a stand-in that is closed when the test ends.
func Start(t testing.TB, synonyms map[string]string) *Server {
	s := &Server{Synonyms: synonyms, Dim: Dim}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Set changes the server's behaviour under its lock.
func (s *Server) Set(fn func(s *Server)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(s)
}

// Counts returns the requests and inputs served so far.
func (s *Server) Counts() (requests, inputs int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Requests, s.Inputs
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.Requests++
	s.Auth = append(s.Auth, r.Header.Get("Authorization"))
	delay, status, body, dim, syn := s.Delay, s.Status, s.Body, s.Dim, s.Synonyms
	s.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	if status != 0 && status != 200 {
		http.Error(w, `{"error":"stand-in failure"}`, status)
		return
	}
	if body != "" {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
		return
	}
	var req struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" {
		http.Error(w, `{"error":"bad request"}`, 400)
		return
	}
	var inputs []string
	if json.Unmarshal(req.Input, &inputs) != nil {
		var one string
		if json.Unmarshal(req.Input, &one) != nil {
			http.Error(w, `{"error":"bad input"}`, 400)
			return
		}
		inputs = []string{one}
	}
	s.mu.Lock()
	s.Inputs += len(inputs)
	s.mu.Unlock()
	type datum struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	}
	out := struct {
		Object string  `json:"object"`
		Data   []datum `json:"data"`
		Model  string  `json:"model"`
	}{Object: "list", Model: req.Model}
	for i, in := range inputs {
		out.Data = append(out.Data, datum{"embedding", i, Vector(in, syn, dim, req.Model)})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

// stop are words that carry no concept.
var stop = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "or": true, "of": true, "to": true, "in": true,
	"on": true, "at": true, "for": true, "with": true, "by": true, "is": true, "are": true, "be": true,
	"it": true, "this": true, "that": true, "we": true, "do": true, "does": true, "how": true,
	"what": true, "when": true, "where": true, "which": true, "should": true, "our": true, "i": true,
}

// Vector is the stand-in's vector of text for a model (a different model
// gives different vectors).
func Vector(text string, synonyms map[string]string, dim int, model string) []float64 {
	v := make([]float64, dim)
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	n := 0
	for _, w := range words {
		if stop[w] {
			continue
		}
		if c, ok := synonyms[w]; ok {
			w = c
		}
		h := fnv.New64a()
		h.Write([]byte(model + "\x00" + w))
		x := h.Sum64()
		sign := 1.0
		if x>>63 == 1 {
			sign = -1
		}
		v[int(x%uint64(dim))] += sign
		n++
	}
	if n == 0 {
		v[0] = 1
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	norm = math.Sqrt(norm)
	for i := range v {
		v[i] /= norm
	}
	return v
}

// DeadURL is the address of a port nothing listens on.
func DeadURL(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// Raw starts a server on 127.0.0.1 that answers every connection by
// calling answer once it has the connection (the request is read and
// dropped meanwhile): a hostile or broken endpoint, byte by byte. sent
// returns how many bytes answer managed to send in all. The server is
// closed when the test ends; answer's writes fail from then on.
func Raw(t testing.TB, answer func(w io.Writer) error) (url string, sent func() int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	done := make(chan struct{})
	t.Cleanup(func() { close(done); l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				read := make(chan struct{})
				go func() { io.Copy(io.Discard, c); close(read) }()
				answer(&countingWriter{c, &n, done})
				// closed with the request unread, the connection would be
				// reset, and the client lose the end of the answer
				c.(*net.TCPConn).CloseWrite()
				select {
				case <-read:
				case <-done:
				}
			}()
		}
	}()
	return "http://" + l.Addr().String(), n.Load
}

type countingWriter struct {
	w    io.Writer
	n    *atomic.Int64
	done chan struct{}
}

func (c *countingWriter) Write(p []byte) (int, error) {
	select {
	case <-c.done:
		return 0, io.ErrClosedPipe
	default:
	}
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// Forever is an answer that writes head, then fill over and over until
// the client stops reading.
func Forever(head, fill string) func(io.Writer) error {
	return func(w io.Writer) error {
		if _, err := io.WriteString(w, head); err != nil {
			return err
		}
		block := []byte(strings.Repeat(fill, max(1, (64<<10)/len(fill))))
		for {
			if _, err := w.Write(block); err != nil {
				return err
			}
		}
	}
}

// Stall is an answer that writes head, then nothing until the server
// closes.
func Stall(head string) func(io.Writer) error {
	return func(w io.Writer) error {
		if _, err := io.WriteString(w, head); err != nil {
			return err
		}
		for {
			time.Sleep(20 * time.Millisecond)
			if _, err := w.Write(nil); err != nil {
				return err
			}
		}
	}
}

// Trickle is an answer that writes head, then one byte of fill at a time,
// slowly, until the client stops reading.
func Trickle(head string, fill byte) func(io.Writer) error {
	return func(w io.Writer) error {
		if _, err := io.WriteString(w, head); err != nil {
			return err
		}
		for {
			if _, err := w.Write([]byte{fill}); err != nil {
				return err
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
