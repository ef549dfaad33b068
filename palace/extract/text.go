package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/loci-mem/loci/palace/words"
)

// Text helpers of the heuristic extractor: sentence splitting, clipping,
// first- to third-person rewriting and fact classification.

// Sentences splits text into trimmed sentences at ., ! and ? followed by
// space, at the full stops of Chinese and Japanese (。！？, which no space
// follows), and at line breaks.
func Sentences(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		start := 0
		for i := 0; i < len(line); i++ {
			c, end := line[i], 0
			switch {
			case (c == '.' || c == '!' || c == '?') && (i+1 == len(line) || line[i+1] == ' '):
				end = i + 1
			case c == 0xE3 || c == 0xEF: // 。 is E3 80 82, ！ EF BC 81, ？ EF BC 9F
				for _, stop := range []string{"。", "！", "？"} {
					if strings.HasPrefix(line[i:], stop) {
						end = i + len(stop)
					}
				}
			}
			if end > 0 {
				if s := strings.TrimSpace(line[start:end]); s != "" {
					out = append(out, s)
				}
				start, i = end, end-1
			}
		}
		if s := strings.TrimSpace(line[start:]); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func firstSentence(text string) string {
	ss := Sentences(text)
	if len(ss) == 0 {
		return ""
	}
	return ss[0]
}

// topicSentence picks the sentence of text that best states what it is
// about: the first question or request, else the first sentence.
func topicSentence(text string) string {
	ss := Sentences(text)
	if len(ss) == 0 {
		return ""
	}
	for _, s := range ss {
		l := strings.ToLower(s)
		if Asks(s) {
			return s
		}
		for _, p := range []string{"please ", "can you ", "could you ", "help ", "i need ", "i want ", "let's ", "fix ", "add ", "write ", "create ", "implement ", "find ", "explain ", "show ", "make "} {
			if strings.HasPrefix(l, p) {
				return s
			}
		}
	}
	return ss[0]
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip cuts s to at most n bytes at a word boundary, adding "…" when cut.
func clip(s string, n int) string {
	s = oneLine(s)
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if sp := strings.LastIndexByte(s[:cut], ' '); sp > n/2 {
		cut = sp
	}
	return strings.TrimRight(s[:cut], " ,;:") + "…"
}

// Asks reports whether a sentence is a question: it ends with a question
// mark, or, written without a closing mark at all (as chat messages often
// are: "did you get the tickets", "where r u"), it opens as an English
// question does. That is the subject-auxiliary inversion of a yes-no
// question ("did you", "is it", "can we", "r u"); a question word followed
// by an auxiliary ("where did", "how was"), contracted with one ("what's",
// "how'd") or by one of the few words that make a question of it ("what
// about", "how many", "how come"); "what", "which" or "who" as the
// subject or with a noun ("what happened", "which one"), unless a subject
// follows ("what I love is…", a statement); or the elided question of
// "anything new", "any plans". Reactions and discourse markers before it
// ("omg did you go", "also, do you have pets") are passed over. "When",
// "where" and "how" alone open statements as often as questions ("when I
// was a kid", "how cool"), and a sentence closed by a full stop or an
// exclamation mark is not asked, whatever its form ("Did it!").
func Asks(s string) bool {
	s = strings.TrimRightFunc(s, func(r rune) bool {
		return !words.IsWordRune(r) && !strings.ContainsRune(".!?？。！…", r)
	})
	if t := strings.TrimRight(s, "!"); strings.HasSuffix(t, "?") || strings.HasSuffix(t, "？") {
		return true // "Really?!" too
	}
	if s == "" || strings.ContainsRune(".!。！…", lastRune(s)) {
		return false
	}
	var first, second string
	named := false // the second word is capitalised: a name ("did Jo call")
	n := 0
	words.Each(s, words.Apostrophes, func(w words.Word) {
		lw := strings.ReplaceAll(strings.ToLower(w.Text), "’", "'")
		switch {
		case n == 0 && ((words.IsReaction(lw) && !subjects[lw]) || markers[lw]):
			return // "omg", "hey", "also" before the question
		case n == 0:
			first = lw
		case n == 1:
			second, named = lw, unicode.IsUpper([]rune(w.Text)[0])
		}
		n++
	})
	if second == "" {
		return whContracted(first)
	}
	switch {
	case auxiliaries[first]:
		return (subjects[second] || named) && !(first == "do" && doneWith[second])
	case whContracted(first):
		return true
	case questionWords[first] && (auxiliaries[second] || openers[first+" "+second]):
		return true
	case first == "what" || first == "which" || first == "who":
		return !subjects[second] && second != "a" && second != "an"
	}
	return elided[first]
}

// whContracted reports whether w is a question word with an auxiliary in
// it ("what's", "how'd", "whats").
func whContracted(w string) bool {
	q, rest, ok := strings.Cut(w, "'")
	if ok {
		return questionWords[q] && (rest == "s" || rest == "re" || rest == "d" || rest == "ll" || rest == "ve")
	}
	return w == "whats" || w == "wheres" || w == "whos" || w == "hows" || w == "whatre"
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

var (
	// auxiliaries are the verbs a yes-no question opens with, and a
	// question word's second word; their negatives and the forms typed
	// without an apostrophe or shortened ("r") too. "Had" is left out: a
	// chat drops the subject of "had a wild week" far more often than it
	// asks "had you heard".
	auxiliaries = wordSet(`am is are r was were do does did have has can could will would
	shall should may might must isn't isnt aren't arent wasn't wasnt weren't werent don't dont
	doesn't doesnt didn't didnt haven't havent hasn't hasnt can't cant couldn't couldnt won't
	wouldn't wouldnt shouldn't shouldnt`)
	// subjects are the words that follow the auxiliary of a yes-no
	// question: a pronoun, a definite determiner opening a noun phrase,
	// or "there". "A" is left out: "have a great day" bids.
	subjects = wordSet(`i you u ya yall y'all he she it we they there this that these those the
	your ur my his her our their its anyone anybody someone somebody everyone everybody
	anything something everything`)
	// doneWith are the objects of "do" as an imperative ("do it").
	doneWith      = wordSet(`it that this`)
	questionWords = wordSet(`what when where who whom whose why which how`)
	// openers are the other pairs that open a question.
	openers = map[string]bool{"what about": true, "how about": true, "how come": true, "how many": true,
		"how much": true, "how long": true, "how often": true, "how far": true, "how old": true}
	// elided open the questions that leave out "is there" or "do you
	// have": "anything new", "any plans for the summer".
	elided = wordSet(`any anything anyone anybody`)
	// markers are the discourse markers a question may follow.
	markers = wordSet(`also so and but btw anyway anyways well then`)
)

// wordSet makes a set of the words of list, separated by white space.
func wordSet(list string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(list) {
		m[w] = true
	}
	return m
}

// firstPerson reports whether s is a statement the user makes about
// themselves.
func firstPerson(s string) bool {
	l := strings.ToLower(strings.TrimSpace(s))
	for _, p := range []string{"i ", "i'm ", "i've ", "i'd ", "i'll ", "im ", "my ", "we ", "we're ", "our "} {
		if strings.HasPrefix(l, p) {
			return len(strings.Fields(l)) >= 3
		}
	}
	return false
}

func mentionsRelativeDay(s string) bool {
	l := " " + strings.ToLower(s) + " "
	for _, w := range []string{" today", " yesterday", " tomorrow", " tonight", " this morning", " last week", " next week"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// ThirdPerson rewrites a first-person sentence about the speaker as a
// third-person statement about who: "I prefer pnpm" becomes "alice prefers
// pnpm." Sentences it cannot rewrite are returned as "<who> said: <s>".
func ThirdPerson(s, who string) string {
	s = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), ".!"))
	if s == "" {
		return ""
	}
	words := strings.Fields(s)
	l := strings.ToLower(words[0])
	rest := ""
	if len(words) > 1 {
		rest = strings.Join(words[1:], " ")
	}
	var out string
	switch l {
	case "i":
		out = who + " " + conjugate(rest)
	case "i'm", "im":
		out = who + " is " + rest
	case "i've":
		out = who + " has " + rest
	case "i'd":
		out = who + " would " + rest
	case "i'll":
		out = who + " will " + rest
	case "my":
		out = who + "'s " + rest
	default:
		return who + " said: " + s + "."
	}
	out = replaceWords(out, map[string]string{
		"my": "their", "me": "them", "myself": "themselves", "mine": "theirs",
		"i": "they", "i'm": "they are", "i've": "they have",
	})
	return upperFirst(out) + "."
}

// conjugate turns "prefer pnpm" into "prefers pnpm", "am a dev" into "is a
// dev", and leaves modal constructions alone.
func conjugate(rest string) string {
	words := strings.Fields(rest)
	if len(words) == 0 {
		return rest
	}
	v := strings.ToLower(words[0])
	switch v {
	case "am":
		words[0] = "is"
	case "have":
		words[0] = "has"
	case "do":
		words[0] = "does"
	case "was", "can", "could", "will", "would", "should", "must", "might", "may",
		"don't", "didn't", "can't", "won't", "never", "always", "usually", "often", "really", "also", "just", "still":
		if len(words) > 1 && (v == "never" || v == "always" || v == "usually" || v == "often" || v == "really" || v == "also" || v == "just" || v == "still") {
			words[1] = thirdSingular(words[1])
		}
		if v == "don't" {
			words[0] = "doesn't"
		}
	case "even", "ever", "soon", "now", "sometimes", "rarely", "already", "almost":
		if len(words) > 1 {
			words[1] = thirdSingular(words[1])
		}
	default:
		if adverb(v) && len(words) > 1 { // "totally agree": the verb is the next word
			words[1] = thirdSingular(words[1])
			break
		}
		words[0] = thirdSingular(words[0])
	}
	return strings.Join(words, " ")
}

func thirdSingular(v string) string {
	l := strings.ToLower(v)
	switch {
	case pastTense[l]:
		return v
	case l == "have":
		return "has"
	case l == "do":
		return "does"
	case l == "go":
		return "goes"
	case l == "am":
		return "is"
	case strings.HasSuffix(l, "ed") || strings.HasSuffix(l, "s") && !strings.HasSuffix(l, "ss"):
		return v
	case strings.HasSuffix(l, "ss") || strings.HasSuffix(l, "sh") || strings.HasSuffix(l, "ch") || strings.HasSuffix(l, "x") || strings.HasSuffix(l, "o"):
		return v + "es"
	case strings.HasSuffix(l, "y") && len(l) > 1 && !strings.ContainsRune("aeiou", rune(l[len(l)-2])):
		return v[:len(v)-1] + "ies"
	}
	return v + "s"
}

// adverb reports whether w is an adverb in -ly ("totally", "finally",
// "recently"): a word of five letters or more so ending, less the verbs
// that end so ("apply", "reply", "rally", …).
func adverb(w string) bool {
	switch w {
	case "apply", "reply", "supply", "comply", "imply", "multiply", "rally", "tally", "bully":
		return false
	}
	return len(w) >= 5 && strings.HasSuffix(w, "ly")
}

// pastTense holds common irregular past forms, which take no -s: "I went"
// is "Ann went", not "Ann wents". Forms that are the present too ("read",
// "put", "cut", "set") are left out: they are conjugated as present.
var pastTense = map[string]bool{
	"went": true, "got": true, "made": true, "took": true, "saw": true, "came": true, "had": true,
	"did": true, "said": true, "felt": true, "found": true, "gave": true, "knew": true, "left": true,
	"met": true, "ran": true, "thought": true, "told": true, "bought": true, "brought": true,
	"began": true, "became": true, "wrote": true, "kept": true, "lost": true, "heard": true,
	"won": true, "sent": true, "spent": true, "built": true, "caught": true, "taught": true,
	"chose": true, "drove": true, "ate": true, "fell": true, "forgot": true, "held": true,
	"paid": true, "sat": true, "sold": true, "slept": true, "spoke": true, "stood": true,
	"understood": true, "wore": true, "grew": true, "drew": true, "flew": true, "threw": true,
	"broke": true, "woke": true, "led": true, "meant": true, "taken": true, "been": true,
	"gone": true, "done": true, "seen": true, "swam": true, "sang": true, "rode": true,
}

func replaceWords(s string, repl map[string]string) string {
	words := strings.Fields(s)
	for i := 1; i < len(words); i++ { // keep the subject
		w := words[i]
		core := strings.TrimRightFunc(w, func(r rune) bool { return unicode.IsPunct(r) && r != '\'' })
		if r, ok := repl[strings.ToLower(core)]; ok {
			words[i] = r + w[len(core):]
		}
	}
	return strings.Join(words, " ")
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// kindWords classifies facts into seed 004's kinds; first match wins, in
// this order (curated kinds first, so a health fact is never auto-promoted
// as a preference).
var kindWords = []struct {
	kind  string
	words []string
}{
	{"health", []string{"allergic", "allergy", "diet", "vegan", "vegetarian", "gluten", "medication", "doctor", "diabet", "asthma", "health", "sleep", "injur", "lactose"}},
	{"fiscal", []string{"budget", "salary", "price", "pricing", "invoice", "billing", "pay ", "paid", "cost", "$", "€", "£", "tax", "bank"}},
	{"identity", []string{"my name", "call me", "pronoun", "years old", "born", "my handle", "my username", "i am a ", "i'm a "}},
	{"people", []string{"wife", "husband", "partner", "son", "daughter", "mother", "father", "mom", "dad", "brother", "sister", "friend", "colleague", "teammate", "boss", "manager", "coworker"}},
	{"location", []string{"i live", "based in", "moved to", "my city", "timezone", "time zone", "located in"}},
	{"constraint", []string{"must ", "must not", "never ", "always ", "required", "require", "can't", "cannot", "not allowed", "no more than", "at most", "at least"}},
	{"infra", []string{"port", "host", "server", "postgres", "mysql", "redis", "kubernetes", "k8s", "docker", "aws", "gcp", "azure", "database", "cluster", "deploy", "nginx", "vpc", "dns"}},
	{"tooling", []string{"npm", "pnpm", "yarn", "go ", "golang", "python", "rust", "typescript", "javascript", "react", "vue", "framework", "library", "compiler", "editor", "vim", "emacs", "vscode", "ide", "linter", "build", "git", "cargo", "pip", "uv "}},
	{"project", []string{"project", "repo", "working on", "building", "app", "product", "launch", "milestone", "architecture", "roadmap"}},
	{"preference", []string{"prefer", "like", "love", "hate", "dislike", "favorite", "favourite", "enjoy", "rather"}},
}

// Classify assigns one of seed 004's ten kinds to a fact sentence, and says
// whether the sentence is an explicit statement (worth a higher
// confidence). Unmatched sentences are "preference".
func Classify(s string) (kind string, explicit bool) {
	l := " " + strings.ToLower(s) + " "
	kind = "preference"
	for _, kw := range kindWords {
		for _, w := range kw.words {
			if strings.Contains(l, w) {
				kind = kw.kind
				goto done
			}
		}
	}
done:
	for _, p := range []string{"i prefer", "my name is", "i always", "i never", "i am ", "i'm ", "i use", "i live", "i work", "my ", "i'm allergic", "i am allergic"} {
		if strings.Contains(l, " "+p) {
			explicit = true
			break
		}
	}
	return kind, explicit
}
