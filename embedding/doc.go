// Package embedding gives recall optional embeddings from a model the user
// already runs: an OpenAI-compatible /v1/embeddings endpoint (Ollama,
// llama.cpp's server, LM Studio, vLLM) named by git config mem.embed.url and
// mem.embed.model.
//
// It owns three things (docs/architecture.md, "Embeddings"):
//
//   - the client: a minimal HTTP/1.1 POST over a socket of its own (plain
//     http, a local model; dial_unix.go), so the hook binary links neither
//     net/http nor package net and pays no new start-up cost; the key, when there is one, comes only from the
//     environment variable mem.embed.keyEnv names, and is never logged;
//     the headers and body it accepts are bounded (an endless header line
//     or body is cut off at the bound, never buffered until the deadline),
//     and an error quotes the server's body as it came, for its caller to
//     escape before a terminal;
//   - the vector cache under <git common dir>/mem/vectors: one append-only
//     file per model of self-delimiting, checksummed records (memory key,
//     sha256 of the embedded text, int8 vector), read with plain reads and
//     kept in memory between reads of a long-running process;
//   - the endpoint's back-off state: after a failure nothing is asked of the
//     endpoint for BackoffWindow, so a dead endpoint costs the next hook
//     nothing, and the failure is reported once (hooks.log, doctor).
//
// Search is exact: a brute-force cosine over every cached vector.
//
// With no mem.embed.url configured, Open returns nil and nothing else in
// this package runs: no file is opened and no goroutine started.
package embedding
