package locomo

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/loci-mem/loci/cmd/loci/chatexport"
	"github.com/loci-mem/loci/cmd/loci/claudecode"
	"github.com/loci-mem/loci/dreamer"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/facts"
	"github.com/loci-mem/loci/palace/session"
	"github.com/rs/zerolog"
)

// maxWarnings is how many items a conversation's warnings name one by
// one; the rest are counted.
const maxWarnings = 5

// warnItems reports what happened to items of conversation n, naming up
// to maxWarnings of them and counting the rest.
func (o Options) warnItems(n int, what string, items []string) {
	if o.Warn == nil {
		return
	}
	for i, it := range items {
		if i == maxWarnings {
			o.Warn("conversation %d: %s %d more items", n, what, len(items)-i)
			return
		}
		o.Warn("conversation %d: %s %s", n, what, it)
	}
}

// unreadDates counts the turns whose date string was not read as a time,
// and gives one of those strings.
func unreadDates(ds []*palace.Drawer) (int, string) {
	n, example := 0, ""
	for _, d := range ds {
		if date, _ := d.Meta["date"].(string); date != "" && d.Timestamp.IsZero() {
			if n++; example == "" {
				example = date
			}
		}
	}
	return n, example
}

// Ingestion paths of the evaluation.
const (
	// PathSession writes each conversation as a recorded session: turn
	// drawers with their session, speaker and the session's date.
	PathSession = "session"
	// PathAgent writes each turn on its own, as an agent does through
	// memory_remember: a standalone text "[D1:3] (8 May, 2023) Caroline:
	// …", one connection per LoCoMo session.
	PathAgent = "agent"
	// PathAgentSession writes each turn as PathAgent does, each text naming
	// its conversation through memory_remember's session: the LoCoMo
	// session its dia_id names, so that the two --interleave holds at once
	// through one connection are two sessions, as an agent that records
	// several conversations through one connection names each.
	PathAgentSession = "agent-session"
	// PathAgentReply writes each turn as PathAgent does, naming the
	// recorded session (one group chat, where --interleave holds two
	// conversations at once) as memory_remember's session and, where a turn
	// answers an earlier message than the one just before it (the last
	// turn of its own conversation, by the other speaker), that message as
	// its reply_to: as an agent relays a group chat whose replies it knows.
	PathAgentReply = "agent-reply"
	// PathHook writes each conversation as the Claude Code Stop hook saves
	// a session: one drawer for each prompt and the reply to it (a run of
	// the first speaker's turns and the run of the other's after it), its
	// text "User: …\n\nAssistant: …" (claudecode.TurnText), with no
	// speakers, stored one at a time; and, as the hook does, each exchange
	// appended to the session buffer (a user message and an assistant
	// one), flushed at the end of its session, so that the palace holds
	// the episodes, atomic facts and profile extracted from them too. A hit
	// on an exchange ranks all of its turns, in order, so k counts turns
	// read; an episode or a fact stands for the turns it shows (shownTurns).
	PathHook = "hook"
	// PathFacts stores the file's observations (LoCoMo's facts about each
	// session, each resting on the turns it cites) as facts through the
	// remember tool's path (seed 004: staged, then approved as a reviewer
	// would), and asks through the recall tool's (promoted facts, weak
	// matches dropped). A fact found counts for every turn it cites; the
	// turns no fact cites cannot be found this way.
	PathFacts = "facts"
	// PathWhatsApp writes each conversation as WhatsApp exports a chat
	// (one line a turn, "8/5/2023, 13:56 - Caroline: …", a session's turns
	// a minute apart from its date) and imports it as `loci import` does
	// (chatexport): one session a conversation, each message with its
	// sender and its own time.
	PathWhatsApp = "whatsapp"
	// PathChatGPT writes each session as a conversation of ChatGPT's data
	// export (conversations.json: a chain of messages, each with its own
	// time) and imports it as `loci import` does: one session a
	// conversation. Its speakers must be the user and the assistant
	// (--chat-roles).
	PathChatGPT = "chatgpt"
	// PathSlack writes each conversation as a Slack workspace's export of
	// one channel, each of its sessions a thread (the session number of a
	// turn's dia_id, so that the sessions --interleave holds at once are
	// two threads), a session's turns a minute apart from its date, and
	// imports it as `loci import` does: each thread a session of its own.
	PathSlack = "slack"
	// PathTelegram writes each conversation as Telegram Desktop's export of
	// one chat, a session's turns a minute apart from its date, and a turn
	// that answers an earlier message than the one just before it (the
	// last turn of its own session, by the other speaker, where
	// --interleave holds two sessions at once) as a reply naming that
	// message, as a group chat's members reply; and imports it as `loci
	// import` does.
	PathTelegram = "telegram"
	// PathEpisodes and PathSaveTurn: see episodes.go.
)

// Ways of asking the questions.
const (
	// AskRecall asks through memory_recall's path (Palace.Recall): the
	// first k drawers.
	AskRecall = "recall"
	// AskHook asks as the Claude Code prompt hook does: its search and
	// its choice of at most five memories above its relevance threshold
	// (claudecode.PromptSearch and Choose, with the hook's defaults).
	AskHook = "hook"
	// askFacts asks as the recall tool does (facts.Recall), the only way
	// the facts path can be asked.
	askFacts = "facts"
)

// Variant is one way of asking the questions: a ranking method and,
// for hybrid, a fusion (nil: the default).
type Variant struct {
	Path   string         `json:"path,omitempty"`
	Method palace.Mode    `json:"method"`
	Fusion *palace.Fusion `json:"fusion,omitempty"`
}

// Options configures a run.
type Options struct {
	Data     []string // files in LoCoMo's schema (Load)
	Path     string   // PathSession (default), PathAgent, PathAgentSession, PathAgentReply, PathHook, PathFacts, PathWhatsApp, PathChatGPT, PathEpisodes or PathSaveTurn
	Ask      string   // AskRecall (default) or AskHook
	Method   palace.Mode
	Embedder embed.Embedder
	Ks       []int
	Samples  []int // 1-based conversation numbers; empty means all
	// Variants, when set, asks every question once per variant over the
	// same ingested palaces (Method is then ignored); rows carry the
	// variant's index.
	Variants []Variant
	Progress func(format string, a ...any)
	// Warn reports an item the run skipped or a date it could not read
	// (always shown, unlike progress).
	Warn func(format string, a ...any)
	// LongReplies, above 1, rewrites every conversation first
	// (LongReplies): a user–assistant-like variant of the data.
	LongReplies int
	// NoIDs stores the agent path's texts without their turn ids
	// (agentText): an agent's own notes carry none, and an id's session
	// number ("D1") is a word every text of its session shares.
	NoIDs bool
	// Dream runs every pass of the dreamer over each palace once it is
	// recorded, at the time of its last turn, before any question is
	// asked: a palace in use is consolidated in the background, and
	// recall is measured on what it leaves.
	Dream bool
	// OneThread makes each conversation one thread of dated turns
	// (OneThread), before any other rewrite.
	OneThread bool
	// Interleave holds every two consecutive sessions at once, their
	// turns alternating (Interleave), after the rewrites of the turns'
	// text and before those of their order.
	Interleave bool
	// NoDates drops every date and time of the conversations (NoDates),
	// after OneThread and before the other rewrites.
	NoDates bool
	// DateForm, when set, writes every date in this Go time layout
	// (DateForm), after OneThread and NoDates.
	DateForm string
	// MediaOmitted writes every shared image as a chat export does, a
	// message of its own without its caption (MediaOmitted), before
	// ShortMessages.
	MediaOmitted bool
	// MediaLinks writes every shared image as its links, each a message of
	// its own (MediaLinks), before ShortMessages.
	MediaLinks bool
	// ShortMessages rewrites every conversation first (ShortMessages): a
	// messaging-app-like variant of the data. It applies before LongReplies.
	ShortMessages bool
	// Pastes, when it holds files (PasteFiles), adds a pasted piece of one
	// to every other session (Pastes), after EchoReplies; PastesInTurn
	// appends it to a turn of the first speaker instead.
	Pastes       [][]byte
	PastesInTurn bool
	// ChatRoles rewrites every conversation (ChatRoles), after the other
	// rewrites: a person and an assistant, questions in their voice.
	ChatRoles bool
	// EchoReplies, above 0, rewrites every conversation (EchoReplies)
	// after ShortMessages and LongReplies, before ChatRoles.
	EchoReplies int
	// EchoReworded restates each repeated turn in other words (Reworded).
	EchoReworded bool
	// TopicReplies, above 0, rewrites every conversation (TopicReplies)
	// with that many texts on the topic in each reply.
	TopicReplies int
	// Typos, above 0, misspells that share of the turns' words (Typos),
	// after every other rewrite.
	Typos float64
	// CrossedReplies, above 0, makes that share of the replies cross the
	// message before them (CrossedReplies), after the rewrites of the
	// text and before QuotedReplies.
	CrossedReplies float64
	// QuotedReplies, above 0, makes that share of the replies quote the
	// message they answer (QuotedReplies), after the rewrites of the text
	// and before Tapbacks.
	QuotedReplies float64
	// Tapbacks, above 0, follows that share of the turns with the other
	// speaker's reaction to it as a text of its own (Tapbacks), after the
	// rewrites of the text and before SlowReplies.
	Tapbacks float64
	// EmojiWords, above 0, writes that share of the words an emoji names
	// as the emoji (EmojiWords), after the rewrites of the text and before
	// CasualTyping.
	EmojiWords float64
	// CasualTyping types every turn in lower case, without apostrophes
	// or closing marks (CasualTyping), after the rewrites of the text and
	// before Typos.
	CasualTyping bool
	// CasualQuestions types the questions as CasualTyping types the
	// turns (CasualQuestions), before QuestionTypos.
	CasualQuestions bool
	// QuestionTypos, above 0, misspells that share of the questions'
	// words (QuestionTypos), after the other rewrites of the text.
	QuestionTypos float64
	// RequestFrames opens every question with a request to the memory
	// (RequestFrames), after the other rewrites of the questions.
	RequestFrames bool
	// SlowReplies, above 0, gives every turn its own time and delays that
	// share of the replies by hours (SlowReplies), last: the rewrites
	// before it write turns without their own times.
	SlowReplies float64
	// UnseenNames gives the speakers names the encoder's word vectors do
	// not hold (UnseenNames), first.
	UnseenNames bool
	// UserNames records every speaker by a user name (UserNames), after
	// UnseenNames.
	UserNames bool
	// Anonymised records the speakers as A and B (Anonymised), first.
	Anonymised bool
	// Haystack, above 0, gives every conversation the sessions of that
	// many others (Haystack), before every other rewrite.
	Haystack int
	// ForeignQuestions asks each conversation the questions of the next
	// (ForeignQuestions), after every rewrite.
	ForeignQuestions bool
	// WriteData, when set, names a file that receives the selected
	// conversations as rewritten, in LoCoMo's schema (for another tool,
	// such as the plain BM25 script, to read the same data).
	WriteData string
	// Store is where the run keeps its palaces (palace.Config.Store):
	// empty for SQLite files in a temporary directory removed afterwards,
	// or the postgres:// URL of a database the run may fill, where its
	// palaces (locomo-1, …) stay: a team palace measured as a local one.
	Store string
}

// writeSamples writes the conversations want selects (all when it is
// empty) to path as a JSON list.
func writeSamples(path string, samples []Sample, want map[int]bool) error {
	var out []Sample
	for i, s := range samples {
		if len(want) == 0 || want[i+1] {
			out = append(out, s)
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// Run ingests and queries every selected conversation.
func Run(ctx context.Context, o Options) ([]Row, time.Duration, int, error) {
	samples, err := Load(o.Data...)
	if err != nil {
		return nil, 0, 0, err
	}
	if err := Haystack(samples, o.Haystack); err != nil {
		return nil, 0, 0, &DataError{err, "Give --haystack fewer conversations than the files hold, or more files (--data)"}
	}
	// The rewrites, in the order they apply.
	rewrites := []struct {
		on      bool
		rewrite func(*Sample) error
	}{
		{o.UnseenNames, UnseenNames},
		{o.UserNames, UserNames},
		{o.Anonymised, Anonymised},
		{o.OneThread, OneThread},
		{o.NoDates, NoDates},
		{o.DateForm != "", func(s *Sample) error { return DateForm(s, o.DateForm) }},
		{o.MediaOmitted, MediaOmitted},
		{o.MediaLinks, MediaLinks},
		{o.ShortMessages, ShortMessages},
		{o.LongReplies > 1, func(s *Sample) error { return LongReplies(s, o.LongReplies) }},
		{o.EchoReplies > 0, func(s *Sample) error { return EchoReplies(s, o.EchoReplies, o.EchoReworded) }},
		{o.TopicReplies > 0, func(s *Sample) error { return TopicReplies(s, o.TopicReplies) }},
		{len(o.Pastes) > 0, func(s *Sample) error { return Pastes(s, o.Pastes, o.PastesInTurn) }},
		{o.ChatRoles, ChatRoles},
		{o.EmojiWords > 0, func(s *Sample) error { return EmojiWords(s, o.EmojiWords) }},
		{o.CasualTyping, CasualTyping},
		{o.Typos > 0, func(s *Sample) error { return Typos(s, o.Typos) }},
		{o.Interleave, Interleave},
		{o.CasualQuestions, CasualQuestions},
		{o.QuestionTypos > 0, func(s *Sample) error { return QuestionTypos(s, o.QuestionTypos) }},
		{o.RequestFrames, RequestFrames},
		{o.CrossedReplies > 0, func(s *Sample) error { return CrossedReplies(s, o.CrossedReplies) }},
		{o.QuotedReplies > 0, func(s *Sample) error { return QuotedReplies(s, o.QuotedReplies) }},
		{o.Tapbacks > 0, func(s *Sample) error { return Tapbacks(s, o.Tapbacks) }},
		{o.SlowReplies > 0, func(s *Sample) error { return SlowReplies(s, o.SlowReplies) }},
	}
	for _, r := range rewrites {
		if !r.on {
			continue
		}
		for i := range samples {
			if err := r.rewrite(&samples[i]); err != nil {
				return nil, 0, 0, &DataError{Err: fmt.Errorf("%s: %w", samples[i].SampleID, err)}
			}
		}
	}
	if o.ForeignQuestions {
		if err := ForeignQuestions(samples); err != nil {
			return nil, 0, 0, &DataError{err, "Give --foreign-questions a file of two conversations or more, whose turns carry a dia_id"}
		}
	}
	want := map[int]bool{}
	for _, s := range o.Samples {
		want[s] = true
	}
	if o.WriteData != "" {
		if err := writeSamples(o.WriteData, samples, want); err != nil {
			return nil, 0, 0, err
		}
	}
	maxK := 0
	for _, k := range o.Ks {
		maxK = max(maxK, k)
	}
	home, err := os.MkdirTemp("", "loci-eval-*")
	if err != nil {
		return nil, 0, 0, err
	}
	defer os.RemoveAll(home)
	// Each conversation's questions are asked as of its last turn, as a
	// user asks right after a conversation: "in June", "last year" and
	// "4 years ago" then name the times the asker meant, not times
	// relative to the day the evaluation runs. Storing uses the wall clock.
	var asOf atomic.Int64 // Unix ns; 0 for the wall clock
	clock := func() time.Time {
		if ns := asOf.Load(); ns != 0 {
			return time.Unix(0, ns).UTC()
		}
		return time.Now()
	}
	// One registry a conversation, closed before the next is stored: a
	// closed palace's indexes are freed, so a file of many conversations
	// runs in the memory of one.
	var reg *palace.Registry
	defer func() {
		if reg != nil {
			reg.Close()
		}
	}()

	how := o.Ask // how each question is asked
	if o.Path == PathFacts {
		how = askFacts
	}
	variants := o.Variants
	if len(variants) == 0 {
		variants = []Variant{{Method: o.Method}}
	}
	// The baseline alone stores nothing: no palace is made.
	plainOnly := !slices.ContainsFunc(variants, func(v Variant) bool { return v.Method != MethodPlainBM25 })
	var rows []Row
	var ingest time.Duration
	turns := 0
	for i, s := range samples {
		n := i + 1
		if len(want) > 0 && !want[n] {
			continue
		}
		ds, err := Drawers(s.Conversation)
		if err != nil {
			return nil, 0, 0, &DataError{Err: fmt.Errorf("%s: %w", s.SampleID, err)}
		}
		if o.Warn != nil {
			o.warnItems(n, "left out", s.Dropped)
			if o.Path == PathFacts && len(s.Observations) == 0 {
				o.Warn("conversation %d (%s) has no observations: the facts path stores LoCoMo's \"observation\" field, {\"session_1_observation\": {speaker: [[fact, \"D1:3\"], …]}}", n, s.SampleID)
			}
			if len(ds) == 0 {
				o.Warn("conversation %d (%s) has no turns: LoCoMo's schema keeps them in lists session_1, session_2, …", n, s.SampleID)
			}
		}
		if unread, example := unreadDates(ds); unread > 0 && o.Warn != nil {
			o.Warn("conversation %d: the dates of %d turns were not read (such as %q); they carry the time they are stored", n, unread, example)
		}
		// The turns' own words and the speakers' names, before ingestion
		// rewrites them (the agent path's header), for sharesWord.
		said, spoke, names := map[string]string{}, map[string]string{}, map[string]bool{}
		first := s.speaker("speaker_a")
		for _, d := range ds {
			said[d.Meta["dia_id"].(string)] = strings.ReplaceAll(d.Content, imageLead, " ")
			if len(d.SenderIDs) > 0 {
				spoke[d.Meta["dia_id"].(string)] = d.SenderIDs[0]
				if first == "" {
					first = d.SenderIDs[0] // the file names no speaker_a: who spoke first
				}
			}
			for _, who := range d.SenderIDs {
				for t := range contentTokens(who, nil) {
					names[t] = true
				}
			}
		}
		// The plain BM25 baseline reads the turns as the file has them,
		// before anything is stored.
		var plain *plainIndex
		if slices.ContainsFunc(variants, func(v Variant) bool { return v.Method == MethodPlainBM25 }) {
			ids, texts := make([]string, len(ds)), make([]string, len(ds))
			for i, d := range ds {
				ids[i], texts[i] = d.Meta["dia_id"].(string), d.Content
			}
			if BySession(o.Path) {
				ids, texts = sessionTexts(ds)
			}
			plain = newPlainIndex(ids, texts)
		}
		// PathEpisodes measures by session: each turn's session.
		var sessionOf map[string]string
		if BySession(o.Path) {
			sessionOf = map[string]string{}
			for _, d := range ds {
				sessionOf[d.Meta["dia_id"].(string)] = sessionLabel(d.SessionID)
			}
		}
		var hookTurns shownTurns
		var p *palace.Palace
		var cites map[string][]string // PathFacts: fact drawer id -> the turns it cites
		if !plainOnly {
			if reg != nil {
				reg.Close()
			}
			reg, err = palace.OpenRegistry(palace.Config{DataDir: home, Store: o.Store, Embedder: o.Embedder, Logger: zerolog.Nop(), Now: clock})
			if err != nil {
				return nil, 0, 0, err
			}
			if p, err = reg.Create(ctx, fmt.Sprintf("locomo-%d", n), "LoCoMo "+s.SampleID); err != nil {
				return nil, 0, 0, err
			}
			start := time.Now()
			asOf.Store(0)
			var skipped []string
			if o.Path == PathFacts {
				var tally factTally
				cites, tally, skipped, err = ingestFacts(ctx, p, s.Observations)
				if o.Progress != nil {
					o.Progress("conversation %d: %d observations: %d facts promoted, %d duplicates of another, %d superseded by a later one", n, len(s.Observations), tally.promoted, tally.duplicates, tally.superseded)
				}
			} else if BySession(o.Path) {
				cites, skipped, err = ingestEpisodes(ctx, p, ds, n, o.Path)
			} else {
				ds, skipped, err = ingestLocomo(ctx, p, ds, o.Path, !o.NoIDs, n, s.speaker("speaker_a"))
			}
			if err != nil {
				return nil, 0, 0, err
			}
			o.warnItems(n, "skipped", skipped)
			if o.Dream {
				if err := dream(ctx, p, lastTime(ds), n, o.Progress); err != nil {
					return nil, 0, 0, err
				}
			}
			// As `loci serve` does for every palace it opens: queries then use
			// the in-memory keyword index, as the server's do.
			if err := p.WarmIndex(ctx); err != nil {
				return nil, 0, 0, err
			}
			ingest += time.Since(start)
		}
		if o.Path == PathHook {
			hookTurns = newShownTurns(ds, n)
		}
		turns += len(ds)
		if last := lastTime(ds); !last.IsZero() {
			asOf.Store(last.UnixNano())
		}
		ids := map[string]bool{}
		diaOf := map[string][]string{} // drawer id -> its LoCoMo turn ids
		for _, d := range ds {
			ids[d.Meta["dia_id"].(string)] = true
			diaOf[d.ID] = append(diaOf[d.ID], d.Meta["dia_id"].(string))
		}
		if cites != nil {
			diaOf = cites
		}
		asked, unmatched, noEvidence, example := 0, 0, 0, ""
		var refused []string
		order, end := dateOrder(s.Conversation), asOf.Load()
		for _, qa := range s.QA {
			asOf.Store(end)
			if when := readDate(qa.QuestionDate, order); !when.IsZero() {
				asOf.Store(when.UnixNano())
			}
			var gold []string
			for _, e := range normEvidence(qa.Evidence) {
				if ids[e] {
					gold = append(gold, e)
				}
			}
			if len(gold) == 0 {
				// Evidence that names no turn of the conversation (ids
				// written another way than the turns' dia_id) is counted;
				// a question without evidence is not scored (the metric's
				// definition), and a warning says how many.
				if len(qa.Evidence) > 0 {
					if unmatched++; example == "" {
						example = fmt.Sprint(qa.Evidence...)
					}
				} else {
					noEvidence++
				}
				continue
			}
			evidence := make([]string, len(gold))
			for i, g := range gold {
				evidence[i] = said[g]
			}
			shares := sharesWord(qa.Question, evidence, names)
			by := evidenceBy(gold, spoke, first)
			if sessionOf != nil {
				gold = sessionsOf(gold, sessionOf)
			}
			var got []Row
			for vi, v := range variants {
				if v.Method == MethodPlainBM25 {
					got = append(got, Row{Sample: n, Variant: vi, Category: int(qa.Category), Question: qa.Question, Gold: gold, Top: plain.rank(qa.Question, maxK), SharesWord: &shares, EvidenceBy: by})
					continue
				}
				hits, shown, err := ask(ctx, p, how, qa.Question, maxK, v)
				if palace.ErrorCode(err) == palace.CodeInvalid {
					// A question the palace refuses (empty, too long) is
					// reported and left out, as a refused turn is.
					got = nil
					refused = append(refused, fmt.Sprintf("%q (%v)", qa.Question, err))
					break
				}
				if err != nil {
					return nil, 0, 0, fmt.Errorf("%s: %q: %w", s.SampleID, qa.Question, err)
				}
				top := make([]string, 0, len(hits))
				for i, d := range hits {
					stands := diaOf[d.ID]
					if sessionOf != nil && len(stands) == 0 {
						stands = []string{"-"} // a profile: it was read, and stands for no session
					}
					if o.Path == PathHook && len(stands) == 0 {
						stands = hookTurns.shows(d, shown[i])
					}
					top = append(top, stands...)
				}
				got = append(got, Row{Sample: n, Variant: vi, Category: int(qa.Category), Question: qa.Question, Gold: gold, Top: top, SharesWord: &shares, EvidenceBy: by})
			}
			if len(got) > 0 {
				rows = append(rows, got...)
				asked++
			}
		}
		o.warnItems(n, "did not ask", refused)
		if unmatched > 0 && o.Warn != nil {
			o.Warn("conversation %d: %d questions not asked: their evidence names no turn of the conversation (such as %q; turns are matched by dia_id, D1:3)", n, unmatched, example)
		}
		if noEvidence > 0 && o.Warn != nil {
			o.Warn("conversation %d: %d questions not scored: they name no evidence (recall is measured on questions with evidence)", n, noEvidence)
		}
		if o.Progress != nil {
			o.Progress("conversation %d (%s): %d turns, %d questions", n, s.SampleID, len(ds), asked)
		}
		if err := ctx.Err(); err != nil {
			return nil, 0, 0, err
		}
	}
	return rows, ingest, turns, nil
}

// ask asks a question of p the way o.Ask names, with the variant's
// method and fusion, and returns the drawers answered, best first.
func ask(ctx context.Context, p *palace.Palace, how, question string, k int, v Variant) ([]*palace.Drawer, []string, error) {
	var out []*palace.Drawer
	var shown []string // what the face shows of each
	if how == askFacts {
		found, err := facts.Of(p).Recall(ctx, question, k)
		for _, f := range found {
			out = append(out, &palace.Drawer{ID: f.DrawerID})
			shown = append(shown, f.Fact)
		}
		return out, shown, err
	}
	if how == AskHook {
		req := claudecode.PromptSearch(question)
		req.Mode, req.Fusion = v.Method, v.Fusion
		found, err := p.Search(ctx, req)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range claudecode.Choose(ctx, p, question, "", found, claudecode.DefaultMinRelevance, claudecode.DefaultMaxRecall) {
			out = append(out, r.Drawer)
			shown = append(shown, r.Shown())
		}
		return out, shown, nil
	}
	hits, err := p.Recall(ctx, palace.RecallRequest{Query: question, K: k, Mode: v.Method, Fusion: v.Fusion})
	for _, h := range hits {
		out = append(out, h.Drawer)
		shown = append(shown, h.Drawer.Content)
	}
	return out, shown, err
}

// lastTime is the latest event time of ds (zero when none has one).
func lastTime(ds []*palace.Drawer) time.Time {
	var t time.Time
	for _, d := range ds {
		if d.Timestamp.After(t) {
			t = d.Timestamp
		}
	}
	return t
}

// ingestLocomo stores a conversation's turns along path (the agent path's
// texts with their ids when withIDs) and returns the drawers stored. A
// turn the palace refuses (too long, say) is reported and left out; the
// run goes on.
func ingestLocomo(ctx context.Context, p *palace.Palace, ds []*palace.Drawer, path string, withIDs bool, n int, user string) ([]*palace.Drawer, []string, error) {
	if path == PathHook {
		return ingestExchanges(ctx, p, ds, n, user)
	}
	if path == PathWhatsApp {
		return ingestWhatsApp(ctx, p, ds, n)
	}
	if path == PathChatGPT {
		return ingestChatGPT(ctx, p, ds, n)
	}
	if path == PathSlack {
		return ingestSlack(ctx, p, ds, n)
	}
	if path == PathTelegram {
		return ingestTelegram(ctx, p, ds, n)
	}
	if path != PathAgent && path != PathAgentSession && path != PathAgentReply {
		if err := p.AddMany(ctx, ds); err == nil {
			return ds, nil, nil
		} else if palace.ErrorCode(err) != palace.CodeInvalid {
			return nil, nil, err
		}
		// Some turn is refused: store them one by one to find it.
		var kept []*palace.Drawer
		var skipped []string
		for _, d := range ds {
			if err := p.Add(ctx, d); err != nil {
				if palace.ErrorCode(err) != palace.CodeInvalid {
					return nil, nil, err
				}
				skipped = append(skipped, fmt.Sprintf("%s: %v", d.Meta["dia_id"], err))
				continue
			}
			kept = append(kept, d)
		}
		return kept, skipped, nil
	}
	var kept []*palace.Drawer
	var skipped []string
	last := map[string]int{} // PathAgentReply: thread -> the index in ds of its last turn so far
	ids := make([]string, len(ds))
	for i, d := range ds {
		date, _ := d.Meta["date"].(string)
		o := palace.RememberOptions{Connection: convSessionID(n, d.SessionID)}
		switch path {
		case PathAgentSession:
			o.Session = convSessionID(n, turnThread(d))
		case PathAgentReply:
			o.Session = o.Connection
			thread := turnThread(d)
			if j, ok := last[thread]; ok && j != i-1 && ids[j] != "" && !slices.Equal(ds[j].SenderIDs, d.SenderIDs) {
				o.ReplyTo = ids[j]
			}
			last[thread] = i
		}
		stored, err := p.Remember(ctx, agentText(d, date, withIDs), o)
		if err != nil {
			if palace.ErrorCode(err) != palace.CodeInvalid {
				return nil, nil, err
			}
			skipped = append(skipped, fmt.Sprintf("%s: %v", d.Meta["dia_id"], err))
			continue
		}
		ids[i] = stored.ID
		stored.Meta = d.Meta // the evaluation's own bookkeeping, kept in memory only
		kept = append(kept, stored)
	}
	return kept, skipped, nil
}

// ingestWhatsApp writes a conversation's turns as WhatsApp's export of a
// chat and stores it through the chat importer (PathWhatsApp). A
// session's turns are a minute apart from its date; a conversation
// without dates cannot be written so.
func ingestWhatsApp(ctx context.Context, p *palace.Palace, ds []*palace.Drawer, n int) ([]*palace.Drawer, []string, error) {
	times, err := exportTimes(ds, "WhatsApp", PathWhatsApp)
	if err != nil {
		return nil, nil, err
	}
	var export strings.Builder
	for i, d := range ds {
		t := times[i]
		fmt.Fprintf(&export, "%d/%d/%d, %02d:%02d - %s\n", t.Day(), int(t.Month()), t.Year(), t.Hour(), t.Minute(), d.Content)
	}
	chat, err := chatexport.ReadWhatsApp(strings.NewReader(export.String()), fmt.Sprintf("conversation %d", n), chatexport.OrderDMY)
	if err != nil {
		return nil, nil, err
	}
	if len(chat.Messages) != len(ds) {
		return nil, nil, fmt.Errorf("conversation %d: %d turns read back as %d messages", n, len(ds), len(chat.Messages))
	}
	return storeChat(ctx, p, chat, ds)
}

// ingestSlack writes a conversation's turns as a Slack workspace's export
// of one channel, each session of a turn's dia_id a thread, and stores it
// through the chat importer (PathSlack): each thread a session of its own.
// A session's turns are a minute apart from its date (a microsecond a
// turn more, so that no two share a ts); a conversation without dates
// cannot be written so.
func ingestSlack(ctx context.Context, p *palace.Palace, ds []*palace.Drawer, n int) ([]*palace.Drawer, []string, error) {
	type message struct {
		Type     string `json:"type"`
		User     string `json:"user"`
		Text     string `json:"text"`
		TS       string `json:"ts"`
		ThreadTS string `json:"thread_ts"`
	}
	users := map[string]string{} // speaker -> user id
	var userList []map[string]any
	days := map[string][]message{} // day file -> its messages
	threads := map[string]string{} // thread -> its first message's ts
	byTime := map[time.Time]*palace.Drawer{}
	times, err := exportTimes(ds, "Slack", PathSlack)
	if err != nil {
		return nil, nil, err
	}
	escape := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	for i, d := range ds {
		t := times[i].Add(time.Duration(i) * time.Microsecond).UTC() // no two share a ts
		byTime[t] = d
		speaker := d.SenderIDs[0]
		if users[speaker] == "" {
			users[speaker] = fmt.Sprintf("U%d", len(users)+1)
			userList = append(userList, map[string]any{"id": users[speaker], "profile": map[string]string{"display_name": speaker}})
		}
		thread := turnThread(d)
		ts := fmt.Sprintf("%d.%06d", t.Unix(), t.Nanosecond()/1000)
		if threads[thread] == "" {
			threads[thread] = ts
		}
		day := "c/" + t.Format("2006-01-02") + ".json"
		days[day] = append(days[day], message{Type: "message", User: users[speaker], Text: escape.Replace(strings.TrimPrefix(d.Content, speaker+": ")), TS: ts, ThreadTS: threads[thread]})
	}
	files := map[string]any{"users.json": userList, "channels.json": []map[string]string{{"id": "C1", "name": "c"}}}
	for day, ms := range days {
		files[day] = ms
	}
	dir, err := exportDir(files)
	defer os.RemoveAll(dir)
	if err != nil {
		return nil, nil, err
	}
	chats, err := chatexport.Open(dir, chatexport.OpenOptions{Format: chatexport.FormatSlack})
	if err != nil {
		return nil, nil, err
	}
	var kept []*palace.Drawer
	var skipped []string
	read := 0
	for _, chat := range chats {
		chat.ID = fmt.Sprintf("conversation-%d/%s", n, chat.ID)
		src := make([]*palace.Drawer, len(chat.Messages))
		for i, m := range chat.Messages {
			if src[i] = byTime[m.Time]; src[i] == nil {
				return nil, nil, fmt.Errorf("conversation %d: a message of %s read back from the Slack export is no turn", n, m.Time)
			}
		}
		read += len(chat.Messages)
		k, s, err := storeChat(ctx, p, chat, src)
		if err != nil {
			return nil, nil, err
		}
		kept, skipped = append(kept, k...), append(skipped, s...)
	}
	if read != len(ds) {
		return nil, nil, fmt.Errorf("conversation %d: %d turns read back as %d messages", n, len(ds), read)
	}
	return kept, skipped, nil
}

// ingestTelegram writes a conversation's turns as Telegram Desktop's
// export of one chat and stores it through the chat importer
// (PathTelegram). A turn names the message it answers where that is not
// the message just before it: the last turn of its own session (turnThread)
// when another speaker sent it.
func ingestTelegram(ctx context.Context, p *palace.Palace, ds []*palace.Drawer, n int) ([]*palace.Drawer, []string, error) {
	type message struct {
		ID      int    `json:"id"`
		Type    string `json:"type"`
		Date    string `json:"date"`
		From    string `json:"from"`
		Text    string `json:"text"`
		ReplyTo int    `json:"reply_to_message_id,omitempty"`
	}
	times, err := exportTimes(ds, "Telegram", PathTelegram)
	if err != nil {
		return nil, nil, err
	}
	var ms []message
	last := map[string]int{} // thread -> the index of its last turn so far
	for i, d := range ds {
		t := times[i]
		speaker := d.SenderIDs[0]
		m := message{ID: i + 1, Type: "message", Date: t.Format("2006-01-02T15:04:05"), From: speaker, Text: strings.TrimPrefix(d.Content, speaker+": ")}
		thread := turnThread(d)
		if j, ok := last[thread]; ok && j != i-1 && ds[j].SenderIDs[0] != speaker {
			m.ReplyTo = j + 1
		}
		last[thread] = i
		ms = append(ms, m)
	}
	dir, err := exportDir(map[string]any{"result.json": map[string]any{"name": fmt.Sprintf("conversation %d", n), "type": "private_group", "id": n, "messages": ms}})
	defer os.RemoveAll(dir)
	if err != nil {
		return nil, nil, err
	}
	chats, err := chatexport.Open(filepath.Join(dir, "result.json"), chatexport.OpenOptions{Format: chatexport.FormatTelegram})
	if err != nil {
		return nil, nil, err
	}
	if len(chats) != 1 || len(chats[0].Messages) != len(ds) {
		return nil, nil, fmt.Errorf("conversation %d: %d turns read back otherwise", n, len(ds))
	}
	return storeChat(ctx, p, chats[0], ds)
}

// exportDir writes an export's files (a name, slash-separated, to the
// value its JSON is) into a new temporary folder, for the export paths to
// read back as `loci import` does; the caller removes the folder ("" when
// none was made).
func exportDir(files map[string]any) (string, error) {
	dir, err := os.MkdirTemp("", "loci-eval-export-")
	if err != nil {
		return "", err
	}
	for name, v := range files {
		b, err := json.Marshal(v)
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err == nil {
			err = os.MkdirAll(filepath.Dir(p), 0o700)
		}
		if err == nil {
			err = os.WriteFile(p, b, 0o600)
		}
		if err != nil {
			return dir, err
		}
	}
	return dir, nil
}

// turnThread is the conversation a turn belongs to: the session its
// dia_id names ("D3" of "D3:5"), which --interleave keeps, else its
// drawer's session.
func turnThread(d *palace.Drawer) string {
	if id, _ := d.Meta["dia_id"].(string); diaSessionR.MatchString(id) {
		return diaSessionR.FindStringSubmatch(id)[1]
	}
	return d.SessionID
}

// diaSessionR is the session a LoCoMo turn's dia_id names ("D3" of "D3:5").
var diaSessionR = regexp.MustCompile(`^(D\d+):\d+$`)

// exportTimes are the times an export of app writes for the turns ds
// (path's): a session's turns a minute apart from its date. A turn
// without a date cannot be written so.
func exportTimes(ds []*palace.Drawer, app, path string) ([]time.Time, error) {
	times := make([]time.Time, len(ds))
	start, turn := map[string]time.Time{}, map[string]int{}
	for i, d := range ds {
		if d.Timestamp.IsZero() {
			return nil, &DataError{Err: fmt.Errorf("turn %s has no date, and a %s export dates every message", d.Meta["dia_id"], app),
				Hint: "The " + path + " path needs the sessions' dates: leave out --no-dates"}
		}
		if _, ok := start[d.SessionID]; !ok {
			start[d.SessionID] = d.Timestamp.Truncate(time.Minute)
		}
		times[i] = start[d.SessionID].Add(time.Duration(turn[d.SessionID]) * time.Minute)
		turn[d.SessionID]++
	}
	return times, nil
}

// storeChat stores a chat read back from an export written of the turns
// src, one message a turn in order, through the chat importer, and
// returns the drawers stored with the turns' bookkeeping, and the turns
// the palace refused.
func storeChat(ctx context.Context, p *palace.Palace, chat *chatexport.Chat, src []*palace.Drawer) ([]*palace.Drawer, []string, error) {
	st, err := chatexport.Store(ctx, p, chat, chatexport.StoreOptions{})
	if err != nil {
		return nil, nil, err
	}
	refused := map[int]string{}
	for _, r := range st.Refused {
		refused[r.Line] = r.Reason
	}
	var kept []*palace.Drawer
	var skipped []string
	for i, d := range chatexport.Drawers(chat, "") {
		if why, ok := refused[chat.Messages[i].Line]; ok {
			skipped = append(skipped, fmt.Sprintf("%s: %s", src[i].Meta["dia_id"], why))
			continue
		}
		d.Meta = src[i].Meta // the evaluation's own bookkeeping, kept in memory only
		kept = append(kept, d)
	}
	return kept, skipped, nil
}

// ingestChatGPT writes a conversation's sessions as the conversations of
// ChatGPT's export and stores them through the chat importer
// (PathChatGPT).
func ingestChatGPT(ctx context.Context, p *palace.Palace, ds []*palace.Drawer, n int) ([]*palace.Drawer, []string, error) {
	type message struct {
		Author struct {
			Role string `json:"role"`
		} `json:"author"`
		CreateTime float64 `json:"create_time"`
		Content    struct {
			ContentType string   `json:"content_type"`
			Parts       []string `json:"parts"`
		} `json:"content"`
	}
	type node struct {
		Parent  *string  `json:"parent"`
		Message *message `json:"message"`
	}
	type conversation struct {
		ID          string          `json:"conversation_id"`
		Title       string          `json:"title"`
		CurrentNode string          `json:"current_node"`
		Mapping     map[string]node `json:"mapping"`
	}
	var convs []*conversation
	bySession := map[string]*conversation{}
	turns := map[string][]*palace.Drawer{}
	for _, d := range ds {
		role := d.SenderIDs[0]
		if role != RoleUser && role != RoleAssistant {
			return nil, nil, &DataError{Err: fmt.Errorf("turn %s is %q's, and a chat with an assistant is the user's and the assistant's", d.Meta["dia_id"], role),
				Hint: "Add --chat-roles, which makes LoCoMo's speakers the user and the assistant"}
		}
		c := bySession[d.SessionID]
		if c == nil {
			c = &conversation{ID: fmt.Sprintf("conversation-%d-%s", n, d.SessionID), Title: d.SessionID, Mapping: map[string]node{}}
			bySession[d.SessionID] = c
			convs = append(convs, c)
		}
		var m message
		m.Author.Role = role
		m.CreateTime = float64(d.Timestamp.UnixMilli()) / 1000
		m.Content.ContentType = "text"
		m.Content.Parts = []string{strings.TrimPrefix(d.Content, role+": ")}
		var parent *string
		if prev := c.CurrentNode; prev != "" {
			parent = &prev
		}
		id := fmt.Sprintf("n%d", len(c.Mapping)+1)
		c.Mapping[id] = node{Parent: parent, Message: &m}
		c.CurrentNode = id
		turns[c.ID] = append(turns[c.ID], d)
	}
	data, err := json.Marshal(convs)
	if err != nil {
		return nil, nil, err
	}
	chats, err := chatexport.ReadAssistantChats(data)
	if err != nil {
		return nil, nil, err
	}
	var kept []*palace.Drawer
	var skipped []string
	for _, chat := range chats {
		src := turns[chat.ID]
		if len(chat.Messages) != len(src) {
			return nil, nil, fmt.Errorf("conversation %d, %s: %d turns read back as %d messages", n, chat.Name, len(src), len(chat.Messages))
		}
		k, sk, err := storeChat(ctx, p, chat, src)
		if err != nil {
			return nil, nil, err
		}
		kept, skipped = append(kept, k...), append(skipped, sk...)
	}
	return kept, skipped, nil
}

// factTally counts what staging a conversation's observations did.
type factTally struct{ promoted, duplicates, superseded int }

// ingestFacts stores observations as the remember tool stores facts
// (facts.Queue.Stage, with its write hygiene) and approves each staged one,
// as a reviewer who accepts them all would. A fact that restates one
// already stored is not stored twice: the turns it cites are credited to
// the one it restates. A fact that contradicts a promoted one supersedes
// it on approval, as in use; the superseded fact leaves recall, and the
// turns only it cited can no longer be found. It returns the turns each
// stored fact cites, by drawer id; an observation the queue refuses (too
// long, say) is reported and left out.
func ingestFacts(ctx context.Context, p *palace.Palace, obs []Observation) (map[string][]string, factTally, []string, error) {
	q := facts.Of(p)
	cites := map[string][]string{}
	var tally factTally
	var skipped []string
	for _, ob := range obs {
		res, err := q.Stage(ctx, facts.Input{Text: ob.Text, Confidence: facts.DefaultConfidence, Source: "loci eval"})
		if err != nil {
			if palace.ErrorCode(err) != palace.CodeInvalid {
				return nil, tally, nil, err
			}
			skipped = append(skipped, fmt.Sprintf("%s: %v", strings.Join(ob.Evidence, ","), err))
			continue
		}
		id := res.Fact.DrawerID
		switch res.Outcome {
		case facts.OutcomeDuplicate, facts.OutcomeReconfirmed:
			tally.duplicates++
		case facts.OutcomeStaged:
			if _, err := q.Approve(ctx, res.Fact.ID); err != nil {
				return nil, tally, nil, err
			}
			if res.Conflict != nil {
				tally.superseded++
			}
			fallthrough
		default:
			tally.promoted++
		}
		for _, e := range ob.Evidence {
			if !slices.Contains(cites[id], e) {
				cites[id] = append(cites[id], e)
			}
		}
	}
	return cites, tally, skipped, nil
}

// ingestExchanges stores a conversation as the Stop hook does (PathHook):
// within each session, the turns of user (the first speaker; the first
// turn's speaker when the file names none) and the turns of the other
// speaker after them make one exchange, saved as one drawer, its texts
// without the speakers' names (the roles name them), and appended to the
// session buffer as a user and an assistant message; each session's buffer
// is flushed when it ends, as the SessionEnd hook does. It returns the
// turns stored, each carrying its exchange's drawer id.
func ingestExchanges(ctx context.Context, p *palace.Palace, ds []*palace.Drawer, n int, user string) ([]*palace.Drawer, []string, error) {
	if user == "" && len(ds) > 0 && len(ds[0].SenderIDs) > 0 {
		user = ds[0].SenderIDs[0]
	}
	var kept []*palace.Drawer
	var skipped []string
	for i := 0; i < len(ds); {
		// One exchange: the prompt's turns, then the reply's.
		j := i
		var prompt, reply []string
		for ; j < len(ds) && ds[j].SessionID == ds[i].SessionID; j++ {
			who := ""
			if len(ds[j].SenderIDs) > 0 {
				who = ds[j].SenderIDs[0]
			}
			if who == user && len(reply) > 0 {
				break
			}
			// A prompt and a reply are the words typed, without a name.
			text := strings.TrimPrefix(ds[j].Content, who+": ")
			if who == user {
				prompt = append(prompt, text)
			} else {
				reply = append(reply, text)
			}
		}
		turns := ds[i:j]
		i = j
		ends := i == len(ds) || ds[i].SessionID != turns[0].SessionID // the session's last exchange
		d := &palace.Drawer{
			Kind:      palace.KindTurn,
			Content:   claudecode.TurnText(strings.Join(prompt, "\n"), strings.Join(reply, "\n\n")),
			Tags:      []string{claudecode.TagClaudeCode},
			SessionID: convSessionID(n, turns[0].SessionID),
			Timestamp: turns[0].Timestamp,
		}
		if err := p.Add(ctx, d); err != nil {
			if palace.ErrorCode(err) != palace.CodeInvalid {
				return nil, nil, err
			}
			skipped = append(skipped, fmt.Sprintf("%s: %v", turns[0].Meta["dia_id"], err))
		} else {
			for _, t := range turns {
				t.ID = d.ID
				kept = append(kept, t)
			}
			// And in the session buffer, as the Stop hook does: a side
			// with no words (a turn that was only a picture, or blank) is
			// no message, and a message the buffer refuses costs only the
			// extraction, as in the hook, which logs it and goes on.
			var msgs []extract.Message
			if text := strings.Join(prompt, "\n"); strings.TrimSpace(text) != "" {
				msgs = append(msgs, extract.Message{ID: d.ID, Role: "user", Text: text, Timestamp: turns[0].Timestamp})
			}
			if text := strings.Join(reply, "\n\n"); strings.TrimSpace(text) != "" {
				msgs = append(msgs, extract.Message{Role: "assistant", Text: text, Timestamp: turns[len(turns)-1].Timestamp})
			}
			if len(msgs) > 0 {
				if _, err := session.Of(p).Append(ctx, d.SessionID, msgs, session.Options{}); err != nil {
					if palace.ErrorCode(err) != palace.CodeInvalid {
						return nil, nil, err
					}
					skipped = append(skipped, fmt.Sprintf("%s in the session buffer (the exchange is stored): %v", turns[0].Meta["dia_id"], err))
				}
			}
		}
		if ends { // the session ends: the SessionEnd hook flushes its buffer
			if _, err := session.Of(p).Flush(ctx, d.SessionID, session.Options{}); err != nil {
				return nil, nil, err
			}
		}
	}
	return kept, skipped, nil
}

// DefaultDataPath finds LoCoMo where the project keeps it: beside the
// repository in ../shared/data, or from LOCI_LOCOMO.
func DefaultDataPath() string {
	if v := os.Getenv("LOCI_LOCOMO"); v != "" {
		return v
	}
	wd, _ := os.Getwd()
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "..", "shared", "data", "locomo10.json")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if filepath.Dir(d) == d {
			return filepath.Join("..", "shared", "data", "locomo10.json")
		}
	}
}

// dream runs every dreamer pass over p as of at (its last turn's time;
// the wall clock when it has none) and reports what each changed.
func dream(ctx context.Context, p *palace.Palace, at time.Time, n int, progress func(string, ...any)) error {
	o := dreamer.RunOptions{Settings: dreamer.DefaultSettings(), Trigger: "eval", Logger: zerolog.Nop()}
	if !at.IsZero() {
		o.Now = func() time.Time { return at }
	}
	rep, err := dreamer.Run(ctx, p, o)
	if err != nil {
		return fmt.Errorf("dream: %w", err)
	}
	if progress != nil {
		var done []string
		for _, ps := range rep.Passes {
			done = append(done, fmt.Sprintf("%s %s (%d changed)", ps.Name, ps.Status, ps.Changed))
		}
		progress("conversation %d: dreamt: %s", n, strings.Join(done, ", "))
	}
	return nil
}
