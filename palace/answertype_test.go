package palace

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
)

func TestAsksWhen(t *testing.T) {
	for q, want := range map[string]bool{
		"When did Audrey move to a new place?":              true,
		"when is the release?":                              true,
		"Since when has the build been red?":                true,
		"Which year did she adopt her first dog?":           true,
		"What month did we switch to Postgres?":             true,
		"How long has John been playing drums?":             true,
		"How many months passed between the two adoptions?": true,
		"What did Audrey name her puppy?":                   false,
		"Where does John work?":                             false,
		"How many dogs does Audrey have?":                   false,
		"What happens when the cache is full?":              false,
	} {
		if got := asksWhen(q); got != want {
			t.Errorf("asksWhen(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestNamesTime(t *testing.T) {
	for text, want := range map[string]bool{
		"I got a new place with a bigger backyard last week!":    true,
		"Yesterday I went bowling and got 2 strikes.":            true,
		"I've had them for 3 years! Their names are Pepper.":     true,
		"We met three friends last Tuesday in the course.":       true,
		"I moved here two months ago.":                           true,
		"The release is on 8 May.":                               true,
		"Deploy freezes start on December 15th":                  true,
		"We fly out on May 3rd.":                                 true,
		"We shipped it in 2023, after the freeze.":               true,
		"She may come with us to the park.":                      false,
		"Their names are Pepper, Precious and Panda.":            false,
		"The cache holds 100 entries and evicts the oldest one.": false,
		// The header's date is when the text was written, not a time it
		// names.
		"[D1:3] (8 May, 2023) Caroline: I went to the support group.": false,
		"[D1:4] (8 May, 2023) Caroline: I went there yesterday.":      true,
		"2024-03-02 — user: the build is red again":                   false,
		"2024-03-02 — user: the build has been red since last Friday": true,
		// informal words, read as their standard word
		"see u tmrw!":                     true,
		"we're off to the lake this wknd": true,
		"been doing it for 2 yrs now":     true,
		"the fam loved it":                false,
	} {
		if got := namesTime(text); got != want {
			t.Errorf("namesTime(%q) = %v, want %v", text, got, want)
		}
	}
}

// The word-at-a-time scan (scanNamesTime) gives the expression's answer:
// texts made of the expression's own words (every unit, count, weekday,
// season, month and modifier, in any case), numbers and other words,
// joined by one space, several, a tab, a full stop, a slash or nothing.
func TestTimeScanAgrees(t *testing.T) {
	vocab := strings.Fields(`yesterday today tonight tomorrow recently lately the other day ago
		last this next past coming previous for in over within after since until by of that every each
		second seconds minute minutes hour hours day days night nights week weeks weekend weekends
		month months year years decade decades a an one two three four five six seven eight nine ten
		eleven twelve few several couple many monday tuesday wednesday thursday friday saturday sunday
		spring summer autumn fall winter january february march april may june july august september
		october november december jan feb mar apr jun jul aug sept sep oct nov dec morning afternoon
		evening back later earlier before st nd rd th 1st 22nd 3 12 123 1999 2023 20234 4/5 7/8/24
		_ we went home cat pottery deploy release é`)
	joins := []string{" ", " ", " ", "  ", "\t", ". ", ".", "/", ", ", "", "\n", " "}
	r := rand.New(rand.NewSource(11))
	matched := 0
	for range 50000 {
		var b strings.Builder
		for i := range 1 + r.Intn(6) {
			if i > 0 {
				b.WriteString(joins[r.Intn(len(joins))])
			}
			w := vocab[r.Intn(len(vocab))]
			switch r.Intn(3) {
			case 0:
				w = strings.ToUpper(w)
			case 1:
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			b.WriteString(w)
		}
		text := b.String()
		want := reNamesTime.MatchString(text)
		if got := scanNamesTime(text); got != want {
			t.Fatalf("scanNamesTime(%q) = %v; the expression says %v", text, got, want)
		}
		if want {
			matched++
		}
	}
	if matched < 10000 || matched > 40000 {
		t.Fatalf("%d of 50000 texts named a time: the check saw too few of one kind", matched)
	}
}

// FuzzTimeScan: for any text, the scan and the expression agree.
func FuzzTimeScan(f *testing.F) {
	for _, s := range []string{"last week", "3 years ago", "on 8 May", "sept. 5th", "for the past a couple of months",
		"12/25/2023", "in 1999", "yeſterday", "the other  day", "Der Kater schläft", "ＬＡＳＴ week"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := scanNamesTime(text), reNamesTime.MatchString(text); got != want {
			t.Fatalf("scanNamesTime(%q) = %v; the expression says %v", text, got, want)
		}
	})
}

func TestQuestionNamesSpeaker(t *testing.T) {
	t.Setenv("LOCI_SPEAKER", "")
	q := readQuestion("What did Ann and the user decide about Melanie's garden?")
	for speaker, want := range map[string]bool{
		"Melanie":         true, // "Melanie's" is the word "Melanie" and "s"
		"ann@example.com": true,
		"user":            true,
		"Ann Smith":       true,
		"Caroline":        false,
		"assistant":       false,
		"the":             false, // a stopword is no name
		"":                false,
	} {
		if got := q.names(speaker); got != want {
			t.Errorf("names(%q) = %v, want %v", speaker, got, want)
		}
	}
	// A question names a speaker as people write names: a short form as
	// the question writes it (but a word in lower case that begins a name
	// does not), the name without its accents or with them, and a
	// possessive typed without its apostrophe (but not a name the question
	// only begins).
	for question, names := range map[string]map[string]bool{
		"What did Mel and her kids paint, and what car did Cal buy?": {"Melanie": true, "Calvin": true, "Caroline": false, "Mel": true},
		"what did jose cook for Zoë":                                 {"José": true, "Zoe": true, "Joseph": false},
		"what is melanies dog called and where did mels kids go":     {"Melanie": true, "Mel": true, "Caroline": false, "Melan": false},
	} {
		q := readQuestion(question)
		for speaker, want := range names {
			if got := q.names(speaker); got != want {
				t.Errorf("%q: names(%q) = %v, want %v", question, speaker, got, want)
			}
		}
	}
}

// A question in the first or second person names a speaker recorded by
// its chat role: "I" the user, "you" the assistant. Between people named
// by their names, a pronoun names no one.
func TestQuestionNamesRoleByPronoun(t *testing.T) {
	t.Setenv("LOCI_SPEAKER", "")
	for _, c := range []struct {
		question string
		named    []string
	}{
		{"What did I decide about the schema?", []string{"user", "Human", "human", "prompter"}},
		{"When is my deadline?", []string{"user", "Human", "human", "prompter"}},
		{"What did you suggest for caching?", []string{"assistant", "AI", "agent", "model", "gpt", "ChatGPT"}},
		{"Which of your ideas did I take?", []string{"user", "Human", "human", "prompter", "assistant", "AI", "agent", "model", "gpt", "ChatGPT"}},
		{"What did we decide about the schema?", nil},
		{"What did Caroline research?", []string{"Caroline"}},
	} {
		q := readQuestion(c.question)
		for _, speaker := range []string{"user", "Human", "human", "prompter", "assistant", "AI", "agent", "model", "gpt", "ChatGPT", "Caroline", "Melanie", "i"} {
			want := slices.Contains(c.named, speaker)
			if got := q.names(speaker); got != want {
				t.Errorf("%q names(%q) = %v, want %v", c.question, speaker, got, want)
			}
		}
	}
	t.Setenv("LOCI_SPEAKER", "0")
	if readQuestion("What did I decide?").names("user") {
		t.Error("LOCI_SPEAKER=0 still lifts by pronoun")
	}
}

func TestOnlyAsks(t *testing.T) {
	for _, c := range []struct {
		text      string
		addressed []string
		want      bool
	}{
		{"Do you have a favorite superhero?", nil, true},
		{"What's it about? 😊", nil, true},
		{"Where is the internship? How're you feelin' about it?", nil, true},
		{"[D1:3] (8 May, 2023) Nate: What's your favorite genre?", nil, true},
		{"Caroline: Did you go?", nil, true},
		{"How do I deploy my app to the Pi?", nil, false}, // tells of the asker
		{"Should we go hiking this weekend?", nil, false},
		{"I love fantasy and sci-fi movies.", nil, false},
		{"Spider-Man has always been a favorite of mine", nil, false},
		{"Really?!", nil, true},
		{"Great!", nil, false},
		{"你喜欢哪个超级英雄？", nil, true},
		{"", nil, false},
		{"🎉 !!", nil, false},
		// A sentence that only reacts says nothing the question does not.
		{"Wow! Is that your third one?", nil, true},
		{"Cool! Who's your favorite basketball team/player?", nil, true},
		{"Haha, congrats!! What game were you playing?", nil, true},
		{"Wow, Mel! Did you go?", []string{"Mel"}, true},
		{"Wow, Mel! Did you go?", nil, false}, // a name it does not address is what it is about
		{"Learning an instrument is really cool. What are you playing?", nil, false},
		{"Nice! That must have been a surprise. How did it feel?", nil, false},
		{"Thanks! I will. Did you go?", nil, false},
		// Messages typed without a closing mark ask by their form.
		{"do you have a favorite superhero", nil, true},
		{"omg is that your third one 😂", nil, true},
		{"whats the new puppy called", nil, true},
		{"mel did you go", []string{"mel"}, true},
		{"how many dogs do you have now", nil, true},
		{"when I was a kid we went camping every summer", nil, false},
		{"can't wait to see it", nil, false},
		{"did it!", nil, false},
		{"whats it called im always up for something new", nil, false}, // tells of the asker
	} {
		d := &Drawer{Content: c.text, Keywords: withAddressed("", c.addressed)}
		if got := onlyAsks(d); got != c.want {
			t.Errorf("onlyAsks(%q, addressing %v) = %v, want %v", c.text, c.addressed, got, c.want)
		}
	}
}

func TestQuestionsAboutAskingKeepQuestions(t *testing.T) {
	ask := &Drawer{Content: "Do you have a favorite superhero?"}
	tell := &Drawer{Content: "Spider-Man has always been a favorite of mine."}
	q := readQuestion("What superhero is Joanna a fan of?")
	if f, asks := q.lift(ask, nil); f != quietLift || !asks {
		t.Errorf("a text that only asks: lift %v (asks %v), want %v", f, asks, quietLift)
	}
	if f, asks := q.lift(tell, nil); f != 1 || asks {
		t.Errorf("a text that tells: lift %v (asks %v), want 1", f, asks)
	}
	if f, _ := readQuestion("What did Nate ask Joanna about superheroes?").lift(ask, nil); f != 1 {
		t.Errorf("a question about what was asked: lift %v, want 1", f)
	}
	t.Setenv("LOCI_ASKS", "0")
	if f, _ := readQuestion("What superhero is Joanna a fan of?").lift(ask, nil); f != 1 {
		t.Errorf("LOCI_ASKS=0: lift %v, want 1", f)
	}
}

func TestOnlyReacts(t *testing.T) {
	for _, c := range []struct {
		text      string
		addressed []string
		want      bool
	}{
		{"lol", nil, true},
		{"Wow, that's so cool!!", nil, true},
		{"Hahaha yesss 😂", nil, true},
		{"🎉🎉", nil, true},
		{"Thanks, Caroline!", []string{"Caroline"}, true},
		{"Thanks, Caroline!", nil, false}, // a name it does not address is what it is about
		{"[D1:4] (8 May, 2023) Melanie: Aww, congrats!", nil, true},
		{"Wow, I painted the lake too!", nil, false},
		{"Great, see you at 5", nil, false},
		{"Yes! I got the job at the bakery.", nil, false},
		{"Do you have a favorite superhero?", nil, false},
		{strings.Repeat("wow ", 60), nil, false}, // longer than a reaction
	} {
		d := &Drawer{Content: c.text, Keywords: withAddressed("", c.addressed)}
		if got := onlyReacts(d); got != c.want {
			t.Errorf("onlyReacts(%q, addressing %v) = %v, want %v", c.text, c.addressed, got, c.want)
		}
	}
}
