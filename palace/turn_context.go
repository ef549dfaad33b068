package palace

import "context"

// turnContextBytes bounds the text a drawer is indexed with: its own text
// plus what it borrows from the drawer before it.
const turnContextBytes = 600

// minBorrowBytes is the least context worth borrowing; below it a drawer
// borrows nothing.
const minBorrowBytes = 40

// contextKinds are the kinds whose drawers, written in a session, are
// neighbours: a recorded conversation's turns, and texts an agent stores
// one at a time in a session.
var contextKinds = []string{KindTurn, KindNote}

// addTurnContext gives each drawer written in a session (a conversation
// turn, or a text an agent stored in a session) the text of the drawer
// before it in the same session as extra searchable keywords. An answer
// ("Yes, every spring in Yosemite") rarely repeats the words of the
// question it answers ("Do you still go climbing?"); indexing the
// question beside the answer lets keyword search find the answer by the
// question's words. Keywords weigh half as much as the drawer's own text
// in BM25. A drawer that already has keywords is left as it is.
func (p *Palace) addTurnContext(ctx context.Context, ds []*Drawer) error {
	last := map[string]*Drawer{} // session -> latest drawer seen in this batch
	for _, d := range ds {
		if d.SessionID == "" || (d.Kind != KindTurn && d.Kind != KindNote) {
			continue
		}
		prev, ok := last[d.SessionID]
		last[d.SessionID] = d
		if d.Keywords != "" {
			continue
		}
		if !ok {
			var err error
			if prev, ok, err = p.st.Drawers().Previous(ctx, d.SessionID, contextKinds, d.Timestamp); err != nil {
				return storeErr("read previous turn", err)
			}
		}
		if ok {
			d.Keywords = borrowedContext(d, prev)
		}
	}
	return nil
}

// borrowedContext is what d borrows from the drawer before it: as much of
// prev's text as d lacks to reach turnContextBytes. A short answer borrows
// the question it answers; a long text, which carries its own words,
// borrows little or nothing. Borrowing by need keeps a long reply from
// taking on the words of the short statement before it and outranking
// that statement for them — the statement is usually the memory (in
// user–assistant chats most evidence is the user's own words, and the
// assistant's long replies around it repeat their vocabulary).
func borrowedContext(d, prev *Drawer) string {
	n := turnContextBytes - len(d.Content)
	if n < minBorrowBytes {
		return ""
	}
	return truncate(prev.Content, n)
}
