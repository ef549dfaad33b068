package palace

import (
	"context"
	"strings"
)

// turnContextBytes bounds the text a drawer is indexed with: its own text
// plus what it borrows from the drawers before it.
const turnContextBytes = 600

// minBorrowBytes is the least context worth borrowing; below it a drawer
// borrows nothing.
const minBorrowBytes = 40

// maxBorrowTurns bounds how many earlier drawers one drawer reads while
// borrowing (a bound on work: the byte budget ends the walk first unless
// the messages are a few bytes each).
const maxBorrowTurns = 16

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
// that already has keywords is left as it is.
func (p *Palace) addTurnContext(ctx context.Context, ds []*Drawer) error {
	batch := map[string][]*Drawer{} // session -> its drawers in this batch so far
	for _, d := range ds {
		if d.SessionID == "" || (d.Kind != KindTurn && d.Kind != KindNote) {
			continue
		}
		before := batch[d.SessionID]
		batch[d.SessionID] = append(before, d)
		if d.Keywords != "" {
			continue
		}
		// Earlier drawers newest first: this batch's, then the store's.
		i, stored, asked := len(before), (*Drawer)(nil), false
		earlier := func() (*Drawer, error) {
			if i > 0 {
				i--
				return before[i], nil
			}
			var err error
			switch {
			case !asked:
				asked = true
				at := d.Timestamp
				if len(before) > 0 {
					at = before[0].Timestamp
				}
				stored, _, err = p.st.Drawers().Previous(ctx, d.SessionID, contextKinds, at)
			case stored != nil:
				stored, _, err = p.st.Drawers().Adjacent(ctx, stored, contextKinds)
			}
			if err != nil {
				return nil, storeErr("read previous turn", err)
			}
			return stored, nil
		}
		kw, err := borrowedContext(d, earlier)
		if err != nil {
			return err
		}
		d.Keywords = kw
	}
	return nil
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
// It borrows only as much as d lacks to reach turnContextBytes. A short
// answer borrows the question it answers; a long text, which carries its
// own words, borrows little or nothing. Borrowing by need keeps a long
// reply from taking on the words of the short statement before it and
// outranking that statement for them — the statement is usually the
// memory (in user–assistant chats most evidence is the user's own words,
// and the assistant's long replies around it repeat their vocabulary).
//
// What is borrowed is what the earlier texts say (saidText): a header's
// date and tags are the drawer's metadata, not words to be found by.
func borrowedContext(d *Drawer, earlier func() (*Drawer, error)) (string, error) {
	left := turnContextBytes - len(d.Content)
	if left < minBorrowBytes {
		return "", nil
	}
	who := speakerOf(d)
	var parts []string // newest first
	answered := false  // the run reached the message it answers
	for range maxBorrowTurns {
		x, err := earlier()
		if err != nil {
			return "", err
		}
		if x == nil {
			break
		}
		t := truncate(saidText(x.Content), left)
		parts = append(parts, t)
		left -= len(t) + 1
		if who == "" || speakerOf(x) != who {
			answered = true
			break
		}
		if left < minBorrowBytes {
			break
		}
	}
	if !answered && len(parts) > 1 {
		// A run that answers nothing within reach (one speaker's notes,
		// or a run longer than the budget) borrows only the text before.
		parts = parts[:1]
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, "\n"), nil
}

// speakerOf is the first sender a drawer names ("" for none).
func speakerOf(d *Drawer) string {
	if len(d.SenderIDs) == 0 {
		return ""
	}
	return d.SenderIDs[0]
}
