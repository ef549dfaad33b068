package main

import (
	"strings"
	"testing"
	"time"
)

// TestDefaultEmbedderIsSemantic runs `loci serve` on its built-in default
// encoder and checks recall that shares no word with the stored text (the
// JWT drawer is a distractor: "how are access credentials checked" is a
// paraphrase the default encoder does not resolve).
func TestDefaultEmbedderIsSemantic(t *testing.T) {
	t.Parallel()
	p := startLoci(t, t.TempDir(), []string{"LOCI_EMBEDDER="}, "serve", "--palace", "semantic")
	p.initialize()
	for _, text := range []string{
		"The API gateway validates JWT tokens using RS256.",
		"Our cat Miso sleeps on the radiator every afternoon.",
		"Quarterly revenue grew eleven percent after the price change.",
		"The staging cluster runs in the Frankfurt region.",
	} {
		p.tool("memory_remember", map[string]any{"text": text}, nil)
	}
	cases := map[string]string{
		"where does our pet like to nap":          "Miso",
		"did earnings go up last quarter":         "revenue",
		"which datacenter hosts the test servers": "Frankfurt",
	}
	for q, want := range cases {
		var rec struct {
			Results []struct {
				Content string `json:"content"`
			} `json:"results"`
		}
		p.tool("memory_recall", map[string]any{"query": q, "top_k": 1}, &rec)
		if len(rec.Results) != 1 || !strings.Contains(rec.Results[0].Content, want) {
			t.Errorf("recall(%q) = %+v, want the drawer mentioning %q", q, rec.Results, want)
		}
	}
	var info struct {
		Index struct {
			Model string `json:"model"`
		} `json:"index"`
	}
	p.tool("palace_info", map[string]any{}, &info)
	if strings.HasPrefix(info.Index.Model, "hash") {
		t.Errorf("default embedder is %q, want a built-in sentence encoder", info.Index.Model)
	}
	p.closeAndWait(5 * time.Second)
}
