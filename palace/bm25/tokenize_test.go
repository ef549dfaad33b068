package bm25

import (
	"slices"
	"strings"
	"testing"
)

func TestTokenizeAPI(t *testing.T) {
	var got []string
	Tokenize("The Cats’ running-shoes", func(tok string) { got = append(got, tok) })
	want := []string{"the", "cat", "run", "shoe"}
	if !slices.Equal(got, want) {
		t.Errorf("Tokenize = %q, want %q", got, want)
	}
	dst := AppendTokens([]string{"x"}, "Ponies")
	if !slices.Equal(dst, []string{"x", "poni"}) {
		t.Errorf("AppendTokens = %q", dst)
	}
	var n int
	EachToken("hopping HOPPING", func(tok []byte) {
		n++
		if string(tok) != "hop" {
			t.Errorf("EachToken token %q", tok)
		}
	})
	if n != 2 {
		t.Errorf("EachToken gave %d tokens, want 2", n)
	}
	for _, w := range []string{"", "a", "ab", strings.Repeat("s", 65)} {
		if Stem(w) != w {
			t.Errorf("Stem(%q) = %q, want it unchanged", w, Stem(w))
		}
	}
	if s := Stem("caresses"); s != "caress" {
		t.Errorf("Stem(caresses) = %q", s)
	}
}

// benchText is a few KB of ordinary English prose.
var benchText = strings.Repeat(`Last weekend Caroline finally went to the pottery class she had been
talking about for months. She told Melanie that the instructor, a patient
woman who had been throwing pots since the nineteen-eighties, spent the
first hour explaining how clay behaves when it is too wet or too dry.
"I didn't expect it to be so physical," Caroline said afterwards. "You have
to lean into the wheel with your whole body, and if you hesitate for even a
second the walls collapse." Melanie laughed and reminded her of the time
they tried rock climbing in 2019 and Caroline refused to come down from the
second ledge. They agreed that the pottery was going better than the
climbing had. On Sunday they visited the farmers' market, bought peaches,
sourdough bread and a jar of local honey, and planned a picnic by the lake
for the following Saturday, weather permitting. Melanie's kids are excited
about swimming; her youngest has been practising with a kickboard at the
community pool every Tuesday and Thursday afternoon. Caroline mentioned
that her counselling course starts in September and that she is nervous
about the exams, but her mentor keeps encouraging her to focus on the
relationships she builds with the people she supports rather than on
the grades. They talked about books too: Melanie is reading a biography of
a famous explorer, and Caroline recommended a novel about a family running
an orchard through three generations of droughts, storms and celebrations.
`, 2)

func BenchmarkTokenize(b *testing.B) {
	ntok := len(AppendTokens(nil, benchText))
	b.SetBytes(int64(len(benchText)))
	b.ReportAllocs()
	for b.Loop() {
		Tokenize(benchText, func(string) {})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*ntok), "ns/token")
}

func BenchmarkEachToken(b *testing.B) {
	ntok := len(AppendTokens(nil, benchText))
	b.SetBytes(int64(len(benchText)))
	b.ReportAllocs()
	for b.Loop() {
		EachToken(benchText, func([]byte) {})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*ntok), "ns/token")
}

func TestJoinedTokens(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text   string
		joined string // per token: j joined to the one before, - not
	}{
		{"fact_horizon", "-j"},
		{"e-mail, U.S. 3.14 don't", "-j-j-j-j"},
		{"a  b\tc\nd", "----"},
		{"x\u00a0y x\u2003y", "----"},   // no-break and em spaces are white space
		{"a\u2014b (c)d ...e", "-j-j-"}, // an em dash, brackets and dots join
		{"café-naïve", "-j"},
		{"", ""},
	} {
		var got []byte
		eachToken(c.text, func(_ []byte, joined, _ bool) {
			if joined {
				got = append(got, 'j')
			} else {
				got = append(got, '-')
			}
		})
		if string(got) != c.joined {
			t.Errorf("%q: %s, want %s", c.text, got, c.joined)
		}
	}
}

func TestCJKPieces(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text   string
		tokens []string
		flags  string // per token: p a piece of a CJK token, j joined to the one before, - neither
	}{
		{"缓存使用Redis", []string{"缓", "缓存", "存", "存使", "使", "使用", "用", "redi"}, "pppppppp"},
		{"猫", []string{"猫"}, "p"},
		{"the 猫 sat", []string{"the", "猫", "sat"}, "-p-"},
		{"データベース", []string{"デ", "デー", "ー", "ータ", "タ", "タベ", "ベ", "ベー", "ー", "ース", "ス"}, "ppppppppppp"},
		{"서울에서", []string{"서", "서울", "울", "울에", "에", "에서", "서"}, "ppppppp"},
		// unicode61 breaks Thai at its vowel and tone marks; what is left
		// is cut the same way.
		{"ฐานข้อมูล", []string{"ฐ", "ฐา", "า", "าน", "น", "นข", "ข", "อ", "อม", "ม", "ล"}, "ppppppppppp"},
		// Letters between runs are tokens of their own, stemmed; a token
		// after a cut one is joined to nothing.
		{"running使用cats中", []string{"run", "使", "使用", "用", "cat", "中"}, "pppppp"},
		{"中文-mail e-mail", []string{"中", "中文", "文", "mail", "e", "mail"}, "ppp--j"},
		// Text without these scripts is as FTS5 makes it.
		{"fact_horizon Ναι", []string{"fact", "horizon", "ναι"}, "-j-"},
	} {
		var toks []string
		var flags []byte
		eachToken(c.text, func(tok []byte, joined, piece bool) {
			toks = append(toks, string(tok))
			switch {
			case piece:
				flags = append(flags, 'p')
			case joined:
				flags = append(flags, 'j')
			default:
				flags = append(flags, '-')
			}
		})
		if !slices.Equal(toks, c.tokens) || string(flags) != c.flags {
			t.Errorf("%q: %q %s, want %q %s", c.text, toks, flags, c.tokens, c.flags)
		}
	}
}

// A word inside a clause of Chinese, Japanese, Korean or Thai is found, by
// its characters and character pairs, and so is a word written against one
// without a space; the document holding more of the query's pairs ranks
// first.
func TestCJKWordsAreFoundInsideClauses(t *testing.T) {
	t.Parallel()
	x := New(1, 0.5)
	docs := map[int64]string{
		1: "我们每周二部署新版本到生产环境",
		2: "数据库使用PostgreSQL，缓存使用Redis",
		3: "会議は毎週月曜日の午前十時に行います",
		4: "서울에서 친구를 만났어요",
		5: "我家的小猫咪很可爱",
		6: "The deploy runs every Tuesday",
		7: "เราใช้ฐานข้อมูลสำหรับบริการทั้งหมด",
	}
	for k, text := range docs {
		x.Put(k, true, text, "")
	}
	for _, c := range []struct {
		words []string
		want  int64
	}{
		{[]string{"缓存"}, 2},
		{[]string{"redis"}, 2},
		{[]string{"什么时候部署"}, 1},
		{[]string{"会議", "いつ"}, 3},
		{[]string{"서울"}, 4},
		{[]string{"猫"}, 5},
		{[]string{"ฐานข้อมูล"}, 7},
		{[]string{"deploy"}, 6},
	} {
		hits := x.Search(c.words, 3, true, nil)
		if len(hits) == 0 || hits[0].Key != c.want {
			t.Errorf("%q: %v, want %d first", c.words, hits, c.want)
		}
	}
}

// Russian words are stemmed as Russian (Snowball), so the cases of a noun
// and the persons of a verb are one token; a token mixing Cyrillic with
// other letters or digits is left as FTS5 leaves it.
func TestRussianStems(t *testing.T) {
	t.Parallel()
	oneToken(t, [][]string{
		{"база", "базу", "базы", "базой", "Базе"},
		{"машина", "машину", "машины", "машиной"},
		{"сервер", "сервера", "серверов", "серверами"},
		{"работаю", "работает", "работают"},
	})
	for text, want := range map[string][]string{
		"сервер9 postgresql": {"сервер9", "postgresql"},
		"ёжик":               {"ежик"},
		"и в на":             {"и", "в", "на"},
	} {
		if got := AppendTokens(nil, text); !slices.Equal(got, want) {
			t.Errorf("%q: %q, want %q", text, got, want)
		}
	}
}

// Arabic words are light-stemmed (light10): the article, "and" and the
// prepositions joined to a word come off, and so do its common suffixes,
// so "البيانات" (the data) and "بيانات" (data) are one token. Letters
// written another way (hamza on alef, a final ى or ة) read alike.
func TestArabicLightStems(t *testing.T) {
	t.Parallel()
	oneToken(t, [][]string{
		{"بيانات", "البيانات", "والبيانات", "بالبيانات", "بيانه"},
		{"كتاب", "الكتاب", "للكتاب", "كتابها"},
		{"مدرسة", "المدرسة", "مدرسه", "مدرسـة"},
		{"أحمد", "احمد", "إحمد"},
	})
	// Two letters stay: a short word is not cut to nothing, nor is a
	// token of kashidas only (the fuzzer's find).
	if got := AppendTokens(nil, "لها في ١٢٣ ـ"); !slices.Equal(got, []string{"لها", "في", "١٢٣", "ـ"}) {
		t.Errorf("short words, digits and a kashida: %q", got)
	}
}

// oneToken requires the forms of each list to be one and the same token.
func oneToken(t *testing.T, lists [][]string) {
	t.Helper()
	for _, forms := range lists {
		want := AppendTokens(nil, forms[0])
		for _, f := range forms[1:] {
			if got := AppendTokens(nil, f); !slices.Equal(got, want) || len(got) != 1 {
				t.Errorf("%q is %q, %q is %q: want one token", f, got, forms[0], want)
			}
		}
	}
}

// A word written with hyphens is found by the word written without them
// ("email" finds "e-mail"); a range of numbers is not a number.
func TestHyphenatedWordsAreFoundJoined(t *testing.T) {
	t.Parallel()
	x := New(1, 0.5)
	docs := map[int64]string{
		1: "Send the invoice by e-mail",
		2: "Yoga helps me de-stress after work",
		3: "We run it 3-4 times a week",
		4: "Her well‑being matters most", // U+2011, a non-breaking hyphen
		5: "The state-of-the-art printer",
		6: "An email about something else and more words here",
	}
	for k, text := range docs {
		x.Put(k, true, text, "")
	}
	for _, c := range []struct {
		word string
		want []int64
	}{
		{"destress", []int64{2}},
		{"wellbeing", []int64{4}},
		{"stateoftheart", []int64{5}},
		{"34", nil},
	} {
		var got []int64
		for _, h := range x.Search([]string{c.word}, 5, true, nil) {
			got = append(got, h.Key)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q finds %v, want %v", c.word, got, c.want)
		}
	}
	if hits := x.Search([]string{"email"}, 5, true, nil); len(hits) != 2 {
		t.Errorf("email finds %v, want the texts that write it either way", hits)
	}
	// The joined word counts in no length: the document's other words
	// score as before.
	if a, b := x.Analyze("Send the invoice by e-mail"), x.Analyze("Send the invoice by e mail"); a.length != b.length {
		t.Errorf("lengths %d and %d", a.length, b.length)
	}
}
