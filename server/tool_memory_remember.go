package server

import (
	"context"

	"github.com/loci-mem/loci/palace"
)

// memory_remember (seed 003) stores a note drawer in a room.
type memoryRememberParams struct {
	Palace     string      `json:"palace"`
	Text       string      `json:"text" required:"true" desc:"Memory content"`
	Room       roomName    `json:"room" desc:"Room type (optional): Frontend, Backend, Testing, Planning, Documentation, Research, Configuration, Meetings, General (default), or any custom name"`
	Tags       []tagName   `json:"tags"`
	Importance *importance `json:"importance" desc:"Importance weight in [0.01,1] (default 0.5); used only to break ties and order memory_list"`
	Session    sessionName `json:"session" desc:"The conversation the text belongs to (optional): texts of one session are read as one conversation, whatever connection or process stores them, and several conversations stored through one connection stay apart"`
	ReplyTo    string      `json:"reply_to" desc:"The drawer_id of the message this text answers, when it answers an earlier one than the last (optional): that drawer must be a text of a session, and this text joins its session"`
	Timestamp  *turnTime   `json:"timestamp" desc:"When the remembered event happened (optional): epoch milliseconds or RFC 3339; default the date the text's header names, else now"`
	Speaker    speakerName `json:"speaker" desc:"Who said the text (optional), for a message of a conversation: it is stored as a transcript line, 'speaker: text', and questions that name the speaker rank it higher; default the speaker the text's own label names ('Caroline: ...', 'user: ...')"`
}

type memoryRememberResult struct {
	DrawerID string `json:"drawer_id"`
	Palace   string `json:"palace"`
	Status   string `json:"status"`
	Room     string `json:"room"`
	// Session is the session the text joined (loci): the one the call
	// named, or the one of the message it answers.
	Session string `json:"session,omitempty"`
	// Speaker is who said the text (loci): the one the call named, or the
	// one its label names; absent when none.
	Speaker string `json:"speaker,omitempty"`
}

// defaultImportance is a note's importance when the call gives none.
const defaultImportance = 0.5

func memoryRememberTool() *tool {
	return newTool("memory_remember", "Store a memory (drawer) in a palace room.", rpcErrors, memoryRemember)
}

func memoryRemember(ctx context.Context, s *Server, p memoryRememberParams) (memoryRememberResult, error) {
	pal, err := s.openPalace(ctx, p.Palace)
	if err != nil {
		return memoryRememberResult{}, err
	}
	imp := defaultImportance
	if p.Importance != nil {
		imp = float64(*p.Importance)
	}
	o := palace.RememberOptions{Room: string(p.Room), Tags: tagStrings(p.Tags),
		Importance: imp, Connection: connectionOf(ctx), Session: string(p.Session), ReplyTo: p.ReplyTo, Speaker: string(p.Speaker)}
	if p.Timestamp != nil {
		o.When = p.Timestamp.Time
	}
	d, err := pal.Remember(ctx, p.Text, o)
	if err != nil {
		return memoryRememberResult{}, err
	}
	return memoryRememberResult{DrawerID: d.ID, Palace: pal.Name(), Status: "stored", Room: d.Room, Session: d.SessionID, Speaker: palace.SpeakerOf(d)}, nil
}
