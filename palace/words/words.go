// Package words is where loci splits text into words, for every purpose
// but one: query terms, the fact queue's near-duplicate test, closet
// keywords, the dreamer's text signatures and the hooks' coverage measure
// all split here, by one rule, and fold or stem words with the helpers
// below; Legible, which tells words written as words from code, reads a
// text's words as written, punctuation inside them and all. The exception is the keyword index's own tokenizer (palace/bm25),
// which must equal SQLite FTS5's token for token and so keeps FTS5's rules
// (with rules of its own: CJK text in characters and character pairs,
// Russian and Arabic stemmed as themselves).
//
// A word is a maximal run of letters, digits and combining marks. Two
// options widen it: an apostrophe between word characters ("don't") and an
// underscore between them ("fact_horizon"). Runs of Han, Hiragana and
// Katakana, scripts written without spaces, are words of their own, apart
// from any letters around them, and are marked so callers can split them
// further (the hooks take their character bigrams).
package words

import (
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Option widens what a word holds.
type Option uint8

const (
	// Apostrophes keeps an apostrophe (' or ’) between word characters
	// inside the word: "don't", "Alice's".
	Apostrophes Option = 1 << iota
	// Underscores keeps an underscore between word characters inside the
	// word, as identifiers are written: "fact_horizon".
	Underscores
)

// Word is one word of a text: Text is the slice of the original (case as
// written), at byte offsets Start and End. CJK marks a run of Han,
// Hiragana or Katakana.
type Word struct {
	Text       string
	Start, End int
	CJK        bool
}

// IsCJK reports whether r belongs to a script written without spaces
// between words: Han ideographs, Hiragana and Katakana. (Hangul separates
// words with spaces, so it counts like Latin.)
func IsCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r)
}

// IsWordRune reports whether r is part of a word: a letter, a digit or a
// combining mark (so "café" written with a combining accent stays one
// word).
func IsWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// Each calls fn with the words of text in order.
func Each(text string, opt Option, fn func(Word)) {
	start, cjk := -1, false
	joiner := -1 // offset of a pending apostrophe or underscore
	emit := func(end int) {
		if start >= 0 {
			fn(Word{Text: text[start:end], Start: start, End: end, CJK: cjk})
		}
		start, joiner = -1, -1
	}
	for i, r := range text {
		switch {
		case IsWordRune(r):
			c := IsCJK(r)
			if start >= 0 && c != cjk {
				emit(i)
			}
			if start < 0 {
				start, cjk = i, c
			}
			joiner = -1
		case start >= 0 && !cjk && joiner < 0 && (opt&Apostrophes != 0 && (r == '\'' || r == '’') || opt&Underscores != 0 && r == '_'):
			joiner = i // kept only if a word character follows
		default:
			if joiner >= 0 {
				emit(joiner)
			} else {
				emit(i)
			}
		}
	}
	if joiner >= 0 {
		emit(joiner)
	} else {
		emit(len(text))
	}
}

// Lower returns text's words in lower case.
func Lower(text string, opt Option) []string {
	var out []string
	Each(text, opt, func(w Word) { out = append(out, strings.ToLower(w.Text)) })
	return out
}

// EachPair calls fn with the units a run of CJK characters (a Word whose
// CJK is set) is compared in: each pair of neighbouring characters, or the
// character itself for a run of one. A clause of Chinese or Japanese is one
// word to Each, and two texts that share a word of it share its pairs (the
// keyword index cuts such runs the same way, with single characters too).
func EachPair(run string, fn func(string)) {
	rs := []rune(run)
	if len(rs) == 1 {
		fn(run)
		return
	}
	for i := 0; i+1 < len(rs); i++ {
		fn(string(rs[i : i+2]))
	}
}

// Unaccented is s without its accents ("José" → "Jose", "Zoë" → "Zoe"), as
// people often type a name: each letter decomposed and its combining marks
// dropped. A letter that is not a base letter and a mark ("ø", "ł") stays.
func Unaccented(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return norm.NFC.String(b.String())
}

// Fold is the lightest normalisation, for matching a word against a
// keyword list: lower case, and a plural "s" dropped ("ports" meets
// "port", "class" keeps its "ss").
func Fold(w string) string {
	w = strings.ToLower(w)
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		w = w[:len(w)-1]
	}
	return w
}

// Stem strips the commonest English inflections of a lower-case word, so
// that "deploys", "deployed" and "deploying" all give "deploy": a light
// suffix stripper applied alike to both sides of a comparison, not a full
// stemmer (the keyword index uses Porter's, in palace/bm25).
func Stem(w string) string {
	n := len(w)
	switch {
	case n > 5 && strings.HasSuffix(w, "ing"):
		w = undouble(w[:n-3])
	case n > 4 && strings.HasSuffix(w, "ed"):
		w = undouble(w[:n-2])
	case n > 4 && strings.HasSuffix(w, "ies"):
		w = w[:n-3] + "y"
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		w = w[:n-1]
	}
	if len(w) > 4 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

// undouble turns a final doubled consonant into one ("runn" to "run").
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouslz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// stopwords are dropped from keyword queries and from word comparisons:
// they match nearly every drawer and drown the words that carry the
// question. The list is the usual English function words plus question
// words ("when", "did").
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are
	as at be because been before being below between both but by can could did do does doing down
	during each few for from further had has have having he her here hers herself him himself his how
	i if in into is it its itself just me more most my myself no nor not now of off on once only or
	other our ours ourselves out over own same she should so some such than that the their theirs them
	themselves then there these they this those through to too under until up very was we were what
	when where which while who whom why will with would you your yours yourself yourselves also ever
	s t don doesn didn isn wasn aren weren won wouldn shouldn couldn ve ll re d m o y let lets get got
	tell say said like may might must shall much many`) {
		m[w] = true
	}
	return m
}()

// IsStopword reports whether w (lower case) is one of the function words
// that queries and word comparisons drop.
func IsStopword(w string) bool { return stopwords[w] }

// Stopwords lists the words IsStopword knows, in no particular order.
func Stopwords() []string { return slices.Collect(maps.Keys(stopwords)) }

// reactions are the words of a message that reacts and says nothing of
// its own: English interjections and backchannels ("wow", "lol", "yep"),
// greetings and thanks, and the adjectives a chat answers with alone
// ("cool", "awesome", "congrats"). The list was written down before it was
// measured, as a closed class (palace/RECALL.md, "Texts that only react").
// They are kept with their doubled letters folded ("awww", "yesss",
// "coool" are the same reaction).
var reactions = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`oh ah aw wow whoa woah yay yes yeah yea yep yup ya yah nope nah
	ok okay okey k kk lol lmao lmfao rofl haha hah hehe heh hmm hm mm mhm uh um uhm er oops ugh huh omg
	gosh geez jeez damn dang thanks thank thx ty tysm np cool nice great awesome sure totally definitely
	absolutely indeed right true exactly agreed agree same congrats congratulations wonderful amazing
	sweet perfect good glad fun lovely fantastic brilliant bye hi hey hello hiya cheers welcome please
	sorry xoxo xd wtf`) {
		m[squeeze(w)] = true
	}
	return m
}()

// IsReaction reports whether w (lower case) is a word of reaction: one of
// the reactions above, however many times its letters are doubled, or
// laughter ("haha", "ahahah", "hehe", "lolol").
func IsReaction(w string) bool {
	w = squeeze(w)
	return reactions[w] || isLaughter(w)
}

// squeeze folds each run of one letter to a single letter.
func squeeze(w string) string {
	var b strings.Builder
	var last rune
	for i, r := range w {
		if i > 0 && r == last {
			continue
		}
		b.WriteRune(r)
		last = r
	}
	return b.String()
}

// isLaughter reports whether a squeezed word is laughter: "ha" or "he"
// repeated (after an optional "a", before an optional "h"), or "lol"
// extended ("lolol").
func isLaughter(w string) bool {
	s := strings.TrimPrefix(w, "a")
	s = strings.TrimSuffix(s, "h")
	if len(s) >= 2 && len(s)%2 == 0 {
		ok := true
		for i := 0; i < len(s); i += 2 {
			if s[i] != 'h' || (s[i+1] != 'a' && s[i+1] != 'e') {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	if len(w) >= 3 && len(w)%2 == 1 && w[0] == 'l' {
		for i := 1; i < len(w); i += 2 {
			if w[i] != 'o' || w[i+1] != 'l' {
				return false
			}
		}
		return true
	}
	return false
}

// standard maps the forms of English words that a question about them
// rarely writes to the word it does. First the informal forms people
// write in chats: clippings ("fam", "pic", "convo", "vacay"), texting
// spellings ("tmrw", "bday", "ppl") and the family words of speech
// ("mom", "dad", "hubby"). Only content words with one common sense are
// listed; a form with two is left out ("doc": doctor or document, "app":
// software or a job application, "min": minute or minimum, "hr": hour or
// human resources, "bro": a brother or anyone addressed, "bike", "hw",
// "apt", "sec", "pro"), as a wrong word matches questions the text is not
// about. This is lexical normalisation of short messages (Han and Baldwin
// 2011), from a closed list written down as a whole before it was
// measured, then read again for forms of two senses (palace/RECALL.md,
// "Informal words"). Then British spellings, read as the American ones
// ("favourite", "organised", "travelling", "centre"): a conversation
// written in one and a question in the other share no word otherwise, and
// Porter's stemmer does not join them ("organis", "organiz"). Either side
// may be written either way; both are read in the one spelling. Last, the
// past forms of the common irregular English verbs, read as the verb
// ("went" go, "bought" buy, "taught" teach): a question asks "when did
// she go", "what did he buy", and the text that answers it says "I went",
// "we bought", which Porter's stemmer, made for regular endings, does not
// join. A form is left out where it, or its verb, has a second common
// sense a question would ask about: "left" (the side), "rose", "lay",
// "bit", "lit", "shot", "led", "fed", "sat", "born", "ground", "wound";
// "fell" and "fallen" (fall is a season), "broke" and "broken" (a break),
// "tore" and "torn" (a tear), "meant" (mean), "dealt" (a deal); "won",
// which "won't" holds; and those whose verb is a stopword ("got", "said",
// "told", "did", "had"). And the irregular plurals of nouns, read as the
// noun ("children" child, "wolves" wolf, "criteria" criterion), which
// Porter's stemmer does not join to it either, but "men" (a man is also
// anyone spoken to: "man, that was close"), "leaves" and "lives" (verbs as
// often) and "people" (not the plural a question writes of "person").
var standard, standardLongest = func() (map[string]string, int) {
	m, longest := map[string]string{}, 0
	for _, line := range strings.Split(`fam=family
	fav fave=favorite
	favs faves=favorites
	pic pix=photo picture
	pics=photos pictures
	vid=video
	vids=videos
	convo=conversation
	convos=conversations
	vacay=vacation
	bday=birthday
	bdays=birthdays
	xmas=christmas
	congrats=congratulations
	info=information
	uni=university
	prof=professor
	profs=professors
	grad=graduate
	grads=graduates
	gf=girlfriend
	bf=boyfriend
	bff=best friend
	hubby=husband
	sis=sister
	mom mum mommy mummy=mother
	moms mums=mothers
	dad daddy=father
	dads=fathers
	grandma granny=grandmother
	grandpa gramps=grandfather
	kiddo=child
	kiddos=child
	tmrw tmr tmrow 2moro 2morrow=tomorrow
	tonite=tonight
	nite=night
	wknd=weekend
	yr=year
	yrs=years
	wk=week
	wks=weeks
	hrs=hours
	ppl=people
	govt=government
	biz=business
	rehab=rehabilitation
	chem=chemistry
	econ=economics
	maths=mathematics
	deets=details
	veggie=vegetable
	veggies=vegetables
	brekkie=breakfast
	hols=holidays
	mag=magazine
	mags=magazines
	mic=microphone
	celeb=celebrity
	celebs=celebrities
	champ=champion
	champs=champions
	limo=limousine
	fridge=refrigerator
	intro=introduction
	insta=instagram
	luv=love
	colour=color
	colours=colors
	coloured=colored
	colourful=colorful
	favourite=favorite
	favourites=favorites
	honour=honor
	honoured=honored
	neighbour=neighbor
	neighbours=neighbors
	neighbourhood=neighborhood
	humour=humor
	flavour=flavor
	flavours=flavors
	behaviour=behavior
	labour=labor
	harbour=harbor
	rumour=rumor
	endeavour=endeavor
	organise=organize
	organised=organized
	organising=organizing
	organisation=organization
	organisations=organizations
	organiser=organizer
	realise=realize
	realised=realized
	recognise=recognize
	recognised=recognized
	apologise=apologize
	apologised=apologized
	analyse=analyze
	analysed=analyzed
	centre=center
	centres=centers
	theatre=theater
	theatres=theaters
	metre=meter
	metres=meters
	litre=liter
	litres=liters
	fibre=fiber
	catalogue=catalog
	travelled=traveled
	travelling=traveling
	traveller=traveler
	travellers=travelers
	cancelled=canceled
	cancelling=canceling
	jewellery=jewelry
	defence=defense
	licence=license
	offence=offense
	grey=gray
	tyre=tire
	tyres=tires
	cheque=check
	programme=program
	programmes=programs
	pyjamas=pajamas
	mould=mold
	ageing=aging
	storey=story
	judgement=judgment
	aeroplane=airplane
	aluminium=aluminum
	cosy=cozy
	sceptical=skeptical
	moustache=mustache
	skilful=skillful
	paediatrician=pediatrician
	anaesthesia=anesthesia
	encyclopaedia=encyclopedia
	went gone=go
	bought=buy
	saw seen=see
	took taken=take
	made=make
	ran=run
	ate eaten=eat
	found=find
	gave given=give
	taught=teach
	thought=think
	met=meet
	began begun=begin
	wrote written=write
	felt=feel
	brought=bring
	caught=catch
	flew flown=fly
	drove driven=drive
	rode ridden=ride
	sang sung=sing
	swam swum=swim
	drew drawn=draw
	grew grown=grow
	knew known=know
	lost=lose
	paid=pay
	sold=sell
	sent=send
	spent=spend
	built=build
	chose chosen=choose
	spoke spoken=speak
	wore worn=wear
	held=hold
	kept=keep
	slept=sleep
	stood=stand
	understood=understand
	came=come
	became=become
	forgot forgotten=forget
	heard=hear
	hid hidden=hide
	shook shaken=shake
	stole stolen=steal
	threw thrown=throw
	woke woken=wake
	blew blown=blow
	dug=dig
	fought=fight
	hung=hang
	lent=lend
	sought=seek
	stuck=stick
	swung=swing
	froze frozen=freeze
	forgave forgiven=forgive
	bent=bend
	dreamt=dream
	swept=sweep
	wept=weep
	fled=flee
	children=child
	grandchildren=grandchild
	women=woman
	feet=foot
	teeth=tooth
	mice=mouse
	geese=goose
	oxen=ox
	wives=wife
	knives=knife
	wolves=wolf
	halves=half
	shelves=shelf
	loaves=loaf
	thieves=thief
	calves=calf
	scarves=scarf
	cacti=cactus
	fungi=fungus
	criteria=criterion
	phenomena=phenomenon
	analyses=analysis
	crises=crisis
	diagnoses=diagnosis
	theses=thesis`, "\n") {
		forms, std, _ := strings.Cut(strings.TrimSpace(line), "=")
		for _, f := range strings.Fields(forms) {
			m[f] = std
			longest = max(longest, len(f))
		}
	}
	return m, longest
}()

// Standard returns the standard word or words that w stands for, in any
// case ("fam" and "Fam": "family", "bff": "best friend", "favourite":
// "favorite"), or "" when w is not one of the forms above.
func Standard(w string) string {
	var low [24]byte // longer than any form: folded here without an allocation
	if len(w) > standardLongest || len(w) > len(low) {
		return ""
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 0x80 {
			return "" // every form is ASCII
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	return standard[string(low[:len(w)])]
}

// EachStandard calls fn with each standard word w stands for (Standard:
// "fam" gives "family", "pics" gives "photos" and "pictures"), or with w
// itself when it stands for none: the words that compare a text with a
// question the way the keyword index does.
func EachStandard(w string, fn func(string)) {
	std := Standard(w)
	if std == "" {
		fn(w)
		return
	}
	for _, s := range strings.Fields(std) {
		fn(s)
	}
}

// CaseParts returns the parts of an identifier written in camel case, cut
// where the case changes: "RateLimiter" gives "Rate" and "Limiter",
// "parseHTTPResponse" "parse", "HTTP" and "Response", "base64Encode"
// "base64" and "Encode". A part starts at a capital that follows a lower
// case letter or a digit, and at the last capital of a run of them that
// a lower case letter follows, unless that letter is a plural's final s
// ("URLs", "APIs"). Parts of one letter are left out. It returns nil when
// fewer than two parts are left: a word in one case, a capitalised one
// ("Caroline", "NASA"), a plural acronym, "iPhone".
//
// This is the split on case change of code search tokenizers (Lucene's
// word delimiter filter, for one): the words of an identifier are what a
// person asking about the code says ("the rate limiter").
func CaseParts(w string) []string {
	// Most words have no capital after their first letter: nothing to cut.
	_, first := utf8.DecodeRuneInString(w)
	if strings.IndexFunc(w[first:], unicode.IsUpper) < 0 {
		return nil
	}
	var parts []string
	start := 0
	var prev, prev2 rune // the last two runes before i
	cut := func(end int) {
		if p := w[start:end]; utf8.RuneCountInString(p) > 1 {
			parts = append(parts, p)
		}
		start = end
	}
	for i, r := range w {
		switch {
		case i > start && unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			cut(i)
		case i > start && unicode.IsLower(r) && unicode.IsUpper(prev) && unicode.IsUpper(prev2) && w[i:] != "s":
			cut(i - utf8.RuneLen(prev))
		}
		prev2, prev = prev, r
	}
	cut(len(w))
	if len(parts) < 2 {
		return nil
	}
	return parts
}
