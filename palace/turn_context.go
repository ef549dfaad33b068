package palace

import (
	"context"
)

// turnContextBytes bounds the previous turn's text kept as context.
const turnContextBytes = 600

// addTurnContext gives each conversation turn (kind turn, with a session)
// the text of the turn before it in the same session as extra searchable
// keywords. An answer ("Yes, every spring in Yosemite") rarely repeats the
// words of the question it answers ("Do you still go climbing?"); indexing
// the question beside the answer lets keyword search find the answer by
// the question's words. Keywords weigh half as much as the turn's own text
// in BM25 (see keywordSearch). A turn that already has keywords is left as
// it is.
func (p *Palace) addTurnContext(ctx context.Context, ds []*Drawer) error {
	last := map[string]*Drawer{} // session -> latest turn seen in this batch
	for _, d := range ds {
		if d.Kind != KindTurn || d.SessionID == "" {
			continue
		}
		prev, ok := last[d.SessionID]
		last[d.SessionID] = d
		if d.Keywords != "" {
			continue
		}
		var prevText string
		if ok {
			prevText = prev.Content
		} else {
			var err error
			if prevText, _, err = p.st.Drawers().PreviousTurn(ctx, d.SessionID, d.Timestamp); err != nil {
				return storeErr("read previous turn", err)
			}
		}
		d.Keywords = truncate(prevText, turnContextBytes)
	}
	return nil
}
