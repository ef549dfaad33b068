package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"
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
		if isQuestion(s) {
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

func isQuestion(s string) bool { return strings.HasSuffix(strings.TrimSpace(s), "?") }

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
