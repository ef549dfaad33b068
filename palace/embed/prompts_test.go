package embed_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace/embed"
)

func TestKnownPromptsByTheNamesEnginesGive(t *testing.T) {
	nomic := embed.Prompts{Query: "search_query: ", Document: "search_document: "}
	passages := embed.Prompts{Query: "Represent this sentence for searching relevant passages: "}
	e5 := embed.Prompts{Query: "query: ", Document: "passage: "}
	for _, c := range []struct {
		model string
		want  embed.Prompts
		found bool
	}{
		{"nomic-embed-text", nomic, true},
		{"nomic-embed-text:v1.5", nomic, true},
		{"text-embedding-nomic-embed-text-v1.5@q8_0", nomic, true}, // LM Studio
		{"hf.co/nomic-ai/nomic-embed-text-v1.5-GGUF:Q8_0", nomic, true},
		{"nomic-embed-text-v2-moe", nomic, true},
		{"mxbai-embed-large:335m", passages, true},
		{"mixedbread-ai/mxbai-embed-large-v1", passages, true},
		{"snowflake-arctic-embed:335m", passages, true},
		{"Snowflake/snowflake-arctic-embed-m-v1.5", passages, true},
		{"snowflake-arctic-embed2", embed.Prompts{Query: "query: "}, true},
		{"Snowflake/snowflake-arctic-embed-l-v2.0", embed.Prompts{Query: "query: "}, true},
		{"embeddinggemma:300m", embed.Prompts{Query: "task: search result | query: ", Document: "title: none | text: "}, true},
		{"intfloat/multilingual-e5-large", e5, true},
		{"e5-base-v2", e5, true},
		{"BAAI/bge-large-en-v1.5", passages, true},
		// Symmetric models, and names that only look alike, get none.
		{"bge-m3", embed.Prompts{}, false},
		{"all-minilm:l6-v2", embed.Prompts{}, false},
		{"text-embedding-3-small", embed.Prompts{}, false},
		{"granite-embedding:278m", embed.Prompts{}, false},
		{"stub-e50", embed.Prompts{}, false},
		{"nomic-embed-code", embed.Prompts{}, false},
	} {
		got, found := embed.KnownPrompts(c.model)
		if got != c.want || found != c.found {
			t.Errorf("KnownPrompts(%q) = %q, %v; want %q, %v", c.model, got, found, c.want, c.found)
		}
	}
	for _, model := range []string{"qwen3-embedding:0.6b", "Qwen/Qwen3-Embedding-8B", "intfloat/multilingual-e5-large-instruct"} {
		p, _ := embed.KnownPrompts(model)
		if !strings.HasPrefix(p.Query, "Instruct: ") || !strings.Contains(p.Query, "\nQuery:") || p.Document != "" {
			t.Errorf("KnownPrompts(%q) = %q; want an instruction before queries alone", model, p)
		}
	}
}

func TestOpenAISendsEachSideWithItsPrompt(t *testing.T) {
	rec := &engine{}
	srv := rec.serve(t)
	ctx := context.Background()
	t.Setenv("LOCI_EMBED_BASE_URL", srv.URL+"/v1")
	t.Setenv("LOCI_EMBED_MODEL", "nomic-embed-text:latest")

	e, err := embed.Lookup("openai")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Embed(ctx, []string{"We deploy on Tuesdays", "  "}); err != nil {
		t.Fatal(err)
	}
	if got, want := rec.take(), []string{"search_document: We deploy on Tuesdays"}; !slices.Equal(got, want) {
		t.Errorf("stored texts sent as %q, want %q (a blank text is not sent)", got, want)
	}
	if _, err := embed.Queries(ctx, e, []string{"when do we deploy?"}); err != nil {
		t.Fatal(err)
	}
	if got, want := rec.take(), []string{"search_query: when do we deploy?"}; !slices.Equal(got, want) {
		t.Errorf("queries sent as %q, want %q", got, want)
	}
	prompted := e.ID()
	if !strings.HasPrefix(prompted, "openai/nomic-embed-text:latest+doc-") || strings.ContainsAny(prompted, " \t\n") {
		t.Errorf("ID = %q, want the model and a mark of its document prompt, without spaces", prompted)
	}

	// The environment replaces the model's prompts; set empty, it turns
	// them off, and the ID is the model's alone again.
	t.Setenv("LOCI_EMBED_QUERY_PREFIX", "")
	t.Setenv("LOCI_EMBED_DOCUMENT_PREFIX", "")
	bare, err := embed.Lookup("openai")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := bare.ID(), "openai/nomic-embed-text:latest"; got != want {
		t.Errorf("ID without prompts = %q, want %q", got, want)
	}
	embed.Queries(ctx, bare, []string{"when do we deploy?"})
	bare.Embed(ctx, []string{"We deploy on Tuesdays"})
	if got, want := rec.take(), []string{"when do we deploy?", "We deploy on Tuesdays"}; !slices.Equal(got, want) {
		t.Errorf("with the prompts off, sent %q, want %q", got, want)
	}

	// A query prompt alone changes no stored vector, so not the ID.
	t.Setenv("LOCI_EMBED_QUERY_PREFIX", "Represent this question: ")
	asking, err := embed.Lookup("openai")
	if err != nil {
		t.Fatal(err)
	}
	if asking.ID() != bare.ID() {
		t.Errorf("ID with a query prompt alone = %q, want %q", asking.ID(), bare.ID())
	}
	t.Setenv("LOCI_EMBED_DOCUMENT_PREFIX", "passage: ")
	other, err := embed.Lookup("openai")
	if err != nil {
		t.Fatal(err)
	}
	if other.ID() == prompted || other.ID() == bare.ID() {
		t.Errorf("ID with another document prompt = %q, want one of its own", other.ID())
	}
}

func TestConcatEmbedsQueriesThroughItsParts(t *testing.T) {
	rec := &engine{}
	srv := rec.serve(t)
	remote, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m", Dim: 2,
		Prompts: embed.Prompts{Query: "query: ", Document: "d: "}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := embed.NewConcat([]embed.Embedder{remote, embed.NewHash(16)}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	qv, err := embed.Queries(ctx, c, []string{"deploy day"})
	if err != nil {
		t.Fatal(err)
	}
	dv, err := c.Embed(ctx, []string{"deploy day"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rec.take(), []string{"query: deploy day", "d: deploy day"}; !slices.Equal(got, want) {
		t.Errorf("the remote part was sent %q, want %q", got, want)
	}
	if len(qv[0]) != c.Dim() || slices.Equal(qv[0], dv[0]) {
		t.Errorf("a query's vector is the stored text's: the parts' query side was not used")
	}
}
