package locomo

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loci-mem/loci/dreamer"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/palacetest"
)

// The episodes path records each session as /add does (the mem-save-turn
// path as mem_save_turn does) and measures by session: a question's
// evidence is the session of its turns, and each memory recalled (an
// episode, an atomic fact) stands for the session it was extracted from.
// Plain BM25 on the path ranks whole sessions.
func TestEpisodesPathMeasuresBySession(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "two.json")
	raw := `[{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
	"session_1_date_time":"1:00 pm on 8 May, 2023",
	"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"I adopted a grey cat from the shelter."},
	             {"speaker":"Bo","dia_id":"D1:2","text":"Lovely! What is its name?"},
	             {"speaker":"Ann","dia_id":"D1:3","text":"Her name is Pixel."}],
	"session_2_date_time":"2:00 pm on 20 June, 2023",
	"session_2":[{"speaker":"Bo","dia_id":"D2:1","text":"I started learning the violin with a teacher downtown."},
	             {"speaker":"Ann","dia_id":"D2:2","text":"That sounds wonderful, how often are the lessons?"},
	             {"speaker":"Bo","dia_id":"D2:3","text":"Every Tuesday evening, for an hour."}]},
	"qa":[{"question":"What instrument is Bo learning?","category":4,"evidence":["D2:1"]},
	      {"question":"What is the name of Ann's cat?","category":4,"evidence":["D1:3","D1:1"]}]}]`
	if err := os.WriteFile(file, []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	// /add without a user id extracts an episode for each participant;
	// mem_save_turn's default owner gets one a stretch, of messages that
	// carry no sender.
	samples, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int64{PathEpisodes: 4, PathSaveTurn: 2} {
		p := hashPalace(t)
		ds, err := Drawers(samples[0].Conversation)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := ingestEpisodes(context.Background(), p, ds, 1, path); err != nil {
			t.Fatal(err)
		}
		if n, _ := p.Count(context.Background(), palace.Filter{Kinds: []string{palace.KindEpisode}}); n != want {
			t.Errorf("%s: %d episodes of two sessions, want %d", path, n, want)
		}
	}
	for _, path := range []string{PathEpisodes, PathSaveTurn} {
		for _, method := range []palace.Mode{palace.ModeHybrid, MethodPlainBM25} {
			rows, _, turns, err := Run(context.Background(), Options{Data: []string{file}, Path: path, Method: method,
				Embedder: embed.NewHash(0), Ks: []int{1}})
			if err != nil {
				t.Fatal(err)
			}
			if turns != 6 || len(rows) != 2 {
				t.Fatalf("%s, %s: %d turns, %d rows", path, method, turns, len(rows))
			}
			for i, want := range []string{"S2", "S1"} {
				r := rows[i]
				if !slices.Equal(r.Gold, []string{want}) || len(r.Top) == 0 || r.Top[0] != want {
					t.Errorf("%s, %s: %q: gold %q, top %q; want %s first", path, method, r.Question, r.Gold, r.Top, want)
				}
			}
		}
	}
}

// A message the session buffer refuses (here, one over the size limit)
// is left out and reported; the rest of its session is still recorded and
// found.
func TestEpisodesPathLeavesOutOnlyTheRefusedMessage(t *testing.T) {
	t.Parallel()
	conv := map[string]json.RawMessage{}
	conv["session_1"], _ = json.Marshal([]Turn{
		{Speaker: "user", DiaID: "D1:1", Text: "Please read the attached build log."},
		{Speaker: "assistant", DiaID: "D1:2", Text: strings.Repeat("log line ", palace.MaxContentBytes/9+1)},
		{Speaker: "user", DiaID: "D1:3", Text: "We moved the nightly backups to the Frankfurt bucket."},
	})
	ds, err := Drawers(conv)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{PathEpisodes, PathSaveTurn} {
		p := hashPalace(t)
		stands, skipped, err := ingestEpisodes(context.Background(), p, ds, 1, path)
		if err != nil {
			t.Fatal(err)
		}
		if len(skipped) != 1 || !strings.HasPrefix(skipped[0], "D1:2: ") || !strings.Contains(skipped[0], "limit") {
			t.Errorf("%s: skipped %q, want D1:2 alone, over the limit", path, skipped)
		}
		hits, err := p.Search(context.Background(), palace.SearchRequest{Query: "Frankfurt backups", K: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || !slices.Equal(stands[hits[0].Drawer.ID], []string{"S1"}) {
			t.Errorf("%s: the session's other messages are not found (%d hits, %d drawers extracted)", path, len(hits), len(stands))
		}
	}
}

// hashPalace is a new palace with the hash embedder, closed with the test.
func hashPalace(t *testing.T) *palace.Palace {
	t.Helper()
	return palacetest.MustCreate(t, palacetest.MustOpenRegistry(t, palace.Config{Embedder: embed.NewHash(0)}), "p")
}

// --dream runs every dreamer pass over each palace before the questions,
// and recall is measured on what it leaves: a turn said again word for word
// in a later session is a memory of its own, not a duplicate to link.
func TestDreamRunsEveryPassBeforeTheQuestions(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "again.json")
	raw := `[{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
	"session_1_date_time":"1:00 pm on 8 May, 2023",
	"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"I adopted a grey cat from the shelter downtown."},
	             {"speaker":"Bo","dia_id":"D1:2","text":"Lovely! What is its name?"}],
	"session_2_date_time":"2:00 pm on 20 June, 2023",
	"session_2":[{"speaker":"Bo","dia_id":"D2:1","text":"I started learning the violin with a teacher."},
	             {"speaker":"Ann","dia_id":"D2:2","text":"I adopted a grey cat from the shelter downtown."}]},
	"qa":[{"question":"What did Ann adopt from the shelter?","category":4,"evidence":["D1:1","D2:2"]}]}]`
	if err := os.WriteFile(file, []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	var said []string
	rows, _, _, err := Run(context.Background(), Options{Data: []string{file}, Dream: true, Embedder: embed.NewHash(0), Ks: []int{2},
		Progress: func(format string, a ...any) { said = append(said, fmt.Sprintf(format, a...)) }})
	if err != nil {
		t.Fatal(err)
	}
	dreamt := ""
	for _, s := range said {
		if strings.Contains(s, "dreamt:") {
			dreamt = s
		}
	}
	for _, pass := range dreamer.PassNames() {
		if !strings.Contains(dreamt, pass+" ok") {
			t.Errorf("pass %s did not run: %q", pass, dreamt)
		}
	}
	if len(rows) != 1 || !slices.Contains(rows[0].Top, "D1:1") || !slices.Contains(rows[0].Top, "D2:2") {
		t.Errorf("after the dream the first two results are %q, want both turns", rows[0].Top)
	}
}
