package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// The OpenAI Chat Completions side of the model stand-in (POST
// …/chat/completions, API "chat"), the API OpenAI-compatible providers speak:
// Qwen Code's openai auth, OpenCode's @ai-sdk/openai-compatible provider and
// the Copilot CLI's BYOK provider call it. Tool calls go out as
// choices[0].delta.tool_calls, results come back as "tool" messages (see
// Request.ToolResults), so CallTools scripts it as it does the other APIs.

// chat answers a Chat Completions request: an SSE stream of
// chat.completion.chunk objects ending in data: [DONE], or one
// chat.completion object when the request does not ask for a stream.
func (m *Model) chat(w http.ResponseWriter, req Request) {
	turn := m.script(req)
	body := req.JSON()
	model, _ := body["model"].(string)
	id := fmt.Sprintf("chatcmpl-gm-%d", req.N)
	created := time.Now().Unix()
	finish := "stop"
	var calls []map[string]any
	for i, c := range turn.Calls {
		finish = "tool_calls"
		calls = append(calls, map[string]any{"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": argsJSON(c.Args)}})
	}
	usage := map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
	if stream, _ := body["stream"].(bool); !stream {
		msg := map[string]any{"role": "assistant", "content": turn.Text}
		if len(calls) > 0 {
			msg["content"] = nil
			msg["tool_calls"] = calls
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": id, "object": "chat.completion", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	chunk := func(delta map[string]any, finish any, usage any) {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			c["usage"] = usage
		}
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	if len(calls) > 0 {
		chunk(map[string]any{"role": "assistant", "content": nil, "tool_calls": calls}, nil, nil)
	} else {
		chunk(map[string]any{"role": "assistant", "content": turn.Text}, nil, nil)
	}
	chunk(map[string]any{}, finish, usage)
	fmt.Fprint(w, "data: [DONE]\n\n")
}
