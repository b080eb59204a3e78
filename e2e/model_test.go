package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// Request is one request the model stand-in received.
type Request struct {
	// API is "anthropic" (Messages API), "openai" (Responses API) or "chat"
	// (OpenAI Chat Completions); empty for a request to any other path
	// (answered with 404).
	API    string
	Method string
	Path   string
	Body   []byte
	// N counts the requests of the same API before this one.
	N int
}

// Contains reports whether the raw body contains s.
func (r Request) Contains(s string) bool { return bytes.Contains(r.Body, []byte(s)) }

// JSON decodes the body (nil when it is not JSON).
func (r Request) JSON() map[string]any {
	var m map[string]any
	if json.Unmarshal(r.Body, &m) != nil {
		return nil
	}
	return m
}

// Offers reports whether the request offers the model a tool of that name
// (anywhere in its "tools", namespaces included).
func (r Request) Offers(name string) bool {
	m := r.JSON()
	if m == nil {
		return false
	}
	found := false
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if n, _ := x["name"].(string); n == name {
				found = true
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(m["tools"])
	return found
}

// ToolResults returns the tool results the request carries back to the
// model, by call id: Anthropic tool_result blocks, OpenAI
// function_call_output items and Chat Completions "tool" messages, their text
// content joined.
func (r Request) ToolResults() map[string]string {
	out := map[string]string{}
	m := r.JSON()
	if m == nil {
		return out
	}
	var items []any
	if msgs, ok := m["messages"].([]any); ok { // anthropic, chat
		for _, msg := range msgs {
			if mm, ok := msg.(map[string]any); ok {
				if id, _ := mm["tool_call_id"].(string); mm["role"] == "tool" && id != "" {
					out[id] = flatText(mm["content"])
					continue
				}
				if cs, ok := mm["content"].([]any); ok {
					items = append(items, cs...)
				}
			}
		}
	}
	if in, ok := m["input"].([]any); ok { // openai
		items = append(items, in...)
	}
	for _, it := range items {
		im, ok := it.(map[string]any)
		if !ok {
			continue
		}
		switch im["type"] {
		case "tool_result":
			id, _ := im["tool_use_id"].(string)
			out[id] = flatText(im["content"])
		case "function_call_output":
			id, _ := im["call_id"].(string)
			out[id] = flatText(im["output"])
		}
	}
	return out
}

// flatText joins the strings found in a content value.
func flatText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var parts []string
		for _, c := range x {
			parts = append(parts, flatText(c))
		}
		return strings.Join(parts, "\n")
	case map[string]any:
		if t, ok := x["text"].(string); ok {
			return t
		}
		if c, ok := x["content"]; ok {
			return flatText(c)
		}
		if o, ok := x["output"]; ok {
			return flatText(o)
		}
	}
	return ""
}

// ToolCall is a tool call the stand-in model makes.
type ToolCall struct {
	// Name is the tool's name as the agent offers it: for Claude Code
	// "mcp__<server>__<tool>"; for Codex the tool's own name, with Namespace
	// "mcp__<server>".
	Name      string
	Namespace string
	// Args are the call's arguments (encoded as JSON).
	Args any
	// ID is the call id; CallTools sets it.
	ID string
}

// Turn is the model's answer to one request: tool calls, or (with none) the
// end of the turn with Text.
type Turn struct {
	Text  string
	Calls []ToolCall
}

// Script decides the model's answer to each request.
type Script func(req Request) Turn

// CallToolsID is the id CallTools gives to its i-th call.
func CallToolsID(i int) string { return fmt.Sprintf("gm_call_%d", i) }

// CallTools is the script of a model that makes the given calls one after
// the other, each once the result of the one before came back and only in a
// request that offers the tool, then ends the turn saying "done". Requests
// that offer none of the tools (an agent's side requests) get a short text.
func CallTools(calls ...ToolCall) Script { return callToolsReading(Request.ToolResults, calls) }

// callToolsReading is CallTools with the agent's way of sending results back.
func callToolsReading(resultsOf func(Request) map[string]string, calls []ToolCall) Script {
	return func(req Request) Turn {
		results := resultsOf(req)
		for i, c := range calls {
			id := CallToolsID(i)
			if _, done := results[id]; done {
				continue
			}
			if !req.Offers(c.Name) {
				return Turn{Text: "ok"}
			}
			c.ID = id
			return Turn{Calls: []ToolCall{c}}
		}
		return Turn{Text: "done"}
	}
}

// Model is the loopback model stand-in.
type Model struct {
	// URL is the base URL (http://127.0.0.1:PORT), without a path.
	URL string

	t      testing.TB
	script Script
	mu     sync.Mutex
	reqs   []Request
	counts map[string]int
}

// StartModel starts a stand-in on a loopback port that answers with script;
// it stops when the test ends.
func StartModel(t testing.TB, script Script) *Model {
	t.Helper()
	return startModel(t, script, func(m *Model) http.Handler { return m })
}

// startModel serves the API handler returns for the new model on a loopback port.
func startModel(t testing.TB, script Script, handler func(*Model) http.Handler) *Model {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("model stand-in: %v", err)
	}
	m := &Model{URL: "http://" + ln.Addr().String(), t: t, script: script, counts: map[string]int{}}
	srv := &http.Server{Handler: handler(m), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return m
}

// Requests returns the requests received so far, in order.
func (m *Model) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Request(nil), m.reqs...)
}

// Find returns the requests of an API whose body contains s.
func (m *Model) Find(api, s string) []Request {
	var out []Request
	for _, r := range m.Requests() {
		if (api == "" || r.API == api) && r.Contains(s) {
			out = append(out, r)
		}
	}
	return out
}

// ToolResult returns the result an agent sent back for a call id, from any
// request.
func (m *Model) ToolResult(id string) (string, bool) {
	for _, r := range m.Requests() {
		if res, ok := r.ToolResults()[id]; ok {
			return res, true
		}
	}
	return "", false
}

// Dump is every request, for failure messages.
func (m *Model) Dump() string {
	var b strings.Builder
	for i, r := range m.Requests() {
		body := string(r.Body)
		if len(body) > 4000 {
			body = body[:2000] + " … " + body[len(body)-2000:]
		}
		fmt.Fprintf(&b, "--- request %d: %s %s (%s)\n%s\n", i, r.Method, r.Path, r.API, body)
	}
	return b.String()
}

func (m *Model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	req := Request{Method: r.Method, Path: r.URL.Path, Body: body}
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/messages"):
		req.API = "anthropic"
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses"):
		req.API = "openai"
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
		req.API = "chat"
	}
	m.mu.Lock()
	req.N = m.counts[req.API]
	m.counts[req.API]++
	m.reqs = append(m.reqs, req)
	m.mu.Unlock()
	switch req.API {
	case "anthropic":
		m.anthropic(w, req)
	case "openai":
		m.openai(w, req)
	case "chat":
		m.chat(w, req)
	default:
		http.NotFound(w, r)
	}
}

// sse writes one server-sent event.
func sse(w io.Writer, event string, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func argsJSON(v any) string {
	if v == nil {
		return "{}"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// anthropic answers a Messages API request, streaming or not.
func (m *Model) anthropic(w http.ResponseWriter, req Request) {
	turn := m.script(req)
	body := req.JSON()
	model, _ := body["model"].(string)
	id := fmt.Sprintf("msg_gm_%d", req.N)
	stop := "end_turn"
	var content []map[string]any
	if len(turn.Calls) > 0 {
		stop = "tool_use"
		for _, c := range turn.Calls {
			var input any = map[string]any{}
			json.Unmarshal([]byte(argsJSON(c.Args)), &input)
			content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": input})
		}
	} else {
		content = append(content, map[string]any{"type": "text", "text": turn.Text})
	}
	usage := map[string]any{"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if stream, _ := body["stream"].(bool); !stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model, "content": content,
			"stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}})
	for i, c := range content {
		if c["type"] == "text" {
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			sse(w, "ping", map[string]any{"type": "ping"})
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": c["text"]}})
		} else {
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": c["id"], "name": c["name"], "input": map[string]any{}}})
			in, _ := json.Marshal(c["input"])
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		}
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	sse(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

// openai answers a Responses API request with an SSE stream.
func (m *Model) openai(w http.ResponseWriter, req Request) {
	turn := m.script(req)
	body := req.JSON()
	model, _ := body["model"].(string)
	id := fmt.Sprintf("resp_gm_%d", req.N)
	var items []map[string]any
	if len(turn.Calls) > 0 {
		for i, c := range turn.Calls {
			it := map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_gm_%d_%d", req.N, i), "call_id": c.ID, "name": c.Name, "arguments": argsJSON(c.Args), "status": "completed"}
			if c.Namespace != "" {
				it["namespace"] = c.Namespace
			}
			items = append(items, it)
		}
	} else {
		items = append(items, map[string]any{"type": "message", "id": fmt.Sprintf("msg_gm_%d", req.N), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": turn.Text, "annotations": []any{}}}})
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	resp := map[string]any{"id": id, "object": "response", "created_at": time.Now().Unix(), "model": model, "status": "in_progress", "output": []any{}}
	sse(w, "response.created", map[string]any{"type": "response.created", "sequence_number": 0, "response": resp})
	seq := 1
	for i, it := range items {
		sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "sequence_number": seq, "output_index": i, "item": it})
		seq++
		if it["type"] == "message" {
			sse(w, "response.output_text.delta", map[string]any{"type": "response.output_text.delta", "sequence_number": seq, "item_id": it["id"], "output_index": i, "content_index": 0, "delta": turn.Text})
			seq++
		}
		sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "sequence_number": seq, "output_index": i, "item": it})
		seq++
	}
	done := map[string]any{"id": id, "object": "response", "created_at": time.Now().Unix(), "model": model, "status": "completed", "output": items,
		"usage": map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}}
	sse(w, "response.completed", map[string]any{"type": "response.completed", "sequence_number": seq, "response": done})
}
