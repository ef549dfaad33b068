package palace

import (
	"os"
	"strings"

	"github.com/loci-mem/loci/palace/words"
)

// An agent asks its memory in the words it would use with a person who
// keeps notes: "Find memories about the user's dog", "Search notes for
// the billing database", "What do you remember about pets?", "Look up any
// information on the deploy". The opening words address the memory, not
// what it holds, and they are the rarest words of the query in a palace of
// conversations: "memories" and "notes" are words of a few texts ("those
// memories of Paris", "I keep notes on every retro"), which the keyword
// leg then ranks first, and "remember" moves the query's vector toward
// them. So a query that opens with such a request is searched by what
// follows it, by both legs. This is the stop structure of TREC's
// description queries ("find documents that discuss…", Callan and Croft
// 1993), read at the only place a request stands: the opening. Elsewhere
// the words are content and kept ("What did Joanna receive that brought
// back childhood memories?").
//
// The request is read by a small grammar, not chosen on any data:
//
//	[please | can/could/would you | help me]
//	( verb [me|us] [for|through|in] |
//	  what|anything do/does/did you/we/I know|remember|recall|have |
//	  do/did you remember|recall|know |
//	  what|which|any|is there noun … )
//	[determiners] [noun [you|we|I have | stored | saved]] [from|in … memory|notes] [about|on|for|regarding|…]
//
// A question about the memory's nouns is a request only with who holds
// them or a word that turns to the subject after the noun ("any notes
// on…", not "What details did Melanie share…"). A verb is a request only
// when a word of the grammar follows it: "search engine", "check
// constraints on orders" and "find -exec" are what is asked about.
// Everything a search reads of a query is read from what follows the
// request: its words, its vector, the time it names, whether it asks when
// and whom it names. The request's own pronouns name no one: "your notes"
// and "what do you remember" do not ask for what the assistant said, nor
// "my memories" for what the user did.

var (
	reqPoliteness = map[string]bool{"please": true, "pls": true, "kindly": true}
	reqModal      = map[string]bool{"can": true, "could": true, "would": true, "will": true}
	// reqVerbs open a request ("look" too, with its particle).
	reqVerbs = map[string]bool{"find": true, "search": true, "retrieve": true, "recall": true, "fetch": true,
		"lookup": true, "remember": true, "get": true, "show": true, "list": true, "check": true, "give": true,
		"pull": true, "bring": true, "dig": true, "tell": true, "summarize": true, "summarise": true}
	// reqParticles follow a verb: "look up", "pull up", "search for",
	// "search through", "dig up".
	reqParticles = map[string]bool{"up": true, "for": true, "through": true, "in": true, "out": true}
	reqObjects   = map[string]bool{"me": true, "us": true}
	reqDets      = map[string]bool{"all": true, "any": true, "the": true, "my": true, "our": true, "your": true,
		"relevant": true, "related": true, "previous": true, "past": true, "earlier": true, "prior": true,
		"stored": true, "saved": true, "existing": true, "some": true, "every": true, "other": true, "more": true}
	// reqNouns name what a memory holds, as a request names it.
	reqNouns = map[string]bool{"memories": true, "memory": true, "notes": true, "info": true, "information": true,
		"details": true, "facts": true, "context": true, "records": true, "entries": true, "anything": true,
		"everything": true, "something": true, "stuff": true, "things": true, "mentions": true, "references": true,
		"knowledge": true, "history": true}
	reqKnow  = map[string]bool{"know": true, "remember": true, "recall": true, "have": true}
	reqWho   = map[string]bool{"you": true, "we": true, "i": true}
	reqPreps = map[string]bool{"about": true, "on": true, "for": true, "regarding": true, "concerning": true,
		"re": true, "of": true, "mentioning": true, "mention": true, "mentions": true, "covering": true,
		"around": true, "with": true}
	// reqLinks join a noun to what the request is about in two words:
	// "related to", "relating to", "that mention(s)".
	reqLinks = map[string]string{"related": "to", "relating": "to", "relevant": "to", "that": "mention"}
)

// reqWord is one word of a query and where it ends.
type reqWord struct {
	w   string
	end int
}

// reqMaxWords bounds the words a request is looked for in: the longest
// the grammar reads is under a dozen.
const reqMaxWords = 16

// RequestContent is a query without the request to the memory it opens
// with, what a search reads of it; the query as it is when it opens with
// none or holds nothing else.
func RequestContent(query string) string {
	if os.Getenv("LOCI_REQUEST") == "0" {
		return query
	}
	var ws []reqWord
	words.Each(query, 0, func(w words.Word) {
		if len(ws) < reqMaxWords {
			ws = append(ws, reqWord{strings.ToLower(w.Text), w.End})
		}
	})
	n := requestWords(ws)
	if n == 0 {
		return query
	}
	// What follows, from its first word or quoted phrase.
	rest := strings.TrimLeftFunc(query[ws[n-1].end:], func(r rune) bool {
		return !words.IsWordRune(r) && !strings.ContainsRune("\"'`#@", r)
	})
	if !strings.ContainsFunc(rest, words.IsWordRune) {
		return query
	}
	return rest
}

// requestWords is how many of a query's opening words are a request, by
// the grammar above; 0 when it opens with none.
func requestWords(ws []reqWord) int {
	i := 0
	at := func(set map[string]bool) bool { return i < len(ws) && set[ws[i].w] }
	is := func(w string) bool { return i < len(ws) && ws[i].w == w }
	for at(reqPoliteness) {
		i++
	}
	if at(reqModal) && i+1 < len(ws) && ws[i+1].w == "you" {
		i += 2
		for at(reqPoliteness) {
			i++
		}
	} else if is("help") && i+1 < len(ws) && ws[i+1].w == "me" {
		i += 2
	}
	// asked: the request is a question about the memory's nouns ("any
	// notes on…", "what information do you have…"), which is one only
	// with who holds them or a word that turns to the subject after the
	// noun: "What details did Melanie share…" and "Which memory of her
	// dad…" ask about what was said.
	asked := false
	switch {
	case at(reqVerbs), is("look"):
		look := is("look")
		framed := false // a word of the grammar after the verb
		i++
		if at(reqParticles) {
			if look && ws[i].w != "up" && ws[i].w != "for" && ws[i].w != "through" {
				return 0
			}
			framed = true
			i++
		} else if look {
			return 0 // "look" alone is no request ("look and feel of the app")
		}
		if at(reqObjects) {
			framed = true
			i++
		}
		// A verb is a request only with a word of the grammar after it:
		// "search engine", "check constraints", "find -exec" are asked
		// about, "find the deploy steps" and "search for it" are requests.
		if !framed && !at(reqDets) && !at(reqNouns) && !at(reqPreps) {
			return 0
		}
	case (is("what") || is("anything") || is("everything")) && i+2 < len(ws) &&
		(ws[i+1].w == "do" || ws[i+1].w == "does" || ws[i+1].w == "did") && reqWho[ws[i+2].w]:
		i += 3
		if !at(reqKnow) {
			return 0
		}
		i++
	case (is("do") || is("did")) && i+2 < len(ws) && ws[i+1].w == "you" && reqKnow[ws[i+2].w] && ws[i+2].w != "have":
		i += 3
	case (is("what") || is("which") || is("any")) && i+1 < len(ws) && reqNouns[ws[i+1].w] && ws[i+1].w != "things":
		i++
		asked = true
	case is("is") && i+2 < len(ws) && ws[i+1].w == "there" && reqNouns[ws[i+2].w]:
		i += 2
		asked = true
	default:
		return 0
	}
	// What the request names: determiners, a noun, who holds it, where,
	// and the word that turns to what it is about; twice at most ("search
	// notes for information on…").
	held := false  // who holds the nouns was read ("do you have")
	turnedBy := "" // the first word read that turns to the subject
	for range 2 {
		dets := i
		for at(reqDets) {
			i++
		}
		if !at(reqNouns) {
			// Determiners with no noun after them belong to what is
			// asked about ("find the deploy steps"); a preposition
			// turns to it ("what do you remember about…").
			i = dets
			if turnedBy == "" && at(reqPreps) {
				i++
			}
			break
		}
		i++
		from := i
		switch {
		case i+1 < len(ws) && reqWho[ws[i].w] && ws[i+1].w == "have":
			i += 2
		case (is("do") || is("does")) && i+2 < len(ws) && reqWho[ws[i+1].w] && ws[i+2].w == "have":
			i += 3
		case is("are") && i+1 < len(ws) && ws[i+1].w == "there":
			i += 2
		}
		if is("stored") || is("saved") || is("exist") || is("exists") {
			i++
		}
		held = held || i > from
		// "in your memory", "from our notes"
		if (is("in") || is("from")) && i+1 < len(ws) {
			j := i + 1
			for j < len(ws) && reqDets[ws[j].w] {
				j++
			}
			if j < len(ws) && reqNouns[ws[j].w] {
				i = j + 1
			}
		}
		turn := wordAt(ws, i)
		if link, ok := reqLinks[turn]; ok && strings.HasPrefix(wordAt(ws, i+1), link) {
			i += 2
		} else if at(reqPreps) {
			i++
		} else {
			break
		}
		if turnedBy == "" {
			turnedBy = turn
		}
	}
	if asked && !held && (turnedBy == "" || turnedBy == "of" || turnedBy == "with") {
		return 0
	}
	return i
}

// wordAt is the i-th word, or "" past the end.
func wordAt(ws []reqWord, i int) string {
	if i < len(ws) {
		return ws[i].w
	}
	return ""
}
