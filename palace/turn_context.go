package palace

import (
	"context"
	"errors"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/loci-mem/loci/palace/bm25"
	"github.com/loci-mem/loci/palace/store"
	"github.com/loci-mem/loci/palace/words"
)

// turnContextBytes bounds the text a drawer is indexed with: its own text
// plus what it borrows from the drawers before it.
const turnContextBytes = 600

// minBorrowBytes is the least context worth borrowing; below it a drawer
// borrows nothing.
const minBorrowBytes = 40

// maxBorrowBytes bounds what a drawer borrows, whatever it lacks of
// turnContextBytes: about two turns of a chat. A short statement after a
// long reply ("Went with Postgres in the end.") borrowed the reply's last
// 570 bytes, and was indexed and embedded mostly as the reply's words.
// Chosen on conversations 1–5 (session path, hybrid any@10 / frac@10)
// from 200, 300 and 400 bytes: LoCoMo .874 / .820, .875 / .822, .877 /
// .823 (.877 / .823 without); the rewrite whose replies restate eight
// turns .841 / .794, .838 / .790, .824 / .779 (.825 / .775). RECALL.md,
// "Borrowing at most two turns", has the held-out halves.
const maxBorrowBytes = 300

// maxBorrowTurns bounds how many earlier drawers one drawer reads while
// borrowing (a bound on work: the byte budget ends the walk first unless
// the messages are a few bytes each).
const maxBorrowTurns = 16

// episodeSilence ends an episode within a session or a connection: a
// text stored this long after the one before it starts a new one, and
// borrows from, restates and lifts nothing before the silence
// (untilSilence, apart). A thread of a chat export holds weeks of
// conversation in one session, and what one speaker writes after a pause
// (a note saved after lunch, "back from lunch, the build is green") does
// not continue what came before it. Dividing a stream
// of events into sessions at an inactivity timeout is the standard
// sessionization: Catledge and Pitkow (1995) derived 25.5 minutes from
// the gaps between a browser's events, and 30 minutes is the convention
// web analytics kept. Turns a few seconds or minutes apart, as recorded
// conversations have, are untouched; on LoCoMo as one thread of dated
// messages (eval --one-thread), where its sessions are days apart, the
// rule gives back LoCoMo's own figures (RECALL.md, "Sessions, not days").
// A reply is the exception (replyWindow).
const episodeSilence = 30 * time.Minute

// replyWindow: a text of another speaker than the text before it answers
// that text across a silence shorter than this. Between people a chat is
// asynchronous: "How was the trip?" at nine in the evening is answered
// "Amazing, we saw the fjords" the next morning, and the answer borrows
// the question as a reply sent a minute later does. A message a day or
// more later opens a new conversation, as a session of LoCoMo written as
// one thread does (its sessions are days apart). A day is the period of
// people's lives, not a value chosen on the evaluation; with no bound at
// all, LoCoMo as one thread lost .004 / .007 (RECALL.md, "Replies across a
// silence"). A text with no speaker (a note) answers no one, and the
// silence stands before it.
const replyWindow = 24 * time.Hour

// untilSilence walks back through the texts before d (earlier returns
// them newest first, and nil when there are no more) until the first
// silence of episodeSilence or more, between d and the newest or between
// two of them.
func untilSilence(d *Drawer, earlier func() (*Drawer, error)) func() (*Drawer, error) {
	after := d
	return func() (*Drawer, error) {
		x, err := earlier()
		if x == nil || err != nil || apart(x, after) {
			return nil, err
		}
		after = x
		return x, nil
	}
}

// apart reports whether a silence of episodeSilence or more lies between
// two texts' times (never when either has no time), unless one answers
// the other: their speakers differ and the silence is shorter than
// replyWindow.
func apart(a, b *Drawer) bool {
	if a.Timestamp.IsZero() || b.Timestamp.IsZero() {
		return false
	}
	gap := a.Timestamp.Sub(b.Timestamp).Abs()
	if gap < episodeSilence {
		return false
	}
	replies := len(a.SenderIDs) > 0 && len(b.SenderIDs) > 0 && a.SenderIDs[0] != b.SenderIDs[0]
	return !replies || gap >= replyWindow
}

// contextKinds are the kinds whose drawers, written in a session, are
// neighbours: a recorded conversation's turns, and texts an agent stores
// one at a time in a session.
var contextKinds = []string{KindTurn, KindNote}

// addTurnContext gives each drawer written in a session (a conversation
// turn, or a text an agent stored in a session) the text it answers as
// extra searchable keywords (see borrowedContext). An answer ("Yes, every
// spring in Yosemite") rarely repeats the words of the question it
// answers ("Do you still go climbing?"); indexing the question beside the
// answer lets keyword search find the answer by the question's words.
// Keywords weigh half as much as the drawer's own text in BM25. A drawer
// also finds the sentences of its own text that restate an earlier text of
// its session (restated.go), which its keywords keep and the index counts
// at the same half weight. A drawer that already has keywords is left as
// it is. What a drawer answers is the drawer before it, unless it names
// the message it answers (MetaReplyTo: a chat export's reply, where the
// text before it may be another conversation's); the walk back goes on
// the same way from each text it reaches.
func (p *Palace) addTurnContext(ctx context.Context, ds []*Drawer) error {
	batch := map[string][]*Drawer{} // session -> its drawers in this batch so far
	place := map[*Drawer]int{}      // a drawer of this batch -> its place in its session's
	for _, d := range ds {
		if d.SessionID == "" || (d.Kind != KindTurn && d.Kind != KindNote) {
			continue
		}
		before := batch[d.SessionID]
		batch[d.SessionID] = append(before, d)
		place[d] = len(before)
		if d.Keywords != "" {
			continue
		}
		// The texts d answers, newest first: the message it names as the
		// one it answers (a chat export's reply), else the drawer before
		// it; and so on back, so that a chain of replies is read as the
		// conversation it is. Once a step goes back by time, the walk goes
		// on by time: a reply met on the way belongs to whichever
		// conversation it answers, and following it would leave d's. Read
		// once, however many passes below walk it.
		chain := true // the walk has followed only replies so far
		prevOf := func(x *Drawer) (*Drawer, error) {
			i, inBatch := place[x] // x is d's session's: the walk stays in it
			var mine []*Drawer     // the batch's drawers before x
			if inBatch {
				mine = before[:i]
			}
			if chain {
				if a, _, err := p.answered(ctx, x, mine); err != nil || a != nil {
					return a, err
				}
				chain = false
			}
			var prev *Drawer
			var err error
			switch {
			case inBatch && i > 0:
				return before[i-1], nil
			case inBatch:
				prev, _, err = p.st.Drawers().Previous(ctx, d.SessionID, contextKinds, x.Timestamp)
			default:
				prev, _, err = p.st.Drawers().Adjacent(ctx, x, contextKinds)
			}
			if err != nil {
				return nil, storeErr("read previous turn", err)
			}
			return prev, nil
		}
		var walked []*Drawer // the walk so far
		ended := false
		earlier := func() func() (*Drawer, error) {
			j := 0
			return func() (*Drawer, error) {
				if j == len(walked) && !ended {
					last := d
					if j > 0 {
						last = walked[j-1]
					}
					x, err := prevOf(last)
					if err != nil {
						return nil, err
					}
					if x == nil {
						ended = true
					} else {
						walked = append(walked, x)
					}
				}
				if j == len(walked) {
					return nil, nil
				}
				j++
				return walked[j-1], nil
			}
		}
		// A silence ends the walk back from the message d names, if it
		// names one, not from d.
		from := d
		if a, _, err := p.answered(ctx, d, before); err != nil {
			return err
		} else if a != nil {
			from = a
		}
		kw, err := contextKeywordsFrom(d, from, earlier)
		if err != nil {
			return err
		}
		d.Keywords = kw
	}
	return nil
}

// MetaReplyTo is the meta key under which a turn names the drawer of the
// message it answers, where its source says so (a reply of a chat export
// that quotes an earlier message, not the one just before it).
const MetaReplyTo = "reply_to"

// answered is the drawer d answers when d names one (MetaReplyTo) of its
// session written before it: from this batch's drawers before d (before,
// at index i) or from the store (i = -1). None (nil) when d names none or
// the drawer named is not found, is of another session or comes after d.
func (p *Palace) answered(ctx context.Context, d *Drawer, before []*Drawer) (*Drawer, int, error) {
	id, _ := d.Meta[MetaReplyTo].(string)
	if id == "" || id == d.ID || os.Getenv("LOCI_REPLIES") == "0" { // off for comparisons
		return nil, 0, nil
	}
	for i := len(before) - 1; i >= 0; i-- {
		if before[i].ID == id {
			return before[i], i, nil
		}
	}
	x, err := p.st.Drawers().Get(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, 0, nil
	case err != nil:
		return nil, 0, storeErr("read the message a turn answers", err)
	case x.SessionID != d.SessionID || x.Timestamp.After(d.Timestamp) || !slices.Contains(contextKinds, x.Kind) || x.Status != StatusActive:
		return nil, 0, nil
	}
	return x, -1, nil
}

// contextKeywords are the keywords d takes from the texts before it:
// what it borrows (borrowedContext), what it restates of them
// (restatedSentences) and the name it addresses (addressee). earlier
// gives a fresh walk back through those texts, newest first, for each
// pass. A tapback ("Loved “…”") is not among them: it repeats a text the
// walk reaches anyway, and read twice, that text's words would be taken
// as what the conversation keeps coming back to (topicWords).
func contextKeywords(d *Drawer, earlier func() func() (*Drawer, error)) (string, error) {
	return contextKeywordsFrom(d, d, earlier)
}

// contextKeywordsFrom is contextKeywords for a drawer that answers from:
// d itself when it answers the text before it, or the message its export
// says it answers, which earlier then gives first. A silence ends the
// walk back from that message, not from d: a reply that names the message
// it answers answers it however long after.
func contextKeywordsFrom(d, from *Drawer, earlier func() func() (*Drawer, error)) (string, error) {
	walk := func() func() (*Drawer, error) { return pastTapbacks(earlier()) }
	kw, err := borrowedContext(d, untilSilence(from, walk()))
	if err != nil {
		return "", err
	}
	window, err := restatedWindow(untilSilence(from, walk()))
	if err != nil {
		return "", err
	}
	to, err := addressee(d, walk())
	if err != nil {
		return "", err
	}
	return withAddressed(withRestated(kw, restatedSentences(spokenWords(d.Content, d), window)), to), nil
}

// pastTapbacks is the walk earlier without the tapbacks it passes, at
// most maxBorrowTurns of them (the bound of every walk back); any after
// those are given as texts, and the walk's reader bounds itself.
func pastTapbacks(earlier func() (*Drawer, error)) func() (*Drawer, error) {
	passed := 0
	return func() (*Drawer, error) {
		for {
			x, err := earlier()
			if x == nil || err != nil || passed == maxBorrowTurns || !isTapbackText(x) {
				return x, err
			}
			passed++
		}
	}
}

// addressee returns the words of the name of the person d addresses
// (address.go): the speaker of the message it answers, the first of the
// texts before it (earlier, newest first, at most maxBorrowTurns) whose
// speaker is not d's. A silence does not end the search: the person a
// conversation comes back to is the one it left. None for a drawer
// without a speaker, one that answers nothing within reach, and a
// speaker recorded by a chat role (nameWords).
func addressee(d *Drawer, earlier func() (*Drawer, error)) ([]string, error) {
	who := SpeakerOf(d)
	if who == "" {
		return nil, nil
	}
	for range maxBorrowTurns {
		x, err := earlier()
		if err != nil || x == nil {
			return nil, err
		}
		if s := SpeakerOf(x); s != who {
			if s == "" {
				return nil, nil
			}
			return nameWords(s), nil
		}
	}
	return nil, nil
}

// borrowedContext is what d borrows from the drawers before it (earlier
// returns them newest first, and nil when there are no more): the message
// it answers, and what its own speaker said just before it.
//
// A turn is often sent as several messages ("omg", "we finally got the
// keys", "moving in on Saturday!"), and the question they answer comes
// before the first of them. So d borrows back through its own speaker's
// run of messages to the other speaker's last one, inclusive; where turns
// alternate (or a drawer names no speaker) that is just the drawer before
// it. The newest text is taken first. A run that reaches no other
// speaker's message within the budget (one speaker's notes stored one
// after another, unrelated more often than not) borrows only the text
// before it.
//
// It borrows only as much as d lacks to reach turnContextBytes, and at
// most maxBorrowBytes. A short answer borrows the question it answers; a
// long text, which carries its own words, borrows little or nothing.
// Borrowing by need keeps a long reply from taking on the words of the
// short statement before it and outranking that statement for them — the
// statement is usually the memory (in user–assistant chats most evidence
// is the user's own words, and the assistant's long replies around it
// repeat their vocabulary); the bound keeps that statement from being
// indexed as mostly the reply before it.
//
// Of an earlier text longer than what is left, d borrows the end: a
// reply answers the last thing said to it (the question a long reply
// closes with, the step it proposes last), while a long text often opens
// by restating what it answers, words that are the memory of the text
// before it, not of d. A speaker label the text opens with stays
// (lastSaid). On LoCoMo's rewrite whose replies open with the user's last
// eight turns, session hybrid any@10 rose .729 → .758 (1–5) and .691 →
// .718 (6–10); LoCoMo itself, whose turns are short, moved by at most
// .004 (RECALL.md, "Borrowing the end of a long text").
//
// What is borrowed is what the earlier texts say (saidText): a header's
// date and tags are the drawer's metadata, not words to be found by.
//
// A drawer with a speaker also takes its conversation's topic words
// (topicWords), on a line after what it borrows.
func borrowedContext(d *Drawer, earlier func() (*Drawer, error)) (string, error) {
	left := min(turnContextBytes-len(d.Content), maxBorrowBytes)
	if left < minBorrowBytes {
		return "", nil
	}
	who := SpeakerOf(d)
	// The earlier texts, newest first, at most maxBorrowTurns: each read
	// from the store once however many passes below ask for it.
	type said struct{ text, speaker string }
	var read []said
	var readErr error
	earlierTexts := func(yield func(said) bool) {
		for i := range maxBorrowTurns {
			if i == len(read) {
				x, err := earlier()
				if err != nil || x == nil {
					readErr = err
					return
				}
				// As it is indexed: without the names it addressed.
				read = append(read, said{unaddressed(saidText(x.Content), addressedBy(x)), SpeakerOf(x)})
			}
			if !yield(read[i]) {
				return
			}
		}
	}
	var parts []string // newest first
	answered := false  // the run reached the message it answers
	for x := range earlierTexts {
		t := lastSaid(x.text, left)
		parts = append(parts, t)
		left -= len(t) + 1
		if who == "" || x.speaker != who {
			answered = true
			break
		}
		if left < minBorrowBytes {
			break
		}
	}
	if readErr != nil {
		return "", readErr
	}
	if !answered && len(parts) > 1 {
		// A run that answers nothing within reach (one speaker's notes,
		// or a run longer than the budget) borrows only the text before.
		parts = parts[:1]
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	kw := strings.Join(parts, "\n")
	if who == "" {
		return kw, nil // notes, not a conversation: no topic to take
	}
	// The conversation just before d: the texts within turnContextBytes
	// (the first one whole, however long), at most maxBorrowTurns.
	var window []string
	size := 0
	for x := range earlierTexts {
		if len(window) > 0 && size+len(x.text) > turnContextBytes {
			break
		}
		window = append(window, x.text)
		size += len(x.text)
	}
	if readErr != nil {
		return "", readErr
	}
	if tw := topicWords(saidText(d.Content)+"\n"+kw, window); len(tw) > 0 {
		if kw != "" {
			kw += "\n"
		}
		kw += strings.Join(tw, " ")
	}
	return kw, nil
}

// A message's topic is often set before it: "I'm excited!" answers three
// messages about the studio's opening, and a question about the opening
// shares no word with it. So a conversation's drawer is also indexed
// with the words its conversation has just repeated: those said in at
// least topicWordsSaid of the texts within turnContextBytes before it,
// which it does not say or borrow itself, up to topicWordsMax of them
// (the most said first, then the most recent). This is document
// expansion from neighbouring documents (Tao, Wang, Mei and Zhai 2006),
// the neighbours being the texts said just before. A word said twice is a
// topic; one said once is not, and a long text before (which fills the
// window alone) lends none. Both values were the first tried, not tuned:
// on the short-message rewrite, where most misses share no word with
// their evidence, session hybrid any@10 / frac@10 rose .736 / .641 →
// .751 / .663 (1–5) and .748 / .639 → .751 / .648 (6–10); LoCoMo, whose
// turns carry their own topic, moved within ±.006 (RECALL.md, "Topic words").
const (
	topicWordsSaid = 2
	topicWordsMax  = 5
)

// topicWords picks a drawer's topic words from the texts before it
// (window, newest first); own is what the drawer already says or
// borrows. Words are lower-cased, of three letters or more, and not
// stopwords; they are compared by their BM25 token (so "studios" and
// "studio" are one word) and given as first written, newest first.
func topicWords(own string, window []string) []string {
	if len(window) < topicWordsSaid {
		return nil // and a long text before, alone in the window, is not read
	}
	have := map[string]bool{}
	for _, tok := range bm25.AppendTokens(nil, own) {
		have[tok] = true
	}
	type topic struct {
		word   string // as first met (newest first)
		said   int    // texts saying it
		newest int    // index of the newest text saying it
	}
	topics := map[string]*topic{}
	var toks []string
	for i, text := range window {
		inText := map[string]bool{}
		for _, w := range words.Lower(text, words.Underscores) {
			if len(w) < 3 || words.IsStopword(w) {
				continue
			}
			toks = bm25.AppendTokens(toks[:0], w)
			if len(toks) != 1 {
				continue
			}
			tok := toks[0]
			if have[tok] || inText[tok] || words.IsStopword(tok) {
				continue
			}
			inText[tok] = true
			if t := topics[tok]; t != nil {
				t.said++
			} else {
				topics[tok] = &topic{word: w, said: 1, newest: i}
			}
		}
	}
	var picked []*topic
	for _, t := range topics {
		if t.said >= topicWordsSaid {
			picked = append(picked, t)
		}
	}
	sort.Slice(picked, func(i, j int) bool {
		a, b := picked[i], picked[j]
		if a.said != b.said {
			return a.said > b.said
		}
		if a.newest != b.newest {
			return a.newest < b.newest
		}
		return a.word < b.word
	})
	out := make([]string, 0, min(len(picked), topicWordsMax))
	for _, t := range picked[:min(len(picked), topicWordsMax)] {
		out = append(out, t.word)
	}
	return out
}

// SpeakerOf is the first sender a drawer names ("" for none): who said
// its text, as the faces show it.
func SpeakerOf(d *Drawer) string {
	if len(d.SenderIDs) == 0 {
		return ""
	}
	return d.SenderIDs[0]
}

// lastSaid is the end of an earlier text, at most about n bytes of it,
// for a later drawer to borrow (see borrowedContext). A speaker label the
// text opens with ("Caroline: ") stays in front of the end: who said it is
// part of what is borrowed, and a question may name them.
func lastSaid(text string, n int) string {
	if len(text) <= n {
		return text
	}
	if l := labelLen(text, false); l > 0 && l < n {
		return text[:l] + lastBytes(text[l:], n-l)
	}
	return lastBytes(text, n)
}
