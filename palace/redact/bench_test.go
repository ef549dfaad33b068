package redact

import (
	"encoding/json"
	"io"
	"testing"
)

// withSecret is prose of the same size with one GitHub token in the middle.
var withSecret = prose[:1000] + " " + fakeGHP + " " + prose[1000+len(fakeGHP)+2:]

func BenchmarkStringClean2KB(b *testing.B) {
	b.SetBytes(int64(len(prose)))
	b.ReportAllocs()
	for b.Loop() {
		String(prose)
	}
}

func BenchmarkStringSecret2KB(b *testing.B) {
	b.SetBytes(int64(len(withSecret)))
	b.ReportAllocs()
	for b.Loop() {
		String(withSecret)
	}
}

func BenchmarkContainsClean2KB(b *testing.B) {
	b.SetBytes(int64(len(prose)))
	b.ReportAllocs()
	for b.Loop() {
		Contains(prose)
	}
}

func BenchmarkJSONClean2KB(b *testing.B) {
	doc, _ := json.Marshal(map[string]string{"content": prose})
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		JSON(doc)
	}
}

func BenchmarkJSONSecret2KB(b *testing.B) {
	doc, _ := json.Marshal(map[string]string{"content": withSecret})
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		JSON(doc)
	}
}

func BenchmarkWriterClean(b *testing.B) {
	w := Writer(io.Discard)
	line := []byte(`{"level":"info","time":"2024-01-01T00:00:00Z","palace":"default","message":"search done in 3ms"}` + "\n")
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		w.Write(line)
	}
}
