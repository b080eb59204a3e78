package gitstore

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// plainMemory is Memory as encoding/json decodes it.
type plainMemory Memory

// requireDecodedAsEncodingJSON: when decodeMemory reads data, encoding/json
// reads it too, to the same memory; when encoding/json refuses it, so does
// decodeMemory.
func requireDecodedAsEncodingJSON(t *testing.T, data []byte) (read bool) {
	t.Helper()
	var want plainMemory
	werr := json.Unmarshal(data, &want)
	got, ok := decodeMemory(data)
	if werr != nil {
		require.False(t, ok, "decodeMemory read what encoding/json refuses (%v): %q", werr, data)
		return false
	}
	if ok {
		require.Equal(t, Memory(want), got, "%q", data)
	}
	return ok
}

// sampleMemories are memories using every field, with the characters
// Encode escapes.
func sampleMemories() []*Memory {
	at := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	later := at.Add(48 * time.Hour)
	return []*Memory{
		{Schema: 1, ID: "3f2a9c41d0e8b7a2", Type: TypeFact, Text: "Plain text.", Source: SourceUser, Trust: 0.9, Created: at, Updated: at, ValidFrom: at},
		{
			Schema: 1, ID: "0123456789abcdef", Type: TypeGotcha,
			Text: "Quotes \" and \\ backslashes, a tab\tand lines\nof \"text\" with é, 日本, 🙂, \u2028 and <html> & \u0001.",
			Tags: []string{"deploy", "ci/cd"}, Paths: []string{"server/app.ts", "docs/é.md"}, Keys: []string{"why is the build slow", "cache"},
			Source: SourceVerified, Tentative: true, Pinned: true, Trust: 0.45, Agent: "claude-code", Subagent: "explore",
			Session: "s-1", Author: "Ada <ada@example.com>", Anchor: &Anchor{Commit: "e8147cb00fad1aa6e516edd6f25817ee937fbcd6", Branch: "feature/x"},
			Created: at, Updated: later, ValidFrom: at, ValidTo: &later, Supersedes: "aaaaaaaaaaaaaaaa", SupersededBy: "bbbbbbbbbbbbbbbb",
			Events:     []Event{{Op: EventReinforce, At: later, Agent: "codex", Session: "s-2"}, {Op: EventDispute, At: later, Author: "Bo", Reason: "wrong \"port\""}},
			Reinforced: []time.Time{at, later}, Origin: &Origin{File: "notes/README.md", Line: 12},
		},
	}
}

// TestDecodeMemoryAsEncodingJSON: every document Encode writes, the sample
// memories' and every eval memory's, is read by decodeMemory itself, to
// what encoding/json reads.
func TestDecodeMemoryAsEncodingJSON(t *testing.T) {
	var docs [][]byte
	for _, m := range sampleMemories() {
		data, err := m.Encode()
		require.NoError(t, err)
		docs = append(docs, data)
	}
	files, err := filepath.Glob("../fixtures/eval/*/memories.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	at := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	for _, name := range files {
		f, err := os.Open(name)
		require.NoError(t, err)
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var in struct {
				Type, Text, Source string
				Tags, Paths, Keys  []string
			}
			require.NoError(t, json.Unmarshal(sc.Bytes(), &in))
			m := &Memory{Schema: 1, ID: NewID(), Type: in.Type, Text: in.Text, Tags: in.Tags, Paths: in.Paths, Keys: in.Keys, Source: in.Source, Trust: 0.5, Created: at, Updated: at, ValidFrom: at}
			data, err := m.Encode()
			require.NoError(t, err)
			docs = append(docs, data)
		}
		require.NoError(t, sc.Err())
		f.Close()
	}
	require.Greater(t, len(docs), 1000)
	for _, data := range docs {
		require.True(t, requireDecodedAsEncodingJSON(t, data), "an encoded document is read without encoding/json: %q", data)
	}
}

// TestDecodeMemoryLeavesTheRestToEncodingJSON: what decodeMemory does not
// read is read by encoding/json, as before: unknown, repeated or
// differently cased fields, nulls, numbers an int does not hold,
// surrogate escapes, invalid UTF-8, data after the document.
func TestDecodeMemoryLeavesTheRestToEncodingJSON(t *testing.T) {
	tests := []struct {
		name, doc string
		read      bool
	}{
		{"blanks everywhere", " {\n \"id\" : \"a\" ,\t\"trust\":1e-1 , \"tags\" : [ \"x\" , \"y\" ] }\r\n", true},
		{"empty lists", `{"tags":[],"events":[],"reinforced":[]}`, true},
		{"empty object", `{}`, true},
		{"escapes", `{"text":"a\/b\u00e9\n\"\\\b\f\r\t"}`, true},
		{"escaped key", `{"\u0069d":"a"}`, false},
		{"unknown field", `{"id":"a","color":"red"}`, false},
		{"field in capitals", `{"ID":"a"}`, false},
		{"repeated field", `{"id":"a","id":"b"}`, false},
		{"null", `{"anchor":null}`, false},
		{"whole null", `null`, false},
		{"schema 1.0", `{"schema":1.0}`, false},
		{"schema 1e0", `{"schema":1e0}`, false},
		{"schema out of range", `{"schema":99999999999999999999}`, false},
		{"surrogate pair", `{"text":"\ud83d\ude42"}`, false},
		{"lone surrogate", `{"text":"\ud83d"}`, false},
		{"invalid UTF-8", "{\"text\":\"a\xffb\"}", false},
		{"control character", "{\"text\":\"a\x01b\"}", false},
		{"bad escape", `{"text":"\q"}`, false},
		{"data after", `{"id":"a"} {}`, false},
		{"leading zero", `{"trust":01}`, false},
		{"bad time", `{"created":"yesterday"}`, false},
		{"time with zone", `{"created":"2026-03-01T09:30:00+02:00"}`, true},
		{"unknown event field", `{"events":[{"op":"confirm","why":"x"}]}`, false},
		{"anchor", `{"anchor":{"branch":"main","commit":"abc"}}`, true},
		{"origin line 1.5", `{"origin":{"file":"a","line":1.5}}`, false},
		{"truncated", `{"id":"a"`, false},
		{"string as number", `{"trust":"0.5"}`, false},
		{"true as string", `{"pinned":"true"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.read, requireDecodedAsEncodingJSON(t, []byte(tt.doc)))
		})
	}
}

// FuzzDecodeMemory: on any input, decodeMemory reads what encoding/json
// reads, to the same memory, or leaves it to encoding/json.
func FuzzDecodeMemory(f *testing.F) {
	for _, m := range sampleMemories() {
		data, err := m.Encode()
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte(`{"text":"a\u00e9\ud83d\ude42","schema":1,"events":[{"op":"x","at":"2026-03-01T09:30:00Z"}]}`))
	f.Add([]byte(`{"trust":-0.0e+1,"tags":[ ],"origin":{"line":-3}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		requireDecodedAsEncodingJSON(t, data)
	})
}

// BenchmarkDecodeMemory reads a memory document as the store and the start
// cache read one (decoded and checked).
func BenchmarkDecodeMemory(b *testing.B) {
	var docs [][]byte
	for _, m := range sampleMemories() {
		data, err := m.Encode()
		require.NoError(b, err)
		if _, err := DecodeMemory(data); err == nil {
			docs = append(docs, data)
		}
	}
	require.NotEmpty(b, docs)
	i := 0
	for b.Loop() {
		if _, err := DecodeMemory(docs[i%len(docs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
