package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// The Gemini side of the model stand-in: the Generative Language API as the
// Gemini CLI calls it at GOOGLE_GEMINI_BASE_URL (POST
// /v1beta/models/<model>:streamGenerateContent?alt=sse, :generateContent,
// :countTokens). Requests land in the same log as the other APIs (API
// "gemini"), so Model.Requests, Find and Dump work unchanged.

// StartGeminiModel starts a stand-in that speaks the Generative Language API
// and answers each generate request from script; it stops when the test ends.
func StartGeminiModel(t testing.TB, script Script) *Model {
	t.Helper()
	return startModel(t, script, func(m *Model) http.Handler { return geminiAPI{m} })
}

type geminiAPI struct{ m *Model }

func (g geminiAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m := g.m
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	req := Request{Method: r.Method, Path: r.URL.Path, Body: body}
	_, method, _ := strings.Cut(r.URL.Path, ":")
	if r.Method == http.MethodPost && strings.Contains(r.URL.Path, "/models/") {
		req.API = "gemini"
	}
	m.mu.Lock()
	req.N = m.counts[req.API]
	m.counts[req.API]++
	m.reqs = append(m.reqs, req)
	m.mu.Unlock()
	if req.API == "" {
		http.NotFound(w, r)
		return
	}
	switch method {
	case "streamGenerateContent":
		resp := geminiResponse(m.script(req))
		w.Header().Set("Content-Type", "text/event-stream")
		b, _ := json.Marshal(resp)
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
	case "generateContent":
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(geminiResponse(m.script(req)))
	case "countTokens":
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"totalTokens": 10})
	default:
		http.NotFound(w, r)
	}
}

// geminiResponse is a GenerateContentResponse holding a turn: function calls,
// or text.
func geminiResponse(turn Turn) map[string]any {
	var parts []any
	for _, c := range turn.Calls {
		var args any = map[string]any{}
		json.Unmarshal([]byte(argsJSON(c.Args)), &args)
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": c.ID, "name": c.Name, "args": args}})
	}
	if len(parts) == 0 {
		parts = append(parts, map[string]any{"text": turn.Text})
	}
	return map[string]any{
		"candidates": []any{map[string]any{
			"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  "gemini-mock",
	}
}

// GeminiToolResults returns the functionResponse parts a Gemini request
// carries back to the model, by call id (the name when the id is absent),
// the response encoded as JSON.
func GeminiToolResults(r Request) map[string]string {
	out := map[string]string{}
	var body struct {
		Contents []struct {
			Parts []struct {
				FunctionResponse *struct {
					ID       string          `json:"id"`
					Name     string          `json:"name"`
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if json.Unmarshal(r.Body, &body) != nil {
		return out
	}
	for _, c := range body.Contents {
		for _, p := range c.Parts {
			if fr := p.FunctionResponse; fr != nil {
				id := fr.ID
				if id == "" {
					id = fr.Name
				}
				out[id] = string(fr.Response)
			}
		}
	}
	return out
}

// GeminiCallTools is CallTools for the Gemini CLI: the calls are made one
// after the other, each once the functionResponse of the one before came
// back and only in a request that declares the function, then the turn ends
// with "done". Other requests (the CLI's side requests) get "ok".
func GeminiCallTools(calls ...ToolCall) Script { return callToolsReading(GeminiToolResults, calls) }

// GeminiToolResult returns the functionResponse the CLI sent back for a call
// id, from any request.
func (m *Model) GeminiToolResult(id string) (string, bool) {
	for _, r := range m.Requests() {
		if res, ok := GeminiToolResults(r)[id]; ok {
			return res, true
		}
	}
	return "", false
}
