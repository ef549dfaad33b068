package palace

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"time"
)

// RememberOptions are what a face may say about a text it stores.
type RememberOptions struct {
	Kind       string // default KindNote
	Room       string
	Tags       []string
	Importance float64
	// Session is the conversation the text belongs to ("": none); it is
	// stored as the drawer's session, and the texts of one session are
	// neighbours (see addTurnContext).
	Session string
	// Connection names the client connection the text arrives through
	// (an MCP stdio stream, an MCP HTTP session; "": none). Texts an agent
	// stores one after another through one connection are neighbours too,
	// but a connection is not a conversation the user named, so it is not
	// stored as the drawer's session (only as its connection, which no
	// face shows): the palace remembers the last text of each live
	// connection in memory.
	Connection string
	// ReplyTo is the id of the drawer the text answers ("": the text
	// before it), where the face knows it (a chat's reply to an earlier
	// message than the last, in a chat that holds several conversations
	// at once). That drawer must be a text of a session (a note or a
	// turn) stored no later than this one's event time; the text joins its
	// session (Session, when given, must name the same one), borrows it
	// as context, and a hit on the text lifts that drawer (MetaReplyTo;
	// a hit on that drawer lifts the text when only replies to other
	// messages come between them: Palace.neighbours).
	ReplyTo string
	// When is when the remembered event happened, where the face was told
	// (zero: the date the text's header names, else now). It is the
	// drawer's timestamp, as a header's date is: a silence before it parts
	// it from the texts before it, and a question's days find it.
	When time.Time
	// Speaker is who said the text, where the face was told ("": the
	// speaker its label names, if any). The text is stored as a line of
	// a transcript, with the label after its header ("[D1:3] (8 May,
	// 2023) Caroline: …"; withLabel), so that it is indexed, borrowed and
	// shown as a labelled text is; a label the text opens with for someone
	// else stays after it. A name CheckSpeakerName refuses is refused.
	Speaker string
}

// Remember stores one text as a drawer, the way an agent's standalone
// memories arrive (memory_remember): the date in its header becomes the
// drawer's event time and its speaker the sender (see ReadTextMeta).
//
// A text borrows the one stored before it in its session as context, as a
// conversation turn borrows the turn before it. Through a connection only
// turns do: a text that names its speaker ("Caroline: …", "user: …")
// after another that does. Standalone notes an agent stores one after
// another ("The user is Ana", "We deploy on Fridays") are unrelated more
// often than not, and borrowing would make each match the other's words.
func (p *Palace) Remember(ctx context.Context, text string, o RememberOptions) (*Drawer, error) {
	kind := o.Kind
	if kind == "" {
		kind = KindNote
	}
	var err error
	if o.Speaker, err = CheckSpeakerName("speaker", o.Speaker); err != nil {
		return nil, err
	}
	if o.Speaker != "" {
		text = withLabel(text, o.Speaker)
	}
	m := ReadTextMeta(text)
	if o.Speaker != "" {
		// Read from the call, not the label: a label in lower case is
		// read back only after a header ("sam: " opens a note elsewhere).
		m.Speaker = SpeakerName(o.Speaker)
	}
	when := cmp.Or(o.When, m.When)
	if when.IsZero() {
		// Stored now, as Add would stamp it; stamped first, so that what
		// it borrows stops at a silence before it (untilSilence).
		when = p.now().UTC()
	}
	if o.ReplyTo != "" {
		session, err := p.replySession(ctx, o.ReplyTo, o.Session, when)
		if err != nil {
			return nil, err
		}
		o.Session = session
	}
	d := &Drawer{Kind: kind, Content: text, Room: o.Room, Tags: o.Tags, Importance: o.Importance, SessionID: o.Session, Timestamp: when}
	if o.Session == "" {
		d.Connection = o.Connection // its neighbours, for recall
	}
	if o.ReplyTo != "" {
		d.Meta = map[string]any{MetaReplyTo: o.ReplyTo}
	}
	if m.Speaker != "" {
		d.SenderIDs = []string{m.Speaker}
	}
	if o.Session == "" && o.Connection != "" && m.Speaker != "" {
		// Turns of a conversation borrow from the turns before them
		// (borrowedContext) and find what they restate of them
		// (restated.go); a speakerless note ends the run.
		kept := p.conns.recent(o.Connection)
		earlier := func() func() (*Drawer, error) {
			recent := kept
			return func() (*Drawer, error) {
				if len(recent) == 0 || len(recent[len(recent)-1].SenderIDs) == 0 {
					return nil, nil
				}
				x := recent[len(recent)-1]
				recent = recent[:len(recent)-1]
				return x, nil
			}
		}
		d.Keywords, _ = contextKeywords(d, earlier)
	}
	if err := p.Add(ctx, d); err != nil {
		return nil, err
	}
	if o.Session == "" && o.Connection != "" {
		p.conns.remember(o.Connection, d)
	}
	return d, nil
}

// replySession checks the drawer a text names as the one it answers
// (RememberOptions.ReplyTo) and returns the session the text joins: that
// drawer's. session is the one the caller named ("": none), when is the
// text's event time.
func (p *Palace) replySession(ctx context.Context, id, session string, when time.Time) (string, error) {
	if strings.TrimSpace(id) == "" {
		return "", Invalidf("reply_to is blank; leave it out for a text that answers the one before it")
	}
	x, err := p.Get(ctx, id)
	if ErrorCode(err) == CodeNotFound {
		return "", Invalidf("reply_to: no memory %q in palace %q", truncate(id, 80), p.name)
	}
	switch {
	case err != nil:
		return "", err
	case x.Status != StatusActive:
		return "", Invalidf("reply_to: memory %s is %s, not a message of a conversation", x.ID, x.Status)
	case !slices.Contains(contextKinds, x.Kind):
		return "", Invalidf("reply_to: memory %s is a %s, not a message of a conversation (a note or a turn)", x.ID, x.Kind)
	case x.SessionID == "":
		return "", Invalidf("reply_to: memory %s was stored outside a session; store the texts of a conversation with a session to name what they answer", x.ID)
	case session != "" && session != x.SessionID:
		return "", Invalidf("reply_to: memory %s belongs to session %q, not %q", x.ID, truncate(x.SessionID, 80), truncate(session, 80))
	case x.Timestamp.After(when):
		return "", Invalidf("reply_to: memory %s happened at %s, after this text (%s)", x.ID, x.Timestamp.UTC().Format(time.RFC3339), when.UTC().Format(time.RFC3339))
	}
	return x.SessionID, nil
}

// maxConnections bounds the connections whose last texts a palace keeps.
const maxConnections = 4096

// connections holds the last texts stored through each recent connection,
// oldest first: what the next text of that connection borrows as context
// (borrowedContext) and may restate (restatedWindow), at most
// restatedWindowBytes of text a connection. Past maxConnections, the
// connection first seen longest ago is forgotten.
type connections struct {
	mu    sync.Mutex
	byID  map[string][]*Drawer
	order []string // the ids of byID, first seen first
}

// recent returns a copy of the texts kept for connection id, oldest first.
func (c *connections) recent(id string) []*Drawer {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*Drawer(nil), c.byID[id]...)
}

// remember records d as the latest text of connection id, keeping only
// what borrowedContext and restatedWindow read: no more texts than they
// read, none older than the restatedWindowBytes of text after them, and
// of each at most its last restatedWindowBytes.
func (c *connections) remember(id string, d *Drawer) {
	keep := &Drawer{Content: lastSaid(saidText(d.Content), restatedWindowBytes), SenderIDs: d.SenderIDs, Timestamp: d.Timestamp}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byID == nil {
		c.byID = map[string][]*Drawer{}
	}
	h, ok := c.byID[id]
	if !ok {
		c.order = append(c.order, id)
	}
	h = append(h, keep)
	newer := 0
	for i := len(h) - 1; i > 0; i-- {
		if newer += len(h[i].Content); newer >= restatedWindowBytes || len(h)-i >= maxBorrowTurns {
			h = append([]*Drawer(nil), h[i:]...)
			break
		}
	}
	c.byID[id] = h
	for len(c.byID) > maxConnections {
		old := c.order[0]
		c.order = c.order[1:]
		delete(c.byID, old)
	}
}
