//go:build sqlite_fts5

package bm25

// These tests compare the tokenizer with SQLite FTS5's own, the contract
// the index was built to: they need go-sqlite3 built with FTS5, so they
// run under the sqlite_fts5 tag (make test runs them:
// go test -tags sqlite_fts5 ./palace/bm25/). loci itself needs no FTS5.

import (
	"database/sql"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

// The parity tests run the real FTS5 tokenizer (through an fts5vocab table
// of type instance) over the same texts as Tokenize and require the same
// terms in the same order, for every text, but for the two rules the index
// adds: a token that holds CJK characters is cut into its pieces
// (cjkPieces, checked on its own in tokenize_test.go), one of Cyrillic
// letters is stemmed as Russian (russianStem), and one of Arabic letters
// light-stemmed (arabicStem). The oracle applies them to
// the token FTS5 gives before stemming, from a second table without Porter.

// fts5Oracle is an in-memory FTS5 table with the palace's tokenizer.
type fts5Oracle struct{ db *sql.DB }

func newFTS5Oracle(t testing.TB) *fts5Oracle {
	t.Helper()
	db, err := sql.Open("sqlite3", "file::memory:")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1) // every connection to :memory: is its own database
	t.Cleanup(func() { db.Close() })
	for _, q := range []string{
		`CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)`,
		`CREATE VIRTUAL TABLE u USING fts5(x, tokenize='unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE uv USING fts5vocab(u, instance)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return &fts5Oracle{db: db}
}

// terms returns the terms FTS5 indexes for each text, ordered by offset,
// with each token that holds CJK characters cut into its pieces.
func (o *fts5Oracle) terms(t testing.TB, texts []string) [][]string {
	t.Helper()
	stemmed, plain := o.table(t, "t", "v", texts), o.table(t, "u", "uv", texts)
	out := make([][]string, len(texts))
	for d := range texts {
		if len(stemmed[d]) != len(plain[d]) {
			t.Fatalf("text %q: %d tokens with Porter, %d without", texts[d], len(stemmed[d]), len(plain[d]))
		}
		for i, tok := range plain[d] {
			switch {
			case holdsCJK(tok):
				cjkPieces([]byte(tok), func(p []byte) { out[d] = append(out[d], string(p)) })
			case allCyrillic([]byte(tok)):
				out[d] = append(out[d], string(russianStem([]byte(tok))))
			case allArabic([]byte(tok)):
				out[d] = append(out[d], string(arabicStem([]byte(tok))))
			default:
				out[d] = append(out[d], stemmed[d][i])
			}
		}
	}
	return out
}

// holdsCJK reports whether a token FTS5 made holds a character cjkPieces
// cuts at.
func holdsCJK(tok string) bool {
	for i := 0; i < len(tok); {
		c, n := pieceRune([]byte(tok[i:]))
		if isCJK(c) {
			return true
		}
		i += n
	}
	return false
}

// table returns the terms FTS5 table tab (with its fts5vocab table vocab)
// indexes for each text, ordered by offset. It also checks that the
// offsets are 0, 1, 2, ...: every token FTS5 counts in the document's
// length is a term of the list.
func (o *fts5Oracle) table(t testing.TB, tab, vocab string, texts []string) [][]string {
	t.Helper()
	if _, err := o.db.Exec(`DELETE FROM ` + tab); err != nil {
		t.Fatal(err)
	}
	tx, err := o.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	st, err := tx.Prepare(`INSERT INTO ` + tab + `(rowid, x) VALUES(?, ?)`)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range texts {
		if _, err := st.Exec(i+1, s); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	rows, err := o.db.Query(`SELECT doc, offset, term FROM ` + vocab + ` ORDER BY doc, offset`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := make([][]string, len(texts))
	for rows.Next() {
		var doc, off int
		var term []byte
		if err := rows.Scan(&doc, &off, &term); err != nil {
			t.Fatal(err)
		}
		d := doc - 1
		if off != len(out[d]) {
			t.Fatalf("text %q: FTS5 offset %d after %d terms", texts[d], off, len(out[d]))
		}
		out[d] = append(out[d], string(term))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkParity reports every text whose tokens differ from FTS5's and
// returns how many did.
func checkParity(t *testing.T, o *fts5Oracle, texts []string) int {
	t.Helper()
	want := o.terms(t, texts)
	bad := 0
	for i, text := range texts {
		got := AppendTokens(nil, text)
		if !slices.Equal(got, want[i]) {
			bad++
			t.Errorf("text %q:\n\tfts5:     %q\n\tTokenize: %q", text, want[i], got)
		}
	}
	return bad
}

func TestParityEdgeCases(t *testing.T) {
	long := func(s string, n int) string { return strings.Repeat(s, n) }
	texts := []string{
		// Empty and blank.
		"", " ", "   \t\n\r\v\f  ", "\u00a0\u2003\u3000",
		// Apostrophes, hyphens, underscores, other ASCII punctuation.
		"don't", "Caroline's", "Caroline’s new job", "rock'n'roll", "o'clock",
		"well-known state-of-the-art e-mail", "foo_bar baz__qux _x_ __init__",
		"C++ C# F#", "#hashtag @mention", "https://example.com/path?q=1&r=two#frag",
		"someone@example.org", "a/b\\c|d~e^f`g", "(parenthesised) [bracketed] {braced}",
		"“quoted” «guillemets» ‘single’", "end. Start! what? yes; no: maybe...",
		// Digits and mixtures.
		"2023", "3pm", "v1.2", "v1.2.3-rc1", "10,000.50", "1st 2nd 3rd 4th", "00123",
		"iPhone15 covid19 mp3s 1990s", "8 May, 2023 1:56 pm", "+1 (555) 010-9999",
		// Case.
		"HAPPY Happy hApPy", "GENERALIZATIONS", "McDonald's", "ABCs",
		// Accented Latin, ligatures, letters with no decomposition.
		"café", "CAFÉ", "naïve", "NAÏVE", "Ångström", "Øresund", "straße STRASSE ẞ",
		"Łódź", "ﬁ ligature ﬁnance ﬂow", "Ĳssel œuvre Æsir", "Tiếng Việt", "İstanbul ıi",
		"ǅemal ǈ ǋ", "crème brûlée", "jalapeño piñata", "Dvořák Škoda", "Ærøskøbing",
		"façade façades", "résumés", "Zoë", "niños", "Kelvin: K, Ångström sign: Å",
		"ＡＢＣ１２３ ｆｕｌｌｗｉｄｔｈ", "ſtate", "ḍḥ ṛ ẛ",
		// Combining marks: known diacritics join the token, others end it.
		"cafe\u0301", "e\u0301te\u0301", "\u0301start", "a\u0332b", "n\u0303o",
		"x\u20dd y", "a\u0345b",
		// Greek, Cyrillic, Armenian, Hebrew, Arabic, Indic, Thai, CJK.
		"Καλημέρα κόσμε", "ΣΟΦΟΣ σοφός ς", "Привет, мир! ЁЛКА ёлка", "Ԩ ԩ",
		"базу данных базы данных", "Мы используем PostgreSQL2 для всех сервисов", "ёжик ежики",
		"Київ Україна ґанок", "ґانок", "Ṡсервер x-сервера сервер9",
		"البيانات والبيانات بالبيانات بيانه", "أحمد إلى مدرسـة ١٢٣ كتابي", "کتابها",
		"Բարեւ", "שלום עולם", "مرحبا بالعالم", "नमस्ते दुनिया", "สวัสดีครับ",
		// Scripts cut into pieces (cjkPieces), alone and among letters.
		"中文", "猫", "缓存使用Redis", "数据库使用PostgreSQL，缓存使用Redis", "会議は毎週月曜日の午前十時",
		"データベース ｶﾀｶﾅ", "서울에서 만나요", "Running使用running中ing", "e-mail中文 中文-mail",
		"ＡＢＣ中文１２３", "𠀀𠀁 〇々", "中́文", "x中y文z",
		"東京タワーに行きました。", "你好，世界", "안녕하세요 세계", "ᏣᎳᎩ ꭰ", "ᲐᲑᲒ აბგ",
		"𐐀𐐁𐐨", "ᦰᦱ ᳲ",
		// Symbols, emoji, numbers of other kinds.
		"I ❤️ NY", "😀👍🏽 🥰 🤖", "family: 👨\u200d👩\u200d👧", "flags 🇫🇷🇩🇪",
		"Ⅻ ① x² ½ ٣", "₹100 €5 £3 ¥7 ₺9", "→ ⇒ ∑ ∞", "☃☃☃",
		// Private use, format characters, the highest planes.
		"\ue000\ue001", "x\uf8ffy", "\U000F0000 \U0010FFFD", "foo\u200bbar",
		"foo\u00a0bar", "soft\u00adhyphen", "\ufeffbom", "rtl\u200fmark",
		"tag\U000E0041", "vs\ufe0f16",
		// Invalid UTF-8 and odd encodings.
		"\xff\xfe", "abc\xc3", "\xc3", "\xc3\xa9\xa9", "\xe2\x82", "\x80abc",
		"\xaa\xb5\xba", "x\xb2y", "\xf7\xbf\xbf\xbf", "\xf4\x90\x80\x80",
		"\xf8\x88\x80\x80\x80", "\xfc\x84\x80\x80\x80\x80", "\xed\xa0\x80",
		"\xef\xbf\xbe", "\xef\xbf\xbf", "\xc0\x80", "\xc1\xbf", "\xe0\x80\xaf",
		"\xe0\x82\x80", "a\x00b", "caf\xc3\xa9\xff", "\xfe\xff\xfe\x80\x80",
		"\xe4\xb8\xad\x80\x80\x80\x80\x80\x80\x80",
		// Tokens around the porter limits (3..64 bytes) and FTS5's term limit.
		"ie ies sss eed aed ing ying yed",
		long("a", 58) + "ing", long("a", 61) + "ing", long("a", 62) + "ing",
		long("b", 60) + "ies", long("b", 61) + "ies", long("b", 62) + "sses",
		long("é", 30) + "ing", long("é", 31) + "ing",
		long("ж", 31) + "s", long("ж", 32) + "s",
		long("x", 40000), "a" + long("ж", 20000), long("ab", 20000) + " tail",
		// A paragraph.
		"Hey Mel! I went to the LGBTQ+ support group yesterday; it was so powerful. " +
			"We're planning a 5-day hike on 8/12—can't wait! 🎉",
	}
	o := newFTS5Oracle(t)
	checkParity(t, o, texts)
}

// porterWords stress the Porter steps (most from Porter's paper and the
// stemmer's usual test vocabulary).
var porterWords = strings.Fields(`
generalizations generalization generalize general oscillators oscillator
happy happiness sky skies agreed agree feed feeds hoping hope hoped hopping
filing file filed controll controlling controlled roll rolling rolled
relational relate conditional condition rational valenci hesitanci digitizer
conformabli radicalli differentli vileli analogousli vietnamization
predication operator feudalism decisiveness hopefulness callousness
formaliti sensitiviti sensibiliti triplicate formative formalize
electriciti electrical hopeful goodness revival allowance inference airliner
gyroscopic adjustable defensible irritant replacement adjustment dependent
adoption homologou communism activate angulariti homologous effective
bowdlerize probate rate cease caresses ponies ties caress cats plastered
bled motoring sing conflated troubled sized tanned falling hissing fizzed
failing fail fails failed
y yy yyy yes you toy toys boy sayyid ayyub yelling eyeing playing flying
crying buying trying tried tries spying
abli bli eli ousli alli entli logi biliti aliti iviti
ational tional enci anci izer ization ation ator alism iveness fulness
ousness icate ative alize iciti ical ful ness
al ance ence er ic able ible ant ement ment ent ion ou ism ate iti ous ive ize
sion tion ssion ation adoption erosion version
feed bleed bleeding exceed exceeding proceed proceeding succeed
luxuriating luxuriated hopped hopper filling filler
agreement disagreement
ceased cease ceasing
probably probable ability abilities stability
universities university universal universe
running runner runs ran
communication communications communicate communicating
trouble troubles troubling troubled
size sizes sizing
tanning tans tan
abated abating abate
bibble bibbling
bizzed bizz
cabled cabling
hissed hiss hisses
fizz fizzes fizzing
ied eed aed oed ued yed
ies sses ss s
`)

func TestParityPorterWords(t *testing.T) {
	o := newFTS5Oracle(t)
	var texts []string
	for _, w := range porterWords {
		texts = append(texts, w, strings.ToUpper(w), strings.ToUpper(w[:1])+w[1:])
	}
	checkParity(t, o, texts)

	// Stem agrees with FTS5 on each lower-case word on its own.
	want := o.terms(t, porterWords)
	for i, w := range porterWords {
		if len(want[i]) != 1 || Stem(w) != want[i][0] {
			t.Errorf("Stem(%q) = %q, fts5 %q", w, Stem(w), want[i])
		}
	}
}

// TestParityPorterCombinations stems many made-up words: stems of various
// shapes with every suffix the steps know, and the suffixes chained.
func TestParityPorterCombinations(t *testing.T) {
	stems := strings.Fields(`a e y ay ey by cy sy tr str bab bob cat dog sky
		spy try toy boy happ hop hope fil file tan tann roll controll sing
		sens sensit relat condit ration valen hesit digit conform radic
		differ vil analog vietnam predic oper feud decis hope callous formal
		tripl electr revi allow infer airlin gyroscop adjust defens irrit
		replac depend adopt homolog commun activ angular effect bowdler prob
		ceas caress poni plaster motor conflat troubl siz fizz hiss fail
		bl gen gener generaliz oscill ag agr agre fe fee ple plea
		xyz wxy ww xx yy zz ll ss bb dd ff gg mm nn pp rr tt vv
		naï café ж über`)
	suffixes := strings.Fields(`s es ies sses ss ed eed ing y ly ies ied
		ational tional enci anci izer logi bli alli entli eli ousli ization
		ation ator alism iveness fulness ousness aliti iviti biliti icate
		ative alize iciti ical ful ness al ance ence er ic able ible ant
		ement ment ent ion sion tion ou ism ate iti ous ive ize e le ll
		izations ational alities fulnesses izing atives`)
	var texts []string
	for _, s := range stems {
		for _, x := range suffixes {
			texts = append(texts, s+x)
			for _, y := range []string{"s", "ing", "ed", "ly", "ness"} {
				texts = append(texts, s+x+y)
			}
		}
	}
	o := newFTS5Oracle(t)
	checkParity(t, o, texts)
}

// TestParityRandom compares random strings built from fragments that
// exercise separators, folding, diacritics, Porter suffixes and broken
// UTF-8.
func TestParityRandom(t *testing.T) {
	frags := []string{
		"a", "e", "i", "o", "u", "y", "s", "t", "l", "z", "b", "A", "Y", "S",
		"ing", "ed", "ies", "ational", "ness", "ful", "ize", "ement", "sses",
		"0", "7", " ", " ", "  ", "\t", "\n", "'", "-", "_", ".", ",", "’",
		"é", "É", "ß", "ø", "Ł", "ñ", "ſ", "ς", "Σ", "ж", "Ж", "中", "😀", "🥰",
		"\u0301", "\u0332", "\u200b", "\u00a0", "\ue000", "ᦰ", "Ꭰ", "𐐀",
		"\x80", "\xaa", "\xb5", "\xbf", "\xc3", "\xe2\x82", "\xed\xa0\x80",
		"\xef\xbf\xbe", "\xf4\x90\x80\x80", "\xf7\xbf\xbf\xbf", "\xf8", "\xfe",
		"\xff", "\x00",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	texts := make([]string, 20000)
	for i := range texts {
		var sb strings.Builder
		for range 1 + rng.IntN(24) {
			sb.WriteString(frags[rng.IntN(len(frags))])
		}
		texts[i] = sb.String()
	}
	o := newFTS5Oracle(t)
	checkParity(t, o, texts)
}

// TestParityCodePoints checks every code point (and some values beyond
// U+10FFFF that FTS5's lenient decoder can produce), inside a token and on
// its own.
func TestParityCodePoints(t *testing.T) {
	if testing.Short() {
		t.Skip("sweep over all code points skipped in -short mode")
	}
	probe := func(c uint32) string {
		var b []byte
		b = append(b, 'q')
		b = u61AppendUTF8(b, c)
		b = append(b, "q "...)
		b = u61AppendUTF8(b, c)
		return string(append(b, ' '))
	}
	var cps []uint32
	for c := uint32(0x80); c < 0x110000; c++ {
		cps = append(cps, c)
	}
	cps = append(cps, 0x110000, 0x13FFFF, 0x1FFFFF)

	const chunk = 4096
	var texts []string
	var groups [][]uint32
	for lo := 0; lo < len(cps); lo += chunk {
		g := cps[lo:min(lo+chunk, len(cps))]
		var sb strings.Builder
		for _, c := range g {
			sb.WriteString(probe(c))
		}
		texts = append(texts, sb.String())
		groups = append(groups, g)
	}
	o := newFTS5Oracle(t)
	want := o.terms(t, texts)
	for i, text := range texts {
		if slices.Equal(AppendTokens(nil, text), want[i]) {
			continue
		}
		// Report each code point of the block that differs.
		probes := make([]string, len(groups[i]))
		for j, c := range groups[i] {
			probes[j] = probe(c)
		}
		if checkParity(t, o, probes) == 0 {
			t.Errorf("block from U+%04X differs only when whole", groups[i][0])
		}
	}
}

// TestParityLoCoMo compares every distinct word of the LoCoMo
// conversations (split at white space, punctuation included) and every
// turn's text.
func TestParityLoCoMo(t *testing.T) {
	path := locomoPath()
	data := readLoCoMo(t)
	var samples []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(data, &samples); err != nil {
		t.Fatal(err)
	}
	words := map[string]bool{}
	var turns []string
	for _, s := range samples {
		for key, raw := range s.Conversation {
			if !strings.HasPrefix(key, "session_") || strings.HasSuffix(key, "_date_time") {
				continue
			}
			var ts []struct {
				Text    string `json:"text"`
				Caption string `json:"blip_caption"`
			}
			if err := json.Unmarshal(raw, &ts); err != nil {
				t.Fatalf("%s: %v", key, err)
			}
			for _, turn := range ts {
				for _, text := range []string{turn.Text, turn.Caption} {
					if text == "" {
						continue
					}
					turns = append(turns, text)
					for _, w := range strings.Fields(text) {
						words[w] = true
					}
				}
			}
		}
	}
	list := make([]string, 0, len(words))
	for w := range words {
		list = append(list, w)
	}
	sort.Strings(list)
	if len(list) < 1000 {
		t.Fatalf("only %d distinct words in %s", len(list), path)
	}
	o := newFTS5Oracle(t)
	bad := checkParity(t, o, list)
	t.Logf("LoCoMo: %d distinct words compared, %d differ", len(list), bad)
	bad = checkParity(t, o, turns)
	t.Logf("LoCoMo: %d turn texts compared, %d differ", len(turns), bad)
}
