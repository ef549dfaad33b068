package palace_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
)

// One stretch of a conversation extracted for each of its participants is
// one memory: the episodes of the same session, time and text are listed
// once, and the next candidates take the places the copies would have
// had. Two texts that only read alike (a "Thanks!" said twice in a
// session, at two times) are two memories and are both listed.
func TestAMemoryRecordedTwiceIsListedOnce(t *testing.T) {
	p := MustOpenPalace(t)
	ctx := context.Background()
	at := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	story := "On Monday, May 8, 2023 at 13:00 UTC, Ann said: \"We adopted a beagle puppy.\" Bo said: \"A beagle! What is his name?\""
	for _, owner := range []string{"ann", "bo", "cy"} {
		mustAdd(t, p, &palace.Drawer{Kind: palace.KindEpisode, Content: story, UserID: owner, SessionID: "s1", Timestamp: at})
	}
	later := mustAdd(t, p, &palace.Drawer{Kind: palace.KindEpisode, Content: "On Tuesday Ann said the beagle chewed a shoe.",
		UserID: "ann", SessionID: "s2", Timestamp: at.Add(24 * time.Hour)})
	var thanks []*palace.Drawer
	for i := range 2 {
		thanks = append(thanks, mustAdd(t, p, &palace.Drawer{Kind: palace.KindTurn, Content: "Thanks for the beagle photos!",
			SessionID: "s3", SenderIDs: []string{"bo"}, Timestamp: at.Add(time.Duration(48+i) * time.Hour)}))
	}
	hits, err := p.Search(ctx, palace.SearchRequest{Query: "beagle", K: 4, NoAccess: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, h := range hits {
		got[h.Drawer.Content]++
	}
	if len(hits) != 4 || got[story] != 1 || got[later.Content] != 1 || got[thanks[0].Content] != 2 {
		t.Fatalf("want the episode once, the later one, and both thanks; got %d hits: %v", len(hits), got)
	}
	// Kept to one participant, a search finds that participant's episode.
	hits, err = p.Search(ctx, palace.SearchRequest{Query: "beagle puppy", K: 2, NoAccess: true, Filter: palace.Filter{UserID: "bo"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Drawer.UserID != "bo" || hits[0].Drawer.Content != story {
		t.Fatalf("bo's search: %+v", hits)
	}
}

// An atomic fact restates a sentence of its episode: listed below the
// episode (or below the copy of it another participant's episode is) it
// says nothing the list does not, and the next candidate takes its place.
// Ranked above its episode, it stays.
func TestAFactBelowItsEpisodeIsPassedOver(t *testing.T) {
	p := MustOpenPalace(t)
	ctx := context.Background()
	at := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	story := "On Monday, May 8, 2023 at 13:00 UTC, Ann said: \"We adopted a beagle puppy called Rex.\" Bo said: \"A beagle puppy! Rex suits him.\""
	var facts []*palace.Drawer
	for _, owner := range []string{"ann", "bo"} {
		ep := mustAdd(t, p, &palace.Drawer{ID: owner + "_ep", Kind: palace.KindEpisode, Content: story, UserID: owner, SessionID: "s1", Timestamp: at})
		facts = append(facts, mustAdd(t, p, &palace.Drawer{ID: owner + "_af", Kind: palace.KindAtomicFact, ParentID: ep.ID,
			Content: "Ann adopted a beagle puppy.", UserID: owner, SessionID: "s1", Timestamp: at}))
	}
	other := mustAdd(t, p, &palace.Drawer{Kind: palace.KindNote, Content: "The beagle club meets on Sundays in the park."})
	hits, err := p.Search(ctx, palace.SearchRequest{Query: "beagle puppy Rex", K: 3, NoAccess: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range hits {
		got = append(got, h.Drawer.ID)
	}
	if len(hits) < 2 || hits[0].Drawer.Kind != palace.KindEpisode || !slices.Contains(got, other.ID) ||
		slices.Contains(got, facts[0].ID) || slices.Contains(got, facts[1].ID) {
		t.Fatalf("got %q; want an episode first, the note, and no fact of the episode", got)
	}
	// Asked in the fact's own words, the fact ranks above its episode and stays.
	hits, err = p.Search(ctx, palace.SearchRequest{Query: "Ann adopted a beagle puppy", K: 3, NoAccess: true, Filter: palace.Filter{UserID: "ann"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) < 2 || hits[0].Drawer.ID != facts[0].ID || hits[1].Drawer.ID != "ann_ep" {
		t.Fatalf("ann's search in the fact's words: %v", hits)
	}
}

// A note or a fact remembered again in the same words, in its room and by
// its owner, is one memory however far apart the two were written: it is
// listed once, as the dreamer's next pass would leave it, and the next
// candidate takes the place of the copy. The same words in another room,
// or of another kind of fact, are another memory.
func TestAMemoryRememberedTwiceIsListedOnce(t *testing.T) {
	p := MustOpenPalace(t)
	ctx := context.Background()
	at := time.Date(2026, 5, 8, 13, 0, 0, 0, time.UTC)
	text := "The API gateway validates JWT tokens using RS256."
	note := func(room string, day int, content string) *palace.Drawer {
		return mustAdd(t, p, &palace.Drawer{Kind: palace.KindNote, Content: content, Room: room, Timestamp: at.AddDate(0, 0, day)})
	}
	note("Backend", 0, text)
	note("Backend", 3, text)
	note("Frontend", 1, text)
	near := note("Backend", 2, "JWT tokens expire after fifteen minutes at the API gateway.")
	fact := func(kind string) *palace.Drawer {
		return mustAdd(t, p, &palace.Drawer{Kind: palace.KindFact, Content: "Prefers RS256 for JWT signing.", Room: "Backend",
			Timestamp: at, Meta: map[string]any{palace.MetaFactKind: kind}})
	}
	fact("preference")
	fact("preference")
	fact("tooling")
	hits, err := p.Search(ctx, palace.SearchRequest{Query: "JWT tokens RS256 API gateway", K: 6, NoAccess: true})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, h := range hits {
		fk, _ := h.Drawer.Meta[palace.MetaFactKind].(string)
		count[h.Drawer.Kind+"/"+h.Drawer.Room+"/"+fk+"/"+h.Drawer.Content]++
	}
	want := map[string]int{
		"note/Backend//" + text:                                  1,
		"note/Frontend//" + text:                                 1,
		"note/Backend//" + near.Content:                          1,
		"fact/Backend/preference/Prefers RS256 for JWT signing.": 1,
		"fact/Backend/tooling/Prefers RS256 for JWT signing.":    1,
	}
	if len(hits) != len(want) {
		t.Fatalf("%d hits, want %d: %v", len(hits), len(want), count)
	}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("%q listed %d times, want %d (all: %v)", k, count[k], n, count)
		}
	}
	// memory_recall fills what the search leaves of its K with the most
	// important drawers (L1): not with the copy the search passed over.
	rec, err := p.Recall(ctx, palace.RecallRequest{Query: "RS256", K: 10})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, h := range rec {
		seen[h.Drawer.Content+"/"+h.Drawer.Room]++
	}
	if seen[text+"/Backend"] != 1 || len(rec) != len(want) {
		t.Errorf("memory_recall listed %d drawers, the memory remembered twice %d times: %v", len(rec), seen[text+"/Backend"], seen)
	}
}
