package palace_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

// Replies that restate a statement do not outrank it for its own words:
// the sentences of a text that restate an earlier one count at half
// weight, on every path that writes a conversation (a batch of session
// turns, a session written one text at a time, one connection), while a
// reply is still found by what it adds.
func TestRestatingRepliesDoNotOutrankTheStatement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	statement := "user: The billing gateway runs on a Raspberry Pi with four gigabytes of memory, in the hall " +
		"cupboard next to the router, and it shares the box with the home automation server, the photo " +
		"backups and a media indexer that wakes up every night at two."
	restated := "You run the billing gateway on a Raspberry Pi with four gigabytes of memory."
	chat := []string{statement}
	for i, advice := range []string{
		"Keep the worker pool small and turn on compressed swap.",
		"Write the logs to tmpfs and rotate them every hour.",
		"Pin the runtime to two threads so the router keeps a core.",
		"Back the database up to the NAS every night.",
	} {
		chat = append(chat, fmt.Sprintf("user: what about step %d?", i+1),
			"assistant: "+restated+" "+advice)
	}
	write := map[string]func(t *testing.T, p *palace.Palace){
		"batch": func(t *testing.T, p *palace.Palace) {
			if err := p.AddMany(ctx, sessionTurns(chat)); err != nil {
				t.Fatal(err)
			}
		},
		"session": func(t *testing.T, p *palace.Palace) {
			for _, text := range chat {
				if _, err := p.Remember(ctx, text, palace.RememberOptions{Session: "s1", Connection: text}); err != nil {
					t.Fatal(err)
				}
			}
		},
		"connection": func(t *testing.T, p *palace.Palace) {
			for _, text := range chat {
				if _, err := p.Remember(ctx, text, palace.RememberOptions{Connection: "c1"}); err != nil {
					t.Fatal(err)
				}
			}
		},
	}
	for path, w := range write {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			p := palacetest.MustOpenPalace(t)
			w(t, p)
			for _, mode := range []palace.Mode{palace.ModeKeyword, palace.ModeHybrid} {
				hits, err := p.Search(ctx, palace.SearchRequest{Query: "billing gateway Raspberry Pi gigabytes memory", Mode: mode, K: 10})
				if err != nil {
					t.Fatal(err)
				}
				// The statement comes before every reply that restates it
				// (a short question after a reply borrows the reply's words
				// as context, and may come anywhere).
				var got []string
				for _, h := range hits {
					got = append(got, h.Drawer.Content)
					if h.Drawer.Content == statement {
						break
					}
					if strings.Contains(h.Drawer.Content, restated) {
						t.Errorf("%s search: a reply that restates the statement comes before it: %q", mode, got)
						break
					}
				}
			}
			// What a reply adds still finds it, at full weight.
			hits, err := p.Search(ctx, palace.SearchRequest{Query: "logs tmpfs rotate", Mode: palace.ModeKeyword, K: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 || !strings.Contains(hits[0].Drawer.Content, "tmpfs") {
				t.Errorf("the reply is not found by what it adds: %v", hits)
			}
		})
	}
}

// A session's texts without a speaker (Claude Code stores each round, the
// prompt and the reply, as one turn) are neighbours too: a round that
// restates an earlier one does not outrank it for its words.
func TestRestatingRoundsWithoutASpeaker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	first := "User: The nightly export must finish before the 6am backup window, because the NAS locks the share during the backup and the export then fails halfway through.\n\n" +
		"Assistant: Understood, I will schedule it earlier and add a check for the lock."
	rounds := []string{first}
	for _, step := range []string{"move the cron entry", "add the lock check", "log the export's duration"} {
		rounds = append(rounds, "User: next, "+step+".\n\nAssistant: The nightly export must finish before the 6am backup window. Done: "+step+".")
	}
	ds := sessionTurns(rounds)
	for _, d := range ds {
		d.SenderIDs = nil
	}
	if err := p.AddMany(ctx, ds); err != nil {
		t.Fatal(err)
	}
	hits, err := p.Search(ctx, palace.SearchRequest{Query: "nightly export before the backup window", Mode: palace.ModeKeyword, K: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Drawer.ID != ds[0].ID {
		var got []string
		for _, h := range hits {
			got = append(got, h.Drawer.Content)
		}
		t.Errorf("first %q, want the round that said it first", got)
	}
}
