package locomo

import (
	"slices"
	"testing"

	"github.com/loci-mem/loci/palace"
)

// On the hook path an episode stands for the turns whose words the reader
// is shown, an atomic fact for the turn it restates, a profile for none.
func TestShownTurns(t *testing.T) {
	t.Parallel()
	turn := func(id, text string) *palace.Drawer {
		return &palace.Drawer{SessionID: "S1", Content: text, Meta: map[string]any{"dia_id": id}}
	}
	st := newShownTurns([]*palace.Drawer{
		turn("D1:1", `Ann: I adopted a grey cat from the shelter last week, she is called "Pixel".`),
		turn("D1:2", "Bo: Lovely! How is she settling in with the dog?"),
		turn("D1:3", "Ann: She hides under the sofa all day."),
	}, 4)
	episode := &palace.Drawer{Kind: palace.KindEpisode, SessionID: "conv-4-S1"}
	shown := `On Monday, May 8, 2023 at 13:00 UTC, the user said: "I adopted a grey cat from the shelter last week, she is called 'Pixel'." ` +
		`At 13:01, the assistant said: "Lovely! How is she settling in with the dog?"`
	if got := st.shows(episode, shown); !slices.Equal(got, []string{"D1:1", "D1:2"}) {
		t.Errorf("the episode shows %q, want D1:1 and D1:2", got)
	}
	if got := st.shows(episode, "At 13:05, the user said: \"She hides under the sofa\"…"); got != nil {
		t.Errorf("an excerpt that cuts a turn before its eighth word shows %q, want none", got)
	}
	fact := &palace.Drawer{Kind: palace.KindAtomicFact, SessionID: "conv-4-S1"}
	if got := st.shows(fact, "The user hides under the sofa all day."); !slices.Equal(got, []string{"D1:3"}) {
		t.Errorf("the fact stands for %q, want D1:3", got)
	}
	profile := &palace.Drawer{Kind: palace.KindProfile}
	if got := st.shows(profile, "name: Ann"); got != nil {
		t.Errorf("a profile stands for %q, want none", got)
	}
}
