package locomo

import (
	"context"
	"fmt"
	"strings"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/session"
)

// PathEpisodes records each conversation as the faces that take a
// conversation as it happens record it: the HTTP API's /add and the MCP
// tool mem_save_turn append messages to a session buffer, and each closed
// stretch of it becomes an episode (the stretch retold), atomic facts
// (its first-person sentences) and a profile (palace/session). Here each
// LoCoMo session is one buffer session, appended as /add appends it (each
// turn a message of its speaker, role "assistant" for a speaker recorded
// as the assistant and "user" for anyone else, no user id given) and then
// flushed, with the built-in heuristic extractor.
//
// What such a palace can find is a stretch, not a turn, so this path is
// measured by session: a question's evidence is the sessions its turns
// are in, and each hit stands for the session it was extracted from (an
// episode and its facts for the same one; a profile for none), so k
// counts memories read. Plain BM25 on this path ranks whole sessions (the
// baseline script's --granularity session), so there k counts sessions.
const PathEpisodes = "episodes"

// PathSaveTurn records each conversation as an agent does through the MCP
// tool mem_save_turn, and is measured as PathEpisodes is. The tool takes a
// role and a text for each message and no sender: a speaker recorded as
// the assistant speaks as "assistant" and anyone else as "user", and a
// text keeps its speaker's name unless the name is the role's own. Its
// memories belong to the tool's default owners (LOCI_USER_ID's default
// "user", LOCI_AGENT_ID's "agent"): a stretch has one episode, not one for
// each participant.
const PathSaveTurn = "mem-save-turn"

// saveTurnOwners are the owners mem_save_turn records with when its
// environment names none (server/tool_mem_save_turn.go).
var saveTurnOwners = session.Options{UserID: "user", AgentID: "agent"}

// BySession reports whether path is measured by session (PathEpisodes,
// PathSaveTurn).
func BySession(path string) bool { return path == PathEpisodes || path == PathSaveTurn }

// convSessionID is the id under which a path records a session of
// conversation n (a buffer session, an exchange's session, an agent's
// connection), so that sessions of two conversations never share one.
func convSessionID(n int, session string) string { return fmt.Sprintf("conv-%d-%s", n, session) }

// sessionLabel names a session as the baseline script does: "S3" for
// session_3.
func sessionLabel(sessionID string) string {
	if n, ok := strings.CutPrefix(sessionID, "session_"); ok {
		return "S" + n
	}
	return sessionID
}

// ingestEpisodes appends each session of ds (a conversation's turns, in
// order) to its own buffer session and flushes it. It returns, for every
// drawer extracted, the session it stands for (sessionLabel), and the
// messages or sessions the palace refused, which are reported and left
// out.
func ingestEpisodes(ctx context.Context, p *palace.Palace, ds []*palace.Drawer, n int, path string) (map[string][]string, []string, error) {
	rec := session.Of(p)
	var opt session.Options // /add without a user id
	if path == PathSaveTurn {
		opt = saveTurnOwners
	}
	stands := map[string][]string{}
	var skipped []string
	for _, turns := range sessionRuns(ds) {
		var msgs []extract.Message
		for _, t := range turns {
			who := ""
			if len(t.SenderIDs) > 0 {
				who = t.SenderIDs[0]
			}
			role := "user"
			if strings.EqualFold(who, "assistant") {
				role = "assistant"
			}
			m := extract.Message{Role: role, SenderID: who, SenderName: who,
				Text: strings.TrimPrefix(t.Content, who+": "), Timestamp: t.Timestamp}
			if path == PathSaveTurn { // a role and a text, no sender
				m.SenderID, m.SenderName = "", ""
				if !strings.EqualFold(who, role) {
					m.Text = t.Content
				}
			}
			msgs = append(msgs, m)
		}
		label := sessionLabel(turns[0].SessionID)
		key := convSessionID(n, turns[0].SessionID)
		res, err := rec.Append(ctx, key, msgs, opt)
		if palace.ErrorCode(err) == palace.CodeInvalid && len(msgs) > 1 {
			// Some message is refused (one too long, say): append them
			// one by one, as a client told which would, so that only it
			// is left out rather than its whole session.
			res, err = session.Result{}, nil
			for i, m := range msgs {
				r, err := rec.Append(ctx, key, []extract.Message{m}, opt)
				if err != nil {
					if palace.ErrorCode(err) != palace.CodeInvalid {
						return nil, nil, err
					}
					skipped = append(skipped, fmt.Sprintf("%s: %v", turns[i].Meta["dia_id"], err))
					continue
				}
				res.DrawerIDs = append(res.DrawerIDs, r.DrawerIDs...)
			}
		}
		if err == nil {
			var flushed session.Result
			flushed, err = rec.Flush(ctx, key, opt)
			res.DrawerIDs = append(res.DrawerIDs, flushed.DrawerIDs...)
		}
		if err != nil {
			if palace.ErrorCode(err) != palace.CodeInvalid {
				return nil, nil, err
			}
			skipped = append(skipped, fmt.Sprintf("%s: %v", label, err))
			continue
		}
		for _, id := range res.DrawerIDs {
			stands[id] = []string{label}
		}
	}
	return stands, skipped, nil
}

// sessionsOf are the sessions of turns (dia_ids), each once, in order;
// sessionOf maps a turn to its session's label.
func sessionsOf(turns []string, sessionOf map[string]string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range turns {
		if s, ok := sessionOf[t]; ok && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// sessionTexts joins each session's turns into one text, as the baseline
// script's --granularity session does, under the session's label.
func sessionTexts(ds []*palace.Drawer) (labels, texts []string) {
	for _, turns := range sessionRuns(ds) {
		parts := make([]string, len(turns))
		for i, t := range turns {
			parts[i] = t.Content
		}
		labels = append(labels, sessionLabel(turns[0].SessionID))
		texts = append(texts, strings.Join(parts, "\n"))
	}
	return labels, texts
}

// sessionRuns splits ds, a conversation's turns in order, into its
// sessions' runs of turns.
func sessionRuns(ds []*palace.Drawer) [][]*palace.Drawer {
	var out [][]*palace.Drawer
	for i := 0; i < len(ds); {
		j := i + 1
		for j < len(ds) && ds[j].SessionID == ds[i].SessionID {
			j++
		}
		out = append(out, ds[i:j])
		i = j
	}
	return out
}
