package locomo

import (
	"strings"

	"github.com/loci-mem/loci/palace"
)

// shownTurns tells which of a conversation's turns a memory of the hook
// path shows when it is not an exchange drawer: the Stop hook also
// records each exchange in the session buffer, whose episodes retell a
// stretch of the session (quoting its messages) and whose atomic facts
// restate one sentence in the third person.
type shownTurns struct {
	bySession map[string][]*palace.Drawer // hook session id -> its turns, in order
}

func newShownTurns(turns []*palace.Drawer, n int) shownTurns {
	st := shownTurns{bySession: map[string][]*palace.Drawer{}}
	for _, t := range turns {
		id := convSessionID(n, t.SessionID)
		st.bySession[id] = append(st.bySession[id], t)
	}
	return st
}

// shows returns the ids of the turns d shows in shown (what the face
// that found it shows of it): an episode's turns whose opening words the
// shown text quotes, the turn an atomic fact restates (the turn of its
// session that shares the most content words with it), none for a
// profile. Each such memory stands for what a reader can see of it.
func (st shownTurns) shows(d *palace.Drawer, shown string) []string {
	turns := st.bySession[d.SessionID]
	if len(turns) == 0 {
		return nil
	}
	if d.Kind == palace.KindAtomicFact {
		words := contentTokens(shown, nil)
		best, most := "", 0
		for _, t := range turns {
			n := 0
			for w := range contentTokens(t.Content, nil) {
				if words[w] {
					n++
				}
			}
			if n > most {
				best, most = t.Meta["dia_id"].(string), n
			}
		}
		if best == "" {
			return nil
		}
		return []string{best}
	}
	seen := quoteForm(shown)
	var out []string
	for _, t := range turns {
		if opening := openingWords(t.Content); opening != "" && strings.Contains(seen, opening) {
			out = append(out, t.Meta["dia_id"].(string))
		}
	}
	return out
}

// openingWords is the first eight words of a turn's text as an episode
// quotes it (quoteForm), without its speaker's name.
func openingWords(text string) string {
	if _, rest, ok := strings.Cut(text, ": "); ok {
		text = rest
	}
	w := strings.Fields(quoteForm(text))
	return strings.Join(w[:min(len(w), 8)], " ")
}

// quoteForm is text as an episode quotes it, for comparison: lower case,
// on one line, double quotes as single ones.
func quoteForm(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(strings.ReplaceAll(s, `"`, "'"))), " ")
}
