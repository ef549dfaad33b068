package server_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/loci-mem/loci/palace/palacetest"
	"github.com/loci-mem/loci/server"
)

// contentItem is what clip_test reads of one drawer in memory_recall's
// and memory_list's answers.
type contentItem struct {
	DrawerID  string `json:"drawer_id"`
	Content   string `json:"content"`
	Truncated bool   `json:"content_truncated"`
	Chars     int    `json:"content_chars"`
	Excerpt   string `json:"excerpt"`
}

// A long memory does not flood memory_recall's or memory_list's answer
// when the call (max_content_chars) or the server (LOCI_MAX_CONTENT_CHARS)
// bounds it: the content is cut to the bound and says so, a recall hit
// shows the passage that matched, a short memory is untouched, and 0
// returns the whole text. Without a bound, the contract's whole content.
func TestContentBound(t *testing.T) {
	t.Parallel()
	var words []string
	for i := range 3000 {
		words = append(words, fmt.Sprintf("filler%d", i%97))
	}
	words[2000] = "the zeppelin rudder hinge cracked during inspection"
	long := "Hangar log, week 12\n" + strings.Join(words, " ")
	short := "The hangar door code changed on Monday."
	longChars := utf8.RuneCountInString(long)

	for _, c := range []struct {
		name   string
		server int  // the server's bound
		asked  *int // the call's
		want   int  // the bound in force (0: none)
	}{
		{"no bound", 0, nil, 0},
		{"the call's bound", 0, ptr(300), 300},
		{"the server's bound", 500, nil, 500},
		{"the call's 0 lifts the server's bound", 500, ptr(0), 0},
		{"the call's bound over the server's", 500, ptr(1000), 1000},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ps := startPipeServerWith(t, server.Config{DefaultPalace: "p", MaxContentChars: c.server})
			var stored contentItem
			ps.callTool(t, 1, "memory_remember", map[string]any{"text": long}, &stored)
			ps.callTool(t, 2, "memory_remember", map[string]any{"text": short}, &stored)
			args := func(a map[string]any) map[string]any {
				if c.asked != nil {
					a["max_content_chars"] = *c.asked
				}
				return a
			}
			var rec struct{ Results []contentItem }
			ps.callTool(t, 3, "memory_recall", args(map[string]any{"query": "zeppelin rudder hinge hangar", "top_k": 5}), &rec)
			var list struct{ Drawers []contentItem }
			ps.callTool(t, 4, "memory_list", args(map[string]any{}), &list)
			if len(rec.Results) != 2 || len(list.Drawers) != 2 {
				t.Fatalf("recall %d results, list %d drawers; want 2 and 2", len(rec.Results), len(list.Drawers))
			}
			for _, it := range append(rec.Results, list.Drawers...) {
				switch {
				case it.Content == short || c.want == 0 && it.Content == long:
					if it.Truncated || it.Chars != 0 {
						t.Errorf("a whole memory says it was cut: %+v", it)
					}
				case c.want == 0:
					t.Errorf("no bound, but the content is %d characters of %d", utf8.RuneCountInString(it.Content), longChars)
				default:
					n := utf8.RuneCountInString(it.Content)
					if !it.Truncated || it.Chars != longChars || n > c.want || n < c.want/2 || !strings.HasPrefix(it.Content, "Hangar log, week 12") {
						t.Errorf("bound %d: content of %d characters, truncated %t, content_chars %d (whole %d), starts %.30q",
							c.want, n, it.Truncated, it.Chars, longChars, it.Content)
					}
				}
			}
			for _, it := range rec.Results {
				if it.Truncated && !strings.Contains(it.Content, "zeppelin rudder hinge") {
					t.Errorf("recall cut the long memory without the passage that matched: %q", it.Content)
				}
				if it.Content != short && !strings.Contains(it.Excerpt, "zeppelin rudder hinge") {
					t.Errorf("the excerpt is %q; want the passage that matched, bound or not", it.Excerpt)
				}
			}
			for _, it := range list.Drawers {
				if it.Truncated && strings.Contains(it.Content, "zeppelin") {
					t.Errorf("memory_list has no passage to show, but its cut holds the middle of the text")
				}
			}
		})
	}

	t.Run("a large result is logged with the way to bound it", func(t *testing.T) {
		t.Parallel()
		var logged palacetest.Buffer
		ps := startPipeServerWith(t, server.Config{DefaultPalace: "p", Logger: zerolog.New(&logged)})
		huge := strings.Repeat("The hangar inventory lists one more spare rudder hinge. ", 4000) // 224,000 bytes
		var stored contentItem
		ps.callTool(t, 1, "memory_remember", map[string]any{"text": huge}, &stored)
		var rec struct{ Results []contentItem }
		ps.callTool(t, 2, "memory_recall", map[string]any{"query": "spare rudder hinge"}, &rec)
		if !strings.Contains(logged.String(), "large tool result") || !strings.Contains(logged.String(), "LOCI_MAX_CONTENT_CHARS") {
			t.Errorf("no warning for a result of %d bytes; log:\n%s", len(huge), logged.String())
		}
		before := logged.String()
		ps.callTool(t, 3, "memory_recall", map[string]any{"query": "spare rudder hinge", "max_content_chars": 2000}, &rec)
		if strings.Contains(strings.TrimPrefix(logged.String(), before), "large tool result") {
			t.Errorf("a bounded result was logged as large")
		}
	})

	t.Run("a negative bound is refused", func(t *testing.T) {
		t.Parallel()
		ps := startPipeServer(t, "p")
		for i, tool := range []string{"memory_recall", "memory_recall_deep", "memory_list"} {
			msg, failed := ps.rpc(t, i+1, "tools/call", map[string]any{"name": tool,
				"arguments": map[string]any{"query": "x", "max_content_chars": -1}})
			if !failed || !strings.Contains(msg, "'max_content_chars' must be at least 0") {
				t.Errorf("%s with max_content_chars -1: failed %t, %q", tool, failed, msg)
			}
		}
	})
}

func ptr[T any](v T) *T { return &v }
