package locomo

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/words"
)

// rewriteSessions replaces each session's turns with what f makes of them;
// f is given the session's number as its key writes it ("3" for
// session_3).
func (s *Sample) rewriteSessions(f func(session string, turns []Turn) []Turn) error {
	for k, raw := range s.Conversation {
		m := sessKeyR.FindStringSubmatch(k)
		if m == nil {
			continue
		}
		var turns []Turn
		if err := json.Unmarshal(raw, &turns); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		b, err := json.Marshal(f(m[1], turns))
		if err != nil {
			return err
		}
		s.Conversation[k] = b
	}
	return nil
}

// LongReplies rewrites a conversation so that it reads like a user
// talking with an assistant that answers at length: every turn of the
// second speaker takes in the n−1 turns after it (whoever spoke them) as
// one reply of several paragraphs, under its own dia_id, and questions'
// evidence follows the turns into the reply that now holds them. It is a
// check on methods chosen on LoCoMo's short turns, not a dataset of its
// own: the words and the questions stay LoCoMo's.
func LongReplies(s *Sample, n int) error {
	second := s.speaker("speaker_b")
	if second == "" || n < 2 {
		return nil
	}
	into := map[string]string{} // turn -> the turn that now holds it
	err := s.rewriteSessions(func(_ string, turns []Turn) []Turn {
		var out []Turn
		for i := 0; i < len(turns); {
			t := turns[i]
			if t.Speaker != second {
				into[normID(t.DiaID)] = normID(t.DiaID)
				out = append(out, t)
				i++
				continue
			}
			group := turns[i:min(i+n, len(turns))]
			parts := make([]string, len(group))
			for j, g := range group {
				parts[j] = g.Text
				if g.BlipCaption != "" {
					parts[j] += " " + imageNote(g.BlipCaption)
				}
				into[normID(g.DiaID)] = normID(t.DiaID)
			}
			out = append(out, Turn{Speaker: second, DiaID: t.DiaID, Text: strings.Join(parts, "\n\n")})
			i += len(group)
		}
		return out
	})
	if err != nil {
		return err
	}
	for i := range s.QA {
		var ev []any
		seen := map[string]bool{}
		for _, id := range normEvidence(s.QA[i].Evidence) {
			if to, ok := into[id]; ok {
				id = to
			}
			if !seen[id] {
				seen[id] = true
				ev = append(ev, id)
			}
		}
		s.QA[i].Evidence = ev
	}
	return nil
}

// EchoReplies rewrites a conversation so that the second speaker answers
// like an assistant that restates what it was told: every turn of the
// second speaker opens with the texts of the first speaker's last n turns
// of the session (oldest first), then says its own. Turns and evidence are
// unchanged, so a question about what the first speaker said is answered
// by that short turn while long replies around it repeat its words, as
// assistant replies in a user–assistant chat do. Like LongReplies it is a
// check on methods chosen on LoCoMo, not a dataset of its own.
//
// With reworded, each repeated turn is restated in other words
// (Reworded), as a real assistant restates more often than it quotes.
func EchoReplies(s *Sample, n int, reworded bool) error {
	second := s.speaker("speaker_b")
	if second == "" || n < 1 {
		return nil
	}
	return s.rewriteSessions(func(_ string, turns []Turn) []Turn {
		var said []string // the first speaker's turns so far
		for i, t := range turns {
			if t.Speaker != second {
				said = append(said, t.Text)
				continue
			}
			parts := append([]string(nil), said[max(0, len(said)-n):]...)
			if reworded {
				for j := range parts {
					parts[j] = Reworded(parts[j])
				}
			}
			turns[i].Text = strings.Join(append(parts, t.Text), "\n\n")
		}
		return turns
	})
}

// TopicReplies rewrites a conversation so that the second speaker answers
// at length on the topic it was given, without restating it. Every turn of
// the second speaker opens with what its text says, goes on with the texts
// of the n turns of the conversation's other sessions that share the most
// content words (contentTokens, the speakers' names not counted) with the
// first speaker's last turn of the session, and closes with what its text
// asks (its sentences that end in a question mark), as an assistant's
// reply does. No question's evidence is among the texts it goes on with.
// An assistant's long reply elaborates on what the user said in the user's
// own vocabulary; here the elaboration is talk that answers no question,
// and the user's short turn must still be found among the replies. Turns
// and evidence are unchanged. Like EchoReplies it is a check on methods
// chosen on LoCoMo, not a dataset of its own; unlike a real reply, the
// texts it goes on with are copies, and one text may be copied into many
// replies.
func TopicReplies(s *Sample, n int) error {
	second := s.speaker("speaker_b")
	if second == "" || n < 1 {
		return nil
	}
	names := map[string]bool{}
	for _, k := range []string{"speaker_a", "speaker_b"} {
		for t := range contentTokens(s.speaker(k), nil) {
			names[t] = true
		}
	}
	evidence := map[string]bool{}
	for _, q := range s.QA {
		for _, id := range normEvidence(q.Evidence) {
			evidence[id] = true
		}
	}
	type source struct {
		session int
		text    string
		words   map[string]bool
	}
	var pool []source // in conversation order
	for _, n := range sessionNumbers(s.Conversation) {
		key := fmt.Sprintf("session_%d", n)
		var turns []Turn
		if err := json.Unmarshal(s.Conversation[key], &turns); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		for _, t := range turns {
			if w := contentTokens(t.Text, names); len(w) > 0 && !evidence[normID(t.DiaID)] {
				pool = append(pool, source{n, t.Text, w})
			}
		}
	}
	// elaborate gives the texts of the n sources from other sessions that
	// share the most words with said (earlier ones first among equals).
	elaborate := func(session int, said string) []string {
		want := contentTokens(said, names)
		type scored struct{ i, shared int }
		var best []scored
		for i, src := range pool {
			if src.session == session {
				continue
			}
			shared := 0
			for w := range want {
				if src.words[w] {
					shared++
				}
			}
			if shared > 0 {
				best = append(best, scored{i, shared})
			}
		}
		sort.SliceStable(best, func(a, b int) bool { return best[a].shared > best[b].shared })
		var out []string
		for _, b := range best[:min(n, len(best))] {
			out = append(out, pool[b.i].text)
		}
		return out
	}
	return s.rewriteSessions(func(key string, turns []Turn) []Turn {
		session, _ := strconv.Atoi(key) // digits (sessKeyR), as sessionNumbers reads them
		said := ""
		for i, t := range turns {
			if t.Speaker != second {
				said = t.Text
				continue
			}
			if said == "" {
				continue
			}
			// An assistant's reply opens with what it says to the
			// message, elaborates, and closes with what it asks.
			var says, asks []string
			for _, sen := range sentences(t.Text) {
				if strings.HasSuffix(sen, "?") {
					asks = append(asks, sen)
				} else {
					says = append(says, sen)
				}
			}
			var parts []string
			if len(says) > 0 {
				parts = append(parts, strings.Join(says, " "))
			}
			parts = append(parts, elaborate(session, said)...)
			if len(asks) > 0 {
				parts = append(parts, strings.Join(asks, " "))
			}
			turns[i].Text = strings.Join(parts, "\n\n")
		}
		return turns
	})
}

// Reworded restates a text the way a reply restates what it was told,
// mechanically, so that a restatement is not a copy: every sentence
// opens "You mentioned that", first-person words become second-person
// ("I" → "you", "my" → "your"), every third word is left out, and every
// fourth word kept, of four letters or more, becomes a vague one ("thing",
// "stuff", "bit", "part", in turn, keeping its punctuation).
func Reworded(text string) string {
	var out []string
	vague := 0
	for _, s := range sentences(text) {
		var kept []string
		for k, w := range strings.Fields(s) {
			core := strings.ToLower(strings.TrimFunc(w, unicode.IsPunct))
			if you, ok := secondPerson[core]; ok {
				w = you
			}
			if k%3 == 2 {
				continue
			}
			if utf8.RuneCountInString(core) > 3 && len(kept)%4 == 3 {
				// The word's end mark stays: the sentence still ends.
				mark := w[len(strings.TrimRightFunc(w, unicode.IsPunct)):]
				w = vagueWords[vague%len(vagueWords)] + mark
				vague++
			}
			kept = append(kept, w)
		}
		if len(kept) == 0 {
			continue
		}
		first, rest := kept[0], strings.Join(kept[1:], " ")
		out = append(out, strings.TrimSpace("You mentioned that "+strings.ToLower(first[:1])+first[1:]+" "+rest))
	}
	return strings.Join(out, " ")
}

var (
	secondPerson = map[string]string{"i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself",
		"i'm": "you're", "i've": "you've", "i'll": "you'll", "i'd": "you'd", "we": "you", "us": "you", "our": "your"}
	vagueWords = []string{"thing", "stuff", "bit", "part"}
)

// Typos rewrites a conversation as if typed in haste: each word of three
// letters a–z or more is misspelt with probability rate by one of
// Damerau's four errors, chosen at random with equal odds (a letter left
// out, a letter added, a letter changed to another, a letter swapped with
// the next; a swap that would change nothing leaves the letter out
// instead), at a random place after the first letter (writers seldom miss
// the first). The questions stay as they are, and so does
// the evidence. The random choices are seeded by the conversation and the
// turn, so a rewrite is the same every run.
func Typos(s *Sample, rate float64) error {
	return s.rewriteSessions(func(session string, turns []Turn) []Turn {
		for i := range turns {
			turns[i].Text = misspell(turns[i].Text, rate, seeded(s.SampleID, turns[i].DiaID))
		}
		return turns
	})
}

// CrossedReplies makes that share of the replies cross the message before
// them, as messages do when both people type at once: where the speaker
// changes, the reply is sent before the last message of the run it
// answers ("A: I got the job" "B: omg congrats" "A: starting monday"). A
// message moved so is not moved again. Turns get new dia_ids in session
// order; a question's evidence stays on the turns it named.
func CrossedReplies(s *Sample, share float64) error {
	moved := map[string]string{} // old turn -> its id now
	err := s.rewriteSessions(func(session string, turns []Turn) []Turn {
		rng := seeded(s.SampleID, "crossed replies "+session)
		out := slices.Clone(turns)
		for i := 1; i < len(out); i++ {
			if out[i].Speaker != out[i-1].Speaker && rng.Float64() < share {
				out[i-1], out[i] = out[i], out[i-1]
				i++ // the message crossed is not crossed again
			}
		}
		for i := range out {
			old := normID(out[i].DiaID)
			out[i].DiaID = fmt.Sprintf("D%s:%d", session, i+1)
			moved[old] = out[i].DiaID
		}
		return out
	})
	if err != nil {
		return err
	}
	s.moveEvidence(moved)
	return nil
}

// QuotedReplies makes that share of the replies (turns of another
// speaker than the turn before) quote the message they answer above their
// own text, as a reply in mail, in markdown and in the chat apps that
// export replies that way writes it: each line of the message after "> ",
// then a blank line. The message quoted is the turn before as its speaker
// wrote it, without a quote of its own. Turns, questions and evidence stay
// as they are; the choices are seeded by the conversation and the session.
func QuotedReplies(s *Sample, share float64) error {
	return s.rewriteSessions(func(session string, turns []Turn) []Turn {
		rng := seeded(s.SampleID, "quoted replies "+session)
		prev := "" // the turn before, as written
		for i, t := range turns {
			own := t.Text
			if i > 0 && t.Speaker != turns[i-1].Speaker && strings.TrimSpace(prev) != "" && rng.Float64() < share {
				var b strings.Builder
				for line := range strings.Lines(prev) {
					b.WriteString("> " + line)
				}
				turns[i].Text = strings.TrimRight(b.String(), "\n") + "\n\n" + own
			}
			prev = own
		}
		return turns
	})
}

// EmojiWords writes that share of the turns' words that an emoji names a
// thing by as the emoji, the way people write with them in chat ("my new
// 🐕", "off to 🇯🇵", "🎂 party tomorrow"): a word, or two words together
// ("birthday cake", "ice cream"), that Unicode names an emoji of an
// animal, a food, a place, an activity, an object, a flag or a person at
// work or play by (words.EmojiFor), in any case. The questions and the
// evidence stay as they are. The choices are seeded by the conversation
// and the turn, as Typos' are.
func EmojiWords(s *Sample, rate float64) error {
	return s.rewriteSessions(func(session string, turns []Turn) []Turn {
		for i := range turns {
			turns[i].Text = withEmoji(turns[i].Text, rate, seeded(s.SampleID, turns[i].DiaID))
		}
		return turns
	})
}

// withEmoji applies EmojiWords to one text.
func withEmoji(text string, rate float64, rng *rand.Rand) string {
	var ws []words.Word
	words.Each(text, 0, func(w words.Word) { ws = append(ws, w) })
	var b strings.Builder
	at := 0
	for i := 0; i < len(ws); i++ {
		var e string
		end := ws[i].End
		if i+1 < len(ws) && text[ws[i].End:ws[i+1].Start] == " " {
			if e = words.EmojiFor(text[ws[i].Start:ws[i+1].End]); e != "" {
				end = ws[i+1].End
			}
		}
		if e == "" {
			e = words.EmojiFor(ws[i].Text)
		}
		if e == "" || isFlag(e) && !unicode.IsUpper([]rune(ws[i].Text)[0]) || rng.Float64() >= rate {
			continue // a country is a name ("Turkey", not "turkey")
		}
		b.WriteString(text[at:ws[i].Start])
		b.WriteString(e)
		at = end
		for i+1 < len(ws) && ws[i+1].Start < end {
			i++
		}
	}
	b.WriteString(text[at:])
	return b.String()
}

// isFlag reports whether the emoji e is a flag: a pair of regional
// indicators, or a black flag with the tags of a region.
func isFlag(e string) bool {
	r, _ := utf8.DecodeRuneInString(e)
	return r >= 0x1F1E6 && r <= 0x1F1FF || r == 0x1F3F4 && len(e) > 4
}

// CasualTyping rewrites every turn as chat messages are often typed on a
// phone: in lower case, without apostrophes ("dont", "im", "carolines")
// and without the marks that close sentences (".", "!", "?": "did you go",
// "cant wait"); a mark inside a word ("3.5", "e.g") stays. The questions,
// written by whoever asks them, stay as they are, and so does the
// evidence.
func CasualTyping(s *Sample) error {
	return s.rewriteSessions(func(session string, turns []Turn) []Turn {
		for i := range turns {
			turns[i].Text = casually(turns[i].Text)
		}
		return turns
	})
}

// casually applies CasualTyping to one text.
func casually(text string) string {
	rs := []rune(strings.ToLower(text))
	var b strings.Builder
	for i, r := range rs {
		switch {
		case r == '\'' || r == '’':
			continue
		case strings.ContainsRune(".!?…", r):
			j := i + 1
			for j < len(rs) && strings.ContainsRune(".!?…", rs[j]) {
				j++
			}
			if j == len(rs) || !words.IsWordRune(rs[j]) {
				continue // a run of closing marks
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// CasualQuestions types every question as CasualTyping types the turns:
// in lower case, without apostrophes and without the closing marks ("what
// did carolines mom give her"), as a person types a prompt on a phone.
// The turns and the evidence stay as they are.
func CasualQuestions(s *Sample) error {
	for i := range s.QA {
		s.QA[i].Question = casually(s.QA[i].Question)
	}
	return nil
}

// requestFrames are the openings RequestFrames puts before a question:
// how an agent asks its memory for what the user asked it, in the words
// it would use with a person who keeps notes.
var requestFrames = []string{
	"Find memories about: %s",
	"Search your notes for %s",
	"What do you remember about %s",
	"Look up any information on %s",
	"Can you recall details regarding %s",
	"Check your memory for anything related to %s",
}

// RequestFrames opens every question with a request to the memory
// ("Search your notes for When did Caroline…?"), one of requestFrames
// chosen by the question, as an agent passes on what it was asked. It
// checks that the request is read as one (palace/request.go), and shows
// what it costs where it is not (LOCI_REQUEST=0).
func RequestFrames(s *Sample) error {
	for i := range s.QA {
		rng := seeded(s.SampleID, fmt.Sprintf("frame%d", i))
		s.QA[i].Question = fmt.Sprintf(requestFrames[rng.IntN(len(requestFrames))], s.QA[i].Question)
	}
	return nil
}

// QuestionTypos misspells the questions' words as Typos misspells the
// turns', and leaves the turns alone: a question typed in haste, as a
// person types a prompt that a hook recalls memories for.
func QuestionTypos(s *Sample, rate float64) error {
	for i := range s.QA {
		s.QA[i].Question = misspell(s.QA[i].Question, rate, seeded(s.SampleID, fmt.Sprintf("q%d", i)))
	}
	return nil
}

// seeded is a random source fixed by a conversation and an item of it.
func seeded(sample, item string) *rand.Rand {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s", sample, item)
	return rand.New(rand.NewPCG(h.Sum64(), 0x7970))
}

// misspell applies Typos to one text.
func misspell(text string, rate float64, rng *rand.Rand) string {
	b := []byte(text)
	var out []byte
	for i := 0; i < len(b); {
		j := i
		for j < len(b) && (b[j] >= 'a' && b[j] <= 'z' || b[j] >= 'A' && b[j] <= 'Z') {
			j++
		}
		if j == i {
			out = append(out, b[i])
			i++
			continue
		}
		w := append([]byte(nil), b[i:j]...)
		if len(w) >= 3 && rng.Float64() < rate {
			at := 1 + rng.IntN(len(w)-1)
			letter := byte('a' + rng.IntN(26))
			op := rng.IntN(4)
			if op == 3 && (at+1 == len(w) || w[at] == w[at+1]) {
				op = 0 // nothing to swap with after it
			}
			switch op {
			case 0: // left out
				w = append(w[:at], w[at+1:]...)
			case 1: // added
				w = append(w[:at], append([]byte{letter}, w[at:]...)...)
			case 2: // changed to another letter
				if letter == w[at]|0x20 {
					letter = 'a' + (letter-'a'+1)%26
				}
				w[at] = letter
			default: // swapped with the next, never the first letter
				w[at], w[at+1] = w[at+1], w[at]
			}
		}
		out = append(out, w...)
		i = j
	}
	return string(out)
}

// MediaPlaceholder is what a chat export writes in place of a photo or a
// video it leaves out (WhatsApp's, on Android).
const MediaPlaceholder = "<Media omitted>"

// MediaOmitted rewrites a conversation as a chat export writes it: a
// shared image loses its caption and becomes a message of its own, from
// the same speaker right after the turn, that reads MediaPlaceholder.
// Turns get new dia_ids in session order; a question's evidence stays on
// the turns it named (never on a placeholder, which holds nothing).
func MediaOmitted(s *Sample) error {
	return sharedMedia(s, func(Turn) []string { return []string{MediaPlaceholder} })
}

// MediaLinks rewrites a conversation as an app that shares images as
// links writes it (a chat on the web, Discord, Slack, an IRC log): a
// shared image loses its caption and each of its links becomes a message
// of its own from the same speaker right after the turn, reading the link
// alone (an image with no link reads MediaPlaceholder). Turns and evidence
// are numbered again as in MediaOmitted.
func MediaLinks(s *Sample) error {
	return sharedMedia(s, func(t Turn) []string {
		if len(t.ImgURL) == 0 {
			return []string{MediaPlaceholder}
		}
		return t.ImgURL
	})
}

// sharedMedia writes every image a turn shares as messages of their own,
// what each reads given by messages, after the turn and without its
// caption, and moves the evidence with the turns.
func sharedMedia(s *Sample, messages func(Turn) []string) error {
	moved := map[string]string{} // old turn -> its id now
	err := s.rewriteSessions(func(session string, turns []Turn) []Turn {
		var out []Turn
		for _, t := range turns {
			caption := t.BlipCaption
			t.BlipCaption = ""
			old := normID(t.DiaID)
			t.DiaID = fmt.Sprintf("D%s:%d", session, len(out)+1)
			moved[old] = t.DiaID
			shared := messages(t)
			t.ImgURL = nil
			out = append(out, t)
			if caption != "" {
				for _, m := range shared {
					out = append(out, Turn{Speaker: t.Speaker, DiaID: fmt.Sprintf("D%s:%d", session, len(out)+1), Text: m})
				}
			}
		}
		return out
	})
	if err != nil {
		return err
	}
	s.moveEvidence(moved)
	return nil
}

// moveEvidence gives every question's evidence the ids its turns have now
// (moved, old id to new).
func (s *Sample) moveEvidence(moved map[string]string) {
	for i := range s.QA {
		ev := []any{}
		for _, id := range normEvidence(s.QA[i].Evidence) {
			if now, ok := moved[id]; ok {
				ev = append(ev, now)
			}
		}
		s.QA[i].Evidence = ev
	}
}

// tapbackVerbs are the reactions iMessage writes as a text of their own
// where it cannot show them on the message.
var tapbackVerbs = []string{"Loved", "Liked", "Laughed at", "Emphasized"}

// Tapbacks rewrites a conversation as a phone that cannot show iMessage's
// reactions on a message receives them, and as an export of its texts
// writes them: after that share of the turns, the other speaker of the
// session reacts with a text of its own, the reaction's verb and the turn
// quoted whole ("Loved “I got the job!”"). Turns get new dia_ids in
// session order; a question's evidence stays on the turns it named.
func Tapbacks(s *Sample, share float64) error {
	moved := map[string]string{} // old turn -> its id now
	err := s.rewriteSessions(func(session string, turns []Turn) []Turn {
		rng := seeded(s.SampleID, "tapbacks "+session)
		var speakers []string // the session's first two
		for _, t := range turns {
			if len(speakers) < 2 && !slices.Contains(speakers, t.Speaker) {
				speakers = append(speakers, t.Speaker)
			}
		}
		var out []Turn
		for _, t := range turns {
			old := normID(t.DiaID)
			t.DiaID = fmt.Sprintf("D%s:%d", session, len(out)+1)
			moved[old] = t.DiaID
			out = append(out, t)
			other := ""
			for _, sp := range speakers {
				if sp != t.Speaker {
					other = sp
				}
			}
			if other == "" || strings.TrimSpace(t.Text) == "" || rng.Float64() >= share {
				continue
			}
			verb := tapbackVerbs[rng.IntN(len(tapbackVerbs))]
			out = append(out, Turn{Speaker: other, DiaID: fmt.Sprintf("D%s:%d", session, len(out)+1),
				Text: verb + " \u201c" + t.Text + "\u201d"})
		}
		return out
	})
	if err != nil {
		return err
	}
	s.moveEvidence(moved)
	return nil
}

// ShortMessages rewrites a conversation so that it reads like a chat in a
// messaging app: every turn is sent as its sentences, one message each, and
// a shared image as a message of its own. Messages get new dia_ids in
// session order (D1:1, D1:2, …). A question's evidence becomes the messages
// of its evidence turns that hold the most words of its answer (all of a
// turn's messages when none holds any): in a real chat the messages that state a fact
// are marked, not the whole burst around them. Like LongReplies it is a
// check on methods chosen on LoCoMo's whole turns, not a dataset of its own.
func ShortMessages(s *Sample) error {
	pieces := map[string][]Turn{} // old turn -> its messages
	err := s.rewriteSessions(func(session string, turns []Turn) []Turn {
		var out []Turn
		for _, t := range turns {
			texts := sentences(t.Text)
			if t.BlipCaption != "" {
				texts = append(texts, imageNote(t.BlipCaption))
			}
			id := normID(t.DiaID)
			for _, x := range texts {
				msg := Turn{Speaker: t.Speaker, DiaID: fmt.Sprintf("D%s:%d", session, len(out)+1), Text: x}
				out = append(out, msg)
				pieces[id] = append(pieces[id], msg)
			}
		}
		return out
	})
	if err != nil {
		return err
	}
	for i := range s.QA {
		answer := s.QA[i].Answer
		if answer == nil {
			answer = s.QA[i].AdversarialAnswer
		}
		words := answerWords(fmt.Sprint(answer))
		ev := []any{}
		for _, id := range normEvidence(s.QA[i].Evidence) {
			// The messages that hold the most of the answer's words; all
			// of the turn's when none holds any.
			var best []any
			most := 0
			for _, p := range pieces[id] {
				n := 0
				for w := range answerWords(p.Text) {
					if words[w] {
						n++
					}
				}
				switch {
				case n > most:
					best, most = []any{p.DiaID}, n
				case n == most:
					best = append(best, p.DiaID)
				}
			}
			ev = append(ev, best...)
		}
		s.QA[i].Evidence = ev
	}
	return nil
}

// pasteSizes are the sizes of the pieces Pastes cuts, in bytes: a
// snippet, a file, a long log, a whole module.
var pasteSizes = []int{3000, 10000, 30000, 100000}

// pasteLead opens every pasted turn.
const pasteLead = "Here is the file I was looking at:\n"

// Pastes rewrites a conversation so that it holds long pasted texts, as
// a user–assistant chat about a project does (a log, a source file, a
// document): every other session (the 1st, the 3rd, …) ends with a turn
// of the speaker who did not speak last, pasteLead and a piece of one of
// files (pasteSizes, from a random place, cut at line starts, the whole
// file when it is shorter). No question's evidence is in a paste: it is
// text that matches questions by chance, and a ranking must not let it
// crowd out the turns that answer them. The choices are seeded by the
// conversation and the session, so a rewrite is the same every run.
//
// With inTurn, the piece is not a turn of its own but follows the text of
// one of the first speaker's turns of the session (chosen at random, a
// blank line between them), as a person states something and pastes the
// log it is about in one message; that turn's evidence stays its
// evidence, and the statement must still be found under the paste.
func Pastes(s *Sample, files [][]byte, inTurn bool) error {
	if len(files) == 0 {
		return nil
	}
	first := s.speaker("speaker_a")
	return s.rewriteSessions(func(session string, turns []Turn) []Turn {
		if n, _ := strconv.Atoi(session); n%2 == 0 || len(turns) == 0 {
			return turns
		}
		rng := seeded(s.SampleID, "paste "+session)
		f := files[rng.IntN(len(files))]
		size := pasteSizes[rng.IntN(len(pasteSizes))]
		piece := f
		if len(f) > size {
			start := rng.IntN(len(f) - size + 1)
			piece = f[start : start+size]
			if i := bytes.IndexByte(piece, '\n'); i >= 0 && start > 0 {
				piece = piece[i+1:]
			}
			if i := bytes.LastIndexByte(piece, '\n'); i >= 0 {
				piece = piece[:i+1]
			}
		}
		if inTurn {
			var theirs []int
			for i, t := range turns {
				if t.Speaker == first {
					theirs = append(theirs, i)
				}
			}
			if len(theirs) > 0 {
				i := theirs[rng.IntN(len(theirs))]
				turns[i].Text += "\n\n" + pasteLead + string(piece)
			}
			return turns
		}
		last := turns[len(turns)-1].Speaker
		who := last
		for _, t := range turns {
			if t.Speaker != last {
				who = t.Speaker
				break
			}
		}
		return append(turns, Turn{Speaker: who, DiaID: fmt.Sprintf("D%s:%d", session, len(turns)+1), Text: pasteLead + string(piece)})
	})
}

// PasteFiles reads the files Pastes cuts from: the regular files of dir
// (not its subdirectories), in name order, that hold text (UTF-8, no NUL
// byte) of at least 8 KB, so that every piece is a paste and not a line.
func PasteFiles(dir string) ([][]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if len(b) >= 8<<10 && utf8.Valid(b) && bytes.IndexByte(b, 0) < 0 {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no text file of 8 KB or more", dir)
	}
	return out, nil
}

// NoDates rewrites a conversation as a chat exported or converted without
// its times: the sessions lose their dates (session_N_date_time) and the
// turns their own (a turn keeps its speaker, id, text and image caption
// only), so that every drawer carries the time it was stored, the same
// for a whole conversation written at once. Turns and questions are
// unchanged; a question that names a date can then be answered by words
// only. It measures what a ranking owes to the data's dates, which a
// chat about a project, or a converted dataset, may not have.
func NoDates(s *Sample) error {
	for k := range s.Conversation {
		if strings.HasPrefix(k, "session_") && strings.HasSuffix(k, "_date_time") {
			delete(s.Conversation, k)
		}
	}
	return s.rewriteSessions(func(_ string, turns []Turn) []Turn { return turns })
}

// DateForm rewrites every date of a conversation (its sessions' and its
// turns' own times) in the given Go time layout, as another dataset or a
// chat export writes them ("2006/01/02 (Mon) 15:04", LongMemEval's;
// "02/01/2006, 15:04"), so that a run shows whether they are read. A date
// that is not read before the rewrite is left as it is.
func DateForm(s *Sample, layout string) error {
	order := dateOrder(s.Conversation)
	form := func(v string) string {
		if when := readDate(v, order); !when.IsZero() {
			return when.Format(layout)
		}
		return v
	}
	for key, raw := range s.Conversation {
		var v string
		switch {
		case strings.HasSuffix(key, "_date_time") && json.Unmarshal(raw, &v) == nil:
			s.Conversation[key], _ = json.Marshal(form(v))
		case sessKeyR.MatchString(key):
			var turns []map[string]any
			if err := json.Unmarshal(raw, &turns); err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
			for _, t := range turns {
				for _, f := range timeFields {
					if v, ok := t[f].(string); ok {
						t[f] = form(v)
					}
				}
			}
			s.Conversation[key], _ = json.Marshal(turns)
		}
	}
	return nil
}

// OneThread rewrites a conversation as one thread, as a chat app exports
// it: every session's turns, in order, become one session (session_1),
// each turn carrying its session's date as its own time (date_time), so
// that the turns of a day still share their day and nothing marks where
// a session ended. Turns keep their dia_id, so questions and evidence are
// unchanged.
func OneThread(s *Sample) error {
	type dated struct {
		Turn
		DateTime string `json:"date_time,omitempty"`
	}
	var thread []dated
	for _, n := range sessionNumbers(s.Conversation) {
		key := fmt.Sprintf("session_%d", n)
		var turns []Turn
		if err := json.Unmarshal(s.Conversation[key], &turns); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		var date string
		if raw, ok := s.Conversation[key+"_date_time"]; ok {
			_ = json.Unmarshal(raw, &date) // a date that is not a string is none
		}
		for _, t := range turns {
			thread = append(thread, dated{t, date})
		}
		delete(s.Conversation, key)
		delete(s.Conversation, key+"_date_time")
	}
	b, err := json.Marshal(thread)
	if err != nil {
		return err
	}
	s.Conversation["session_1"] = b
	return nil
}

// Interleave holds every two consecutive sessions of a conversation at
// once, as a group chat or a team's channel holds several conversations
// at a time: the turns of session 2k are sent between those of session
// 2k−1, one for one (the rest of the longer one after), as one session on
// the first one's date. A turn keeps its dia_id ("D3:5" still says which
// of the two it belongs to, and a thread of an export can be written from
// it), so questions and evidence are unchanged; what a turn answers is no
// longer the message before it. The second session's date is lost, and
// with it what its temporal questions ask of it.
func Interleave(s *Sample) error {
	ns := sessionNumbers(s.Conversation)
	sessions := map[int][]json.RawMessage{}
	extras := map[int]map[string]json.RawMessage{} // a session's other keys by suffix ("_date_time")
	for _, n := range ns {
		key := fmt.Sprintf("session_%d", n)
		var turns []json.RawMessage
		if err := json.Unmarshal(s.Conversation[key], &turns); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		sessions[n] = turns
		extras[n] = map[string]json.RawMessage{}
		for k, v := range s.Conversation {
			if suffix, ok := strings.CutPrefix(k, key+"_"); ok {
				extras[n]["_"+suffix] = v
				delete(s.Conversation, k)
			}
		}
		delete(s.Conversation, key)
	}
	for i := 0; i < len(ns); i += 2 {
		a, b := sessions[ns[i]], []json.RawMessage(nil)
		if i+1 < len(ns) {
			b = sessions[ns[i+1]]
		}
		merged := make([]json.RawMessage, 0, len(a)+len(b))
		for j := 0; j < max(len(a), len(b)); j++ {
			if j < len(a) {
				merged = append(merged, a[j])
			}
			if j < len(b) {
				merged = append(merged, b[j])
			}
		}
		key := fmt.Sprintf("session_%d", i/2+1)
		raw, err := json.Marshal(merged)
		if err != nil {
			return err
		}
		s.Conversation[key] = raw
		for suffix, v := range extras[ns[i]] {
			s.Conversation[key+suffix] = v
		}
	}
	return nil
}

// ForeignQuestions gives each conversation the questions of the one after
// it in the file (the last the first's), which it holds no answer to: the
// prompts about nothing stored that a face which leaves out weak matches
// (the prompt hook, the recall tool) should answer with nothing, asked of
// a palace as full as any. No recall is measured on them (Returned counts
// what came back instead): a question that had evidence names the
// conversation's first turn as its evidence, only so that it is asked,
// and the questions without evidence stay unasked.
func ForeignQuestions(samples []Sample) error {
	if len(samples) < 2 {
		return fmt.Errorf("--foreign-questions needs two conversations or more; the data has %d", len(samples))
	}
	qas := make([][]QA, len(samples))
	for i := range samples {
		qas[i] = samples[(i+1)%len(samples)].QA
	}
	for i := range samples {
		first := ""
		for _, num := range sessionNumbers(samples[i].Conversation) {
			var turns []struct {
				DiaID string `json:"dia_id"`
			}
			_ = json.Unmarshal(samples[i].Conversation[fmt.Sprintf("session_%d", num)], &turns)
			if len(turns) > 0 && turns[0].DiaID != "" {
				first = turns[0].DiaID
				break
			}
		}
		if first == "" {
			return fmt.Errorf("%s: no turn has a dia_id", samples[i].SampleID)
		}
		asked := make([]QA, len(qas[i]))
		for j, qa := range qas[i] {
			if len(normEvidence(qa.Evidence)) > 0 {
				qa.Evidence = Evidence{first}
			}
			asked[j] = qa
		}
		samples[i].QA = asked
	}
	return nil
}

// Haystack makes every conversation longer with talk that answers none of
// its questions, as a chat of many months holds far more than the part a
// question is about: each conversation gains the sessions of the n
// conversations after it in the file (the first ones again past the end),
// their speakers renamed to its own speakers, in their turns' texts too,
// and their dates moved into its own span, so that the sessions of all of
// them interleave in time. Every session is then numbered in the order of
// its date; the turns keep their dia_id (the borrowed ones get fresh ids,
// D<100·k+j>:<i> for the j-th session of the k-th conversation borrowed),
// so questions and evidence are unchanged, and the borrowed conversations'
// questions are not asked. It shows how recall and its parameters hold as
// a palace grows, which LoCoMo's conversations of 400 to 700 turns cannot.
// Conversations whose sessions are not all dated get the borrowed
// sessions after their own, undated.
func Haystack(samples []Sample, n int) error {
	if n <= 0 {
		return nil
	}
	if n >= len(samples) {
		return fmt.Errorf("--haystack %d needs more than %d conversations in the data; the file has %d", n, n, len(samples))
	}
	orig := make([]map[string]json.RawMessage, len(samples))
	for i := range samples {
		orig[i] = maps.Clone(samples[i].Conversation)
	}
	for i := range samples {
		type session struct {
			turns json.RawMessage
			date  string
			at    time.Time
		}
		var all []session
		order := dateOrder(orig[i])
		own, dated := span(orig[i], order)
		for _, num := range sessionNumbers(orig[i]) {
			key := fmt.Sprintf("session_%d", num)
			var date string
			_ = json.Unmarshal(orig[i][key+"_date_time"], &date) // no date is ""
			all = append(all, session{orig[i][key], date, readDate(date, order)})
		}
		for k := 1; k <= n; k++ {
			from := orig[(i+k)%len(samples)]
			names := map[string]string{}
			for _, key := range []string{"speaker_a", "speaker_b"} {
				var was, is string
				_ = json.Unmarshal(from[key], &was)
				_ = json.Unmarshal(orig[i][key], &is)
				if was != "" && is != "" {
					names[was] = is
				}
			}
			rename := renamer(names)
			theirOrder := dateOrder(from)
			theirs, theirsDated := span(from, theirOrder)
			for j, num := range sessionNumbers(from) {
				key := fmt.Sprintf("session_%d", num)
				var turns []map[string]any
				if err := json.Unmarshal(from[key], &turns); err != nil {
					return fmt.Errorf("%s: %w", key, err)
				}
				for t, turn := range turns {
					for _, f := range []string{"speaker", "role", "text", "clean_text", "content", "blip_caption"} {
						if v, ok := turn[f].(string); ok {
							turn[f] = rename(v)
						}
					}
					turn["dia_id"] = fmt.Sprintf("D%d:%d", 100*k+j+1, t+1)
					for _, f := range timeFields {
						delete(turn, f) // the session's date, moved, is its time
					}
				}
				b, err := json.Marshal(turns)
				if err != nil {
					return err
				}
				s := session{turns: b}
				var date string
				_ = json.Unmarshal(from[key+"_date_time"], &date)
				if when := readDate(date, theirOrder); dated && theirsDated && !when.IsZero() {
					s.at = moved(when, theirs, own)
					s.date = s.at.Format("3:04 pm on 2 January, 2006")
				}
				all = append(all, s)
			}
		}
		if dated {
			// Undated sessions (of a conversation borrowed that has none)
			// go last.
			sort.SliceStable(all, func(a, b int) bool {
				x, y := all[a].at, all[b].at
				return !x.IsZero() && (y.IsZero() || x.Before(y))
			})
		}
		conv := map[string]json.RawMessage{}
		for key, raw := range orig[i] {
			if !strings.HasPrefix(key, "session_") {
				conv[key] = raw
			}
		}
		for j, s := range all {
			key := fmt.Sprintf("session_%d", j+1)
			conv[key] = s.turns
			if s.date != "" {
				conv[key+"_date_time"], _ = json.Marshal(s.date)
			}
		}
		samples[i].Conversation = conv
	}
	return nil
}

// span is the first and last of a conversation's session dates (numeric
// ones read in order), and whether every session has one.
func span(conv map[string]json.RawMessage, order palace.DateOrder) ([2]time.Time, bool) {
	var sp [2]time.Time
	nums := sessionNumbers(conv)
	for _, num := range nums {
		var date string
		_ = json.Unmarshal(conv[fmt.Sprintf("session_%d_date_time", num)], &date)
		when := readDate(date, order)
		if when.IsZero() {
			return sp, false
		}
		if sp[0].IsZero() || when.Before(sp[0]) {
			sp[0] = when
		}
		if when.After(sp[1]) {
			sp[1] = when
		}
	}
	return sp, len(nums) > 0
}

// moved places when, a time within span from, at the same point of span
// to.
func moved(when time.Time, from, to [2]time.Time) time.Time {
	if d := from[1].Sub(from[0]); d > 0 {
		share := float64(when.Sub(from[0])) / float64(d)
		return to[0].Add(time.Duration(share * float64(to[1].Sub(to[0])))).Round(time.Minute)
	}
	return to[0]
}

// renamer replaces each name of names, as a whole word, by the name it
// maps to, in one pass (so that two speakers can trade names).
func renamer(names map[string]string) func(string) string {
	if len(names) == 0 {
		return func(s string) string { return s }
	}
	var alts []string
	for was := range names {
		alts = append(alts, regexp.QuoteMeta(was))
	}
	sort.Strings(alts)
	re := regexp.MustCompile(`\b(` + strings.Join(alts, "|") + `)\b`)
	return func(s string) string { return re.ReplaceAllStringFunc(s, func(m string) string { return names[m] }) }
}

// SlowReplies gives every turn a time of its own, as a chat export's
// messages have, and makes the conversation asynchronous, as people write
// to each other in a messaging app: a turn of the same speaker follows the
// one before by 40 seconds, a reply (a turn of another speaker) by 1 to
// 10 minutes, and share of the replies by 45 minutes to 10 hours (an
// answer the same evening or the next morning). A turn keeps its own time
// when that is later (a thread's next session). A session with no date,
// and no time on its first turn, is left as it is. Texts and evidence are
// unchanged; the delays are fixed by the conversation and the session.
func SlowReplies(s *Sample, share float64) error {
	order := dateOrder(s.Conversation)
	for _, n := range sessionNumbers(s.Conversation) {
		key := fmt.Sprintf("session_%d", n)
		var turns []map[string]any
		if err := json.Unmarshal(s.Conversation[key], &turns); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		var at time.Time
		if raw, ok := s.Conversation[key+"_date_time"]; ok {
			var date string
			if json.Unmarshal(raw, &date) == nil {
				at = readDate(date, order)
			}
		}
		rng := seeded(s.SampleID, key)
		prev := ""
		for i, t := range turns {
			raw, _ := json.Marshal(t)
			own, _ := turnTime(raw, order)
			speaker := fmt.Sprint(cmp.Or(t["speaker"], t["role"]))
			switch {
			case i == 0:
			case speaker == prev:
				at = at.Add(40 * time.Second)
			case rng.Float64() < share:
				at = at.Add(time.Duration(45+rng.IntN(556)) * time.Minute)
			default:
				at = at.Add(time.Duration(1+rng.IntN(10)) * time.Minute)
			}
			if own.After(at) {
				at = own
			}
			if at.IsZero() {
				break
			}
			t["timestamp"] = at.UTC().Format(time.RFC3339)
			prev = speaker
		}
		b, err := json.Marshal(turns)
		if err != nil {
			return err
		}
		s.Conversation[key] = b
	}
	return nil
}

// ChatRoles rewrites a conversation so that it reads like a person talking
// with an assistant, as a chat export records one: the first speaker's
// turns become the user's, the second's the assistant's, and every
// question is put in their voice. The user asks about themselves in the
// first person ("When did I go to the support group?", "What is my
// job?") and about the assistant in the second ("What is your hobby?").
// Turns and evidence are unchanged. Like LongReplies it is a check on
// methods chosen on LoCoMo, whose speakers have names, not a dataset of
// its own; the questions' grammar is left as it falls ("What does I
// like?"), since a search reads their words.
func ChatRoles(s *Sample) error {
	first, second := s.speaker("speaker_a"), s.speaker("speaker_b")
	if first == "" || second == "" || first == second {
		return fmt.Errorf("chat roles need two named speakers (speaker_a and speaker_b), have %q and %q", first, second)
	}
	role := map[string]string{first: RoleUser, second: RoleAssistant}
	err := s.rewriteSessions(func(_ string, turns []Turn) []Turn {
		for i := range turns {
			if r, ok := role[turns[i].Speaker]; ok {
				turns[i].Speaker = r
			}
		}
		return turns
	})
	if err != nil {
		return err
	}
	s.Conversation["speaker_a"], _ = json.Marshal(RoleUser)
	s.Conversation["speaker_b"], _ = json.Marshal(RoleAssistant)
	for i := range s.QA {
		q := inPerson(s.QA[i].Question, first, "I", "me", "my")
		s.QA[i].Question = inPerson(q, second, "you", "you", "your")
	}
	return nil
}

// UserNames records every speaker by a user name, as chat exports and logs
// write them: the name in lower case, its spaces as underscores
// ("Caroline" becomes "caroline", "Jon Snow" "jon_snow"). The questions
// still name the speakers as written, and the evidence is unchanged.
func UserNames(s *Sample) error {
	return s.renameSpeakers(func(name string) string {
		return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), " ", "_")
	})
}

// UnseenNames gives the two speakers of a conversation names that the
// built-in encoder's word vectors do not hold, everywhere a name is
// written: the speakers, the turns and their captions, the questions,
// the answers and the facts. LoCoMo's people have common English names
// ("Caroline", "John"), each a word with a vector of its own, and in a
// question that vector counts among its heaviest; the people of real
// chats are often named otherwise (Oluwaseun, Xiaoling), and then only
// the sentence encoder's pieces and the hash part see the name. Recall
// that depends on which names people have is keyed to the data, so this
// rewrite shows what it is without them. A pair of names is chosen by
// the conversation's id; a speaker recorded by a chat role keeps it.
func UnseenNames(s *Sample) error {
	a, b := s.speaker("speaker_a"), s.speaker("speaker_b")
	if a == "" || b == "" || a == b {
		return nil
	}
	h := fnv.New32a()
	h.Write([]byte(s.SampleID))
	k := 2 * int(h.Sum32()%uint32(len(unseenNames)/2))
	names := map[string]string{}
	for i, was := range []string{a, b} {
		if was != RoleUser && was != RoleAssistant {
			names[was] = unseenNames[k+i]
		}
	}
	rename := renamer(names)
	for key, raw := range s.Conversation {
		s.Conversation[key] = json.RawMessage(rename(string(raw)))
	}
	for i := range s.QA {
		s.QA[i].Question = rename(s.QA[i].Question)
		if ans, ok := s.QA[i].Answer.(string); ok {
			s.QA[i].Answer = rename(ans)
		}
	}
	for i := range s.Observations {
		s.Observations[i].Text = rename(s.Observations[i].Text)
	}
	if len(s.Observation) > 0 {
		s.Observation = json.RawMessage(rename(string(s.Observation)))
	}
	return nil
}

// unseenNames are given names of several languages that are not among the
// GloVe vocabulary's words (palace/embed/glove: Knows is false for each),
// in pairs.
var unseenNames = []string{
	"Oluwaseun", "Xiaoling", "Thandiwe", "Kwabena", "Anneliese", "Chidinma",
	"Yevgenia", "Wiremu", "Aroha", "Keoni", "Leilani", "Tsegaye",
	"Mahlet", "Bongani", "Nomvula", "Sipho", "Dragana", "Kaveh",
	"Roksana", "Tamati", "Anahera", "Ifeoma", "Chukwuemeka", "Tavita",
}

// Anonymised records the two speakers as "A" and "B", as anonymised
// dialogues write them (speaker_a is A). The questions still name them as
// written, and the evidence is unchanged.
func Anonymised(s *Sample) error {
	as := map[string]string{s.speaker("speaker_a"): "A", s.speaker("speaker_b"): "B"}
	return s.renameSpeakers(func(name string) string {
		if a, ok := as[name]; ok {
			return a
		}
		return name
	})
}

// renameSpeakers renames speaker_a, speaker_b and every turn's speaker.
func (s *Sample) renameSpeakers(rename func(string) string) error {
	for _, k := range []string{"speaker_a", "speaker_b"} {
		if name := s.speaker(k); name != "" {
			s.Conversation[k], _ = json.Marshal(rename(name))
		}
	}
	return s.rewriteSessions(func(_ string, turns []Turn) []Turn {
		for i := range turns {
			turns[i].Speaker = rename(turns[i].Speaker)
		}
		return turns
	})
}

// The speakers ChatRoles records.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// inPerson replaces name in a question with a pronoun: its possessive
// ("Caroline's") with poss, the name as the subject (first, or after an
// auxiliary verb or a comma: "When did Caroline go") with subj, and
// anywhere else with obj ("Who gave Caroline the book?").
func inPerson(q, name, subj, obj, poss string) string {
	n := regexp.QuoteMeta(name)
	q = regexp.MustCompile(`\b`+n+`'s?\b|\b`+n+`'`).ReplaceAllString(q, poss)
	re := regexp.MustCompile(`\b` + n + `\b`)
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringIndex(q, -1) {
		before := strings.Fields(q[:m[0]])
		p := subj
		if len(before) > 0 {
			prev := strings.ToLower(before[len(before)-1])
			if !auxiliaries[prev] && !strings.HasSuffix(prev, ",") {
				p = obj
			}
		}
		b.WriteString(q[last:m[0]])
		b.WriteString(p)
		last = m[1]
	}
	b.WriteString(q[last:])
	return b.String()
}

// auxiliaries are the words after which a name is a question's subject.
var auxiliaries = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`did does do is was has had will would can could should
		when where what who how why which were are am might may must`) {
		auxiliaries[w] = true
	}
}

var sentenceEnd = regexp.MustCompile(`[.!?]+["')]*\s+|\n+`)

// sentences splits a turn's text after each sentence's end mark.
func sentences(text string) []string {
	var out []string
	for len(text) > 0 {
		loc := sentenceEnd.FindStringIndex(text)
		end, next := len(text), len(text)
		if loc != nil {
			end, next = loc[1], loc[1]
		}
		if x := strings.TrimSpace(text[:end]); x != "" {
			out = append(out, x)
		}
		text = text[next:]
	}
	return out
}

// answerStop are words too common to say that a message holds an answer.
var answerStop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the and for with that this was were has have had her his she him
		they them their from not but are you your our its one yes what when who how did does
		also about into than then there these those some very just been being will would can
		could out all any more most much many other over such only own same too`) {
		answerStop[w] = true
	}
}

// answerWords are the lower-cased words of three or more letters in text,
// with a plural s dropped, as a set.
func answerWords(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if len(w) >= 3 && !answerStop[w] {
			out[strings.TrimSuffix(w, "s")] = true
		}
	}
	return out
}
