package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Texts remembered one after another through one stdio connection are
// neighbours (the second borrows the first as context); a long text is
// recalled with the passage that matched, and the markdown faces show
// that passage instead of the whole text.
func TestRememberNeighboursAndPassages(t *testing.T) {
	t.Parallel()
	ps := startPipeServer(t, "p")
	reg := ps.reg

	var q, a struct {
		DrawerID string `json:"drawer_id"`
	}
	ps.callTool(t, 1, "memory_remember", map[string]any{"text": "Melanie: Do you still go rock climbing on weekends?"}, &q)
	ps.callTool(t, 2, "memory_remember", map[string]any{"text": "Caroline: Yes, every spring in Yosemite."}, &a)
	p, err := reg.Open(context.Background(), "p")
	if err != nil {
		t.Fatal(err)
	}
	d, err := p.Get(context.Background(), a.DrawerID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Keywords, "rock climbing") || len(d.SenderIDs) != 1 || d.SenderIDs[0] != "Caroline" {
		t.Errorf("the second text of the connection: keywords %q senders %v; want the first text and [Caroline]", d.Keywords, d.SenderIDs)
	}

	var words []string
	for i := range 2000 {
		words = append(words, fmt.Sprintf("filler%d", i%97))
	}
	words[1200] = "the zeppelin rudder hinge cracked during inspection"
	ps.callTool(t, 3, "memory_remember", map[string]any{"text": strings.Join(words, " ")}, &q)
	var rec struct {
		Results []struct {
			DrawerID string `json:"drawer_id"`
			Passage  *struct {
				Start, End int
			} `json:"passage"`
			Excerpt string `json:"excerpt"`
		} `json:"results"`
	}
	ps.callTool(t, 4, "memory_recall", map[string]any{"query": "zeppelin rudder hinge", "top_k": 3}, &rec)
	if len(rec.Results) == 0 || rec.Results[0].DrawerID != q.DrawerID {
		t.Fatalf("the long text is not the first result: %+v", rec.Results)
	}
	top := rec.Results[0]
	if top.Passage == nil || !strings.Contains(top.Excerpt, "zeppelin rudder hinge") || top.Passage.End-top.Passage.Start != len(top.Excerpt) {
		t.Errorf("passage %+v excerpt %q; want the passage holding the matched words", top.Passage, top.Excerpt)
	}
	for _, r := range rec.Results[1:] {
		if r.Passage != nil {
			t.Errorf("short drawer %s has a passage %+v", r.DrawerID, r.Passage)
		}
	}

	long := strings.Join(words, " ")
	for i, tool := range []string{"mem_search", "mem_context"} {
		md, failed := ps.rpc(t, 5+i, "tools/call", map[string]any{"name": tool, "arguments": map[string]any{"query": "zeppelin rudder hinge"}})
		if failed {
			t.Fatalf("%s: %s", tool, md)
		}
		item := md[strings.Index(md, "1. "):]
		if !strings.HasPrefix(item, "1. filler0 filler1") || !strings.Contains(item, "zeppelin rudder hinge") ||
			!strings.Contains(item, fmt.Sprintf("part of %d characters", len(long))) {
			t.Errorf("%s: the long text's item does not show its opening, the matched passage and its length:\n%.600s", tool, item)
		}
		if len(md) > 4000 {
			t.Errorf("%s: %d bytes of markdown for a %d-byte text; want the passage, not the whole text", tool, len(md), len(long))
		}
	}
}

// An agent that records several conversations through one connection
// names each text's conversation (session) and, for a text that answers
// an earlier message than the last, that message (reply_to): each text
// borrows from its own conversation, not from the other one's text sent
// between; a reply joins the session of the message it answers; recall
// and list filter by session and show it. A session or reply_to that
// cannot be taken is refused, and nothing is stored.
func TestRememberSessionsAndReplies(t *testing.T) {
	t.Parallel()
	ps := startPipeServer(t, "p")
	type stored struct {
		DrawerID string `json:"drawer_id"`
		Session  string `json:"session"`
	}
	var rope, game, me, half stored
	ps.callTool(t, 1, "memory_remember", map[string]any{"text": "Ana: who is bringing the climbing rope on Saturday?", "session": "trip"}, &rope)
	ps.callTool(t, 2, "memory_remember", map[string]any{"text": "Cy: did anyone watch the playoffs last night?", "session": "sports"}, &game)
	ps.callTool(t, 3, "memory_remember", map[string]any{"text": "Ben: me, the new 60m one", "session": "trip"}, &me)
	ps.callTool(t, 4, "memory_remember", map[string]any{"text": "Dee: only the second half", "reply_to": game.DrawerID}, &half)
	if rope.Session != "trip" || me.Session != "trip" || half.Session != "sports" {
		t.Errorf("sessions %q %q %q; want trip, trip and the session of the message answered (sports)", rope.Session, me.Session, half.Session)
	}
	p, err := ps.reg.Open(context.Background(), "p")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id, want, notWant string
	}{{me.DrawerID, "rope", "playoffs"}, {half.DrawerID, "playoffs", "rope"}} {
		d, err := p.Get(context.Background(), c.id)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(d.Keywords, c.want) || strings.Contains(d.Keywords, c.notWant) {
			t.Errorf("%q borrowed %q; want its own conversation's words (%s), not the other's (%s)", d.Content, d.Keywords, c.want, c.notWant)
		}
	}

	var rec struct {
		Results []struct {
			DrawerID string `json:"drawer_id"`
			Session  string `json:"session"`
		} `json:"results"`
	}
	ps.callTool(t, 5, "memory_recall", map[string]any{"query": "who watched the playoffs", "session": "trip"}, &rec)
	if len(rec.Results) == 0 {
		t.Fatal("recall in session trip found nothing")
	}
	for _, r := range rec.Results {
		if r.Session != "trip" {
			t.Errorf("recall in session trip returned %s of session %q", r.DrawerID, r.Session)
		}
	}
	var list struct {
		Total   int `json:"total"`
		Drawers []struct {
			Session string `json:"session"`
		} `json:"drawers"`
	}
	ps.callTool(t, 6, "memory_list", map[string]any{"session": "sports"}, &list)
	if list.Total != 2 || list.Drawers[0].Session != "sports" {
		t.Errorf("memory_list in session sports: %+v, want its two texts", list)
	}

	for i, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"text": "Ben: ok", "reply_to": "0190aaaa-0000-7000-8000-00000000dead"}, "reply_to: no memory"},
		{map[string]any{"text": "Ben: ok", "reply_to": game.DrawerID, "session": "trip"}, `belongs to session "sports", not "trip"`},
		{map[string]any{"text": "Ben: ok", "session": strings.Repeat("s", 129)}, "at most 128 bytes"},
		{map[string]any{"text": "Ben: ok", "session": "trip\x1b[2J"}, "control character"},
		{map[string]any{"text": "Ben: ok", "session": "ghp_" + strings.Repeat("a1B2", 9)}, "looks like a credential"},
		{map[string]any{"text": "Ben: ok", "session": 7}, "session"},
	} {
		msg, failed := ps.rpc(t, 10+i, "tools/call", map[string]any{"name": "memory_remember", "arguments": c.args})
		if !failed || !strings.HasPrefix(msg, "memory_remember: ") || !strings.Contains(msg, c.want) {
			t.Errorf("memory_remember %v: %q (failed %v), want a failure saying %q", c.args, msg, failed, c.want)
		}
	}
	ps.callTool(t, 20, "memory_list", map[string]any{}, &list)
	if list.Total != 4 {
		t.Errorf("%d drawers after the refused calls, want 4", list.Total)
	}
	// A blank session is none: the text is a note of the connection.
	var blank stored
	ps.callTool(t, 21, "memory_remember", map[string]any{"text": "The van is booked for Saturday.", "session": "  "}, &blank)
	if blank.Session != "" {
		t.Errorf("a blank session stored the text in session %q", blank.Session)
	}
}

// A text's time may be given as an argument (timestamp: epoch
// milliseconds or RFC 3339), as an agent that relays a chat's history
// knows it: it is the drawer's timestamp, over the header's date, and a
// silence between two texts of a session parts them (the second borrows
// nothing from the first).
func TestRememberTakesATimestamp(t *testing.T) {
	t.Parallel()
	ps := startPipeServer(t, "p")
	var first, second, third struct {
		DrawerID string `json:"drawer_id"`
	}
	ps.callTool(t, 1, "memory_remember", map[string]any{"text": "Ana: who is bringing the climbing rope on Saturday?", "session": "trip",
		"timestamp": "2024-03-02T09:15:00+01:00"}, &first)
	ps.callTool(t, 2, "memory_remember", map[string]any{"text": "Ben: me, the new 60m one", "session": "trip",
		"timestamp": 1709367600000}, &second) // 08:20 UTC, five minutes later
	ps.callTool(t, 3, "memory_remember", map[string]any{"text": "(1 January, 2020) Ben: the car is booked too", "session": "trip",
		"timestamp": "2024-03-02T14:00:00Z"}, &third) // hours later: a new episode
	p, err := ps.reg.Open(context.Background(), "p")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id, at  string
		borrows bool
	}{{first.DrawerID, "2024-03-02T08:15:00Z", false}, {second.DrawerID, "2024-03-02T08:20:00Z", true}, {third.DrawerID, "2024-03-02T14:00:00Z", false}} {
		d, err := p.Get(context.Background(), c.id)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Timestamp.UTC().Format(time.RFC3339); got != c.at || strings.Contains(d.Keywords, "rope") != c.borrows {
			t.Errorf("%q: at %s, keywords %q; want %s and borrowing %v", d.Content, got, d.Keywords, c.at, c.borrows)
		}
	}
	for i, bad := range []any{"yesterday", -5, 1.5} {
		msg, failed := ps.rpc(t, 10+i, "tools/call", map[string]any{"name": "memory_remember", "arguments": map[string]any{"text": "Ben: ok", "timestamp": bad}})
		if !failed || !strings.Contains(msg, "'timestamp' must be") {
			t.Errorf("timestamp %v: %q (failed %v)", bad, msg, failed)
		}
	}
}

// memory_remember's speaker is stored as the text's label, shown by
// memory_remember, memory_recall and memory_list, and found by a question
// that names the speaker; a speaker no label can hold, or a credential,
// is refused with the argument's name.
func TestRememberNamesTheSpeaker(t *testing.T) {
	t.Parallel()
	ps := startPipeServer(t, "p")
	var said struct {
		DrawerID string `json:"drawer_id"`
		Speaker  string `json:"speaker"`
		Session  string `json:"session"`
	}
	ps.callTool(t, 1, "memory_remember", map[string]any{"text": "(2 March, 2024) I adopted a greyhound named Biscuit",
		"session": "chat", "speaker": "Jolene"}, &said)
	if said.Speaker != "Jolene" || said.Session != "chat" {
		t.Errorf("memory_remember answered speaker %q, session %q; want Jolene, chat", said.Speaker, said.Session)
	}
	var other struct {
		Speaker string `json:"speaker"`
	}
	ps.callTool(t, 2, "memory_remember", map[string]any{"text": "I adopted a cat named Pixel", "session": "chat"}, &other)
	if other.Speaker != "" {
		t.Errorf("a text without a speaker answered speaker %q", other.Speaker)
	}
	var recalled struct {
		Results []struct {
			DrawerID string `json:"drawer_id"`
			Content  string `json:"content"`
			Speaker  string `json:"speaker"`
		} `json:"results"`
	}
	ps.callTool(t, 3, "memory_recall", map[string]any{"query": "What pet did Jolene adopt?"}, &recalled)
	if len(recalled.Results) == 0 || recalled.Results[0].DrawerID != said.DrawerID {
		t.Fatalf("memory_recall of Jolene's pet: %+v, want %s first", recalled.Results, said.DrawerID)
	}
	if r := recalled.Results[0]; r.Content != "(2 March, 2024) Jolene: I adopted a greyhound named Biscuit" || r.Speaker != "Jolene" {
		t.Errorf("recalled %q by %q; want the text labelled with its speaker", r.Content, r.Speaker)
	}
	var listed struct {
		Drawers []struct {
			DrawerID string `json:"drawer_id"`
			Speaker  string `json:"speaker"`
		} `json:"drawers"`
	}
	ps.callTool(t, 5, "memory_recall", map[string]any{"query": "adopted", "speaker": "Jolene"}, &recalled)
	if len(recalled.Results) != 1 || recalled.Results[0].DrawerID != said.DrawerID {
		t.Errorf("memory_recall of what Jolene said: %+v, want her text alone", recalled.Results)
	}
	ps.callTool(t, 8, "memory_recall", map[string]any{"query": "adopted", "speaker": "jolene"}, &recalled)
	if len(recalled.Results) != 1 || recalled.Results[0].DrawerID != said.DrawerID {
		t.Errorf("memory_recall of what jolene said, typed in lower case: %+v, want Jolene's text", recalled.Results)
	}
	ps.callTool(t, 6, "memory_recall", map[string]any{"query": "adopted", "speaker": "Pixel"}, &recalled)
	if len(recalled.Results) != 0 {
		t.Errorf("memory_recall of what nobody said: %+v, want nothing", recalled.Results)
	}
	ps.callTool(t, 7, "memory_list", map[string]any{"speaker": "JOLENE"}, &listed)
	if len(listed.Drawers) != 1 || listed.Drawers[0].DrawerID != said.DrawerID {
		t.Errorf("memory_list of Jolene's texts: %+v", listed.Drawers)
	}
	// A name is matched in either case whatever its letters, as the
	// speaker's label is read (strings.EqualFold), not A to Z alone.
	var hers struct {
		DrawerID string `json:"drawer_id"`
	}
	ps.callTool(t, 30, "memory_remember", map[string]any{"text": "I adopted a parrot named Kiwi", "session": "other", "speaker": "Élodie"}, &hers)
	for _, typed := range []string{"élodie", "ÉLODIE"} {
		ps.callTool(t, 31, "memory_recall", map[string]any{"query": "adopted", "speaker": typed}, &recalled)
		if len(recalled.Results) != 1 || recalled.Results[0].DrawerID != hers.DrawerID {
			t.Errorf("memory_recall of what %s said: %+v, want Élodie's text", typed, recalled.Results)
		}
	}
	ps.callTool(t, 4, "memory_list", map[string]any{"session": "chat"}, &listed)
	speakers := map[string]string{}
	for _, d := range listed.Drawers {
		speakers[d.DrawerID] = d.Speaker
	}
	if speakers[said.DrawerID] != "Jolene" || len(speakers) != 2 {
		t.Errorf("memory_list speakers %v, want Jolene for %s among two", speakers, said.DrawerID)
	}
	for i, c := range []struct {
		speaker any
		want    string
	}{
		{"Dr: Who", "'speaker' contains a colon"},
		{"sk-proj-" + strings.Repeat("a1B2", 12), "'speaker' looks like a credential"},
		{strings.Repeat("x", 129), "at most 128 bytes"},
		{7, "'speaker'"},
	} {
		msg, failed := ps.rpc(t, 10+i, "tools/call", map[string]any{"name": "memory_remember", "arguments": map[string]any{"text": "hello", "speaker": c.speaker}})
		if !failed || !strings.Contains(msg, c.want) {
			t.Errorf("speaker %v: %q (failed %v), want an error with %q", c.speaker, msg, failed, c.want)
		}
	}
	ps.callTool(t, 20, "memory_list", map[string]any{}, &listed)
	if len(listed.Drawers) != 3 {
		t.Errorf("after refused calls the palace holds %d drawers, want 3 (Jolene's, Pixel's, Élodie's)", len(listed.Drawers))
	}
	// A role is one speaker in any case: the label "user:" and "User".
	ps.callTool(t, 21, "memory_remember", map[string]any{"text": "user: deploys go out on Fridays"}, &said)
	ps.callTool(t, 22, "memory_list", map[string]any{"speaker": "User"}, &listed)
	if said.Speaker != "user" || len(listed.Drawers) != 1 || listed.Drawers[0].DrawerID != said.DrawerID {
		t.Errorf("the user's text answered speaker %q and memory_list of User gave %+v", said.Speaker, listed.Drawers)
	}
}
