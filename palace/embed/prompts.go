package embed

import (
	"context"
	"strings"
)

// Prompts are the texts a retrieval model is trained to read before a
// query and before a document. Many of today's embedding models are
// asymmetric: nomic-embed-text was trained on "search_query: …" against
// "search_document: …", mxbai-embed-large and the arctic-embed models on an
// instruction before the query alone, E5 on "query: " and "passage: ".
// Sent without them, such a model embeds both sides as neither, and its
// authors document that retrieval suffers.
type Prompts struct {
	Query    string // before a text searched with
	Document string // before a text stored
}

// The instruction the BGE (English), mxbai-embed-large and arctic-embed
// (v1) model cards give for a query that looks for passages.
const passageSearch = "Represent this sentence for searching relevant passages: "

// The default retrieval instruction of the instruction-following models
// (Qwen3-Embedding, E5's instruct variants): "Instruct: <task>\nQuery:".
const webSearchTask = "Given a web search query, retrieve relevant passages that answer the query"

// knownPrompts are the prompts model families' own cards give for
// retrieval, matched on the model's name as engines spell it
// ("nomic-embed-text:v1.5" in Ollama, "text-embedding-nomic-embed-text-v1.5"
// in LM Studio, "hf.co/nomic-ai/nomic-embed-text-v1.5-GGUF"). The first
// entry whose family the name holds, and whose other words it holds too,
// wins; a model no entry names gets no prompts, which is right for the
// symmetric ones (bge-m3, all-minilm, OpenAI's text-embedding-3).
var knownPrompts = []struct {
	family string   // a word of the name, at its start or after a separator
	with   []string // more words the name must hold, anywhere
	p      Prompts
}{
	{"nomic-embed-text", nil, Prompts{"search_query: ", "search_document: "}},
	{"mxbai-embed-large", nil, Prompts{passageSearch, ""}},
	{"arctic-embed2", nil, Prompts{"query: ", ""}},
	{"arctic-embed", []string{"v2"}, Prompts{"query: ", ""}},
	{"arctic-embed", nil, Prompts{passageSearch, ""}},
	{"embeddinggemma", nil, Prompts{"task: search result | query: ", "title: none | text: "}},
	{"qwen3-embedding", nil, Prompts{"Instruct: " + webSearchTask + "\nQuery:", ""}},
	{"e5", []string{"instruct"}, Prompts{"Instruct: " + webSearchTask + "\nQuery: ", ""}},
	{"e5", nil, Prompts{"query: ", "passage: "}},
	{"bge", []string{"-en"}, Prompts{passageSearch, ""}},
}

// KnownPrompts returns the retrieval prompts of the model family model
// names, and whether one was found.
func KnownPrompts(model string) (Prompts, bool) {
	name := strings.ToLower(model)
	for _, k := range knownPrompts {
		if !hasWord(name, k.family) {
			continue
		}
		all := true
		for _, w := range k.with {
			all = all && strings.Contains(name, w)
		}
		if all {
			return k.p, true
		}
	}
	return Prompts{}, false
}

// hasWord reports whether name holds word at its start or right after a
// separator, followed by the end or a separator: "e5" is a word of
// "multilingual-e5-large" and of "intfloat/e5-base-v2", not of "e50" or
// "snowflake-arctic-embed2" ("arctic-embed" is not a word of it).
func hasWord(name, word string) bool {
	sep := func(b byte) bool { return strings.IndexByte("-_/.:@ ", b) >= 0 }
	for i := 0; ; {
		j := strings.Index(name[i:], word)
		if j < 0 {
			return false
		}
		at, end := i+j, i+j+len(word)
		if (at == 0 || sep(name[at-1])) && (end == len(name) || sep(name[end])) {
			return true
		}
		i = at + 1
	}
}

// A QueryEmbedder embeds texts searched with apart from texts stored: an
// asymmetric model reads each with its own prompt. Embed embeds stored
// texts.
type QueryEmbedder interface {
	EmbedQueries(ctx context.Context, texts []string) ([][]float32, error)
}

// Queries embeds texts searched with: through e's EmbedQueries where it
// has one, otherwise as e embeds any text.
func Queries(ctx context.Context, e Embedder, texts []string) ([][]float32, error) {
	if q, ok := e.(QueryEmbedder); ok {
		return q.EmbedQueries(ctx, texts)
	}
	return e.Embed(ctx, texts)
}
