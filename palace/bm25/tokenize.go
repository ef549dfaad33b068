package bm25

import (
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/kljensen/snowball/russian"
)

// maxTermBytes is the longest term FTS5 stores: it cuts longer tokens (in
// documents and in queries alike) to this many bytes.
const maxTermBytes = 32768

// TokenizerVersion names the tokens Tokenize produces. Snapshots record
// it; change it with any change to Tokenize's output, and older snapshots
// are rebuilt instead of searched with tokens they do not hold.
const TokenizerVersion = 2

// Tokenize calls fn for every token of text, in order, exactly as FTS5's
// "porter unicode61 remove_diacritics 2" tokenizer produces them
// (case-folded, diacritics removed, Porter-stemmed). Each token is a new
// string that does not share memory with text.
//
// Token characters are letters, numbers and private-use characters (as of
// the Unicode version of FTS5's tables); everything else separates tokens.
// Like FTS5, Tokenize never fails: bytes that are not valid UTF-8 are
// decoded the way FTS5 decodes them, and a token longer than 32768 bytes is
// cut to that length (possibly inside a character), as FTS5 stores and
// queries it. Every token counts towards the document length FTS5's bm25()
// uses: FTS5 counts exactly the tokens Tokenize produces.
func Tokenize(text string, fn func(tok string)) {
	EachToken(text, func(tok []byte) { fn(string(tok)) })
}

// AppendTokens appends the tokens of text to dst and returns it.
func AppendTokens(dst []string, text string) []string {
	EachToken(text, func(tok []byte) { dst = append(dst, string(tok)) })
	return dst
}

// EachToken is Tokenize without an allocation per token: tok holds the
// token's bytes only until fn returns (the buffer is reused), so fn must
// copy what it keeps. A map lookup m[string(tok)] does not allocate.
func EachToken(text string, fn func(tok []byte)) {
	eachToken(text, func(tok []byte, _, _ bool) { fn(tok) })
}

// eachToken is EachToken that also says whether each token is joined to
// the one before it: written against it with no white space between, only
// punctuation ("fact_horizon", "e-mail", "3.14", "don't"). The index keeps
// the joined pairs of documents to answer query words of several tokens.
// It also says whether a token is a piece of an FTS5 token that holds
// characters of a script cut into pieces (Chinese, Japanese, Korean, Thai;
// see cjkPieces): such a piece is a term of its own in a query, never part
// of a phrase, and joined to nothing.
func eachToken(text string, fn func(tok []byte, joined, piece bool)) {
	bp := tokenBufs.Get().(*[]byte)
	buf := (*bp)[:0]
	defer func() {
		if cap(buf) <= 1<<16 {
			*bp = buf[:0]
			tokenBufs.Put(bp)
		}
	}()
	n := len(text)
	i := 0
	first, spaced, split := true, false, false
	for i < n {
		// Skip separators up to the first character of a token.
		if c := text[i]; c < 0x80 {
			if asciiFold[c] == 0 {
				spaced = spaced || asciiSpace[c]
				i++
				continue
			}
		} else {
			u61Once.Do(u61Build)
			r, next := u61Decode(text, i)
			if !u61IsTokenChar(r) {
				spaced = spaced || unicode.IsSpace(rune(r))
				i = next
				continue
			}
		}

		// Gather the token, folded, into buf. Inside a token, the combining
		// diacritics FTS5 knows also count as token characters (and fold to
		// nothing).
		buf = buf[:0]
		trailing := false // the separator ending the token is white space
		cjk := false      // the token holds a character cjkPieces splits
		wide := false     // the token holds a character beyond ASCII
		for i < n {
			if text[i] < 0x80 {
				// A run of ASCII token characters: copy it, then fold.
				j := i
				for j < n && text[j] < 0x80 && asciiFold[text[j]] != 0 {
					j++
				}
				if j == i {
					break // an ASCII separator ends the token
				}
				k := len(buf)
				buf = append(buf, text[i:j]...)
				for ; k < len(buf); k++ {
					buf[k] = asciiFold[buf[k]]
				}
				i = j
				continue
			}
			u61Once.Do(u61Build)
			r, next := u61Decode(text, i)
			i = next
			if !u61IsTokenChar(r) && !u61IsDiacritic(r) {
				trailing = unicode.IsSpace(rune(r))
				break // the separator is consumed, as FTS5 does
			}
			if f := u61Fold(r); f != 0 {
				buf = u61AppendUTF8(buf, f)
				cjk = cjk || isCJK(f&0x1FFFFF) // the character as written (u61AppendUTF8)
				wide = true
			}
		}

		if cjk {
			cjkPieces(buf, func(p []byte) { fn(p, false, true) })
			first, spaced, split = false, trailing, true
			continue
		}
		tok := buf
		switch {
		case wide && allCyrillic(tok):
			tok = russianStem(tok)
		case wide && allArabic(tok):
			tok = arabicStem(tok)
		case len(tok) >= porterMinToken && len(tok) <= porterMaxToken:
			tok = porterStem(tok)
		}
		if len(tok) > maxTermBytes {
			tok = tok[:maxTermBytes]
		}
		fn(tok, !first && !spaced && !split, false)
		first, spaced, split = false, trailing, false
	}
}

// Chinese and Japanese are written without spaces between words, and
// Korean attaches its particles to the word before them ("서울에서", "in
// Seoul"), so FTS5's unicode61 makes a whole clause one token and a word
// inside it matches nothing: "缓存" (cache) did not find "缓存使用Redis",
// nor did "redis". The index therefore cuts every token that holds such
// characters into pieces: each run of them gives its characters and its
// overlapping character pairs ("缓存使用" gives 缓 存 使 用 缓存 存使 使用),
// and the letters and digits between the runs ("redis") are tokens of
// their own, stemmed as any other. Character pairs are the usual index of
// these scripts when no dictionary of words is at hand (Lucene's CJK
// analyser; Nie, Gao, Zhang and Zhou 2000 found pairs as good as words for
// Chinese retrieval, and pairs with single characters better than either
// alone), and single characters find a word of one character ("猫", cat)
// inside a longer run. Thai, Lao, Khmer and Burmese put no space between
// words either and are cut alike (unicode61 already breaks their runs at
// each vowel or tone mark, which it takes for a separator; the pieces are
// cut from what is left). The rule has no parameter and leaves every other
// token as FTS5 makes it; the pieces count in a document's length as the
// tokens they are.

// Russian inflects its nouns in six cases and its verbs by person and
// number ("база", "базу", "базы": a database), and FTS5's Porter stemmer,
// which is English, leaves a Cyrillic token as written, so a question that
// names a thing in another case than the memory did matched nothing of it.
// A token of Cyrillic letters only is stemmed with the Snowball Russian
// stemmer instead (Lucene's Russian analyser does the same), in documents
// and queries alike. Other languages written in Cyrillic (Ukrainian,
// Bulgarian, Serbian) share most of its endings; a text and a query in one
// of them are stemmed alike, which is what matching needs. A token mixing
// Cyrillic with other letters or digits is left as FTS5 leaves it.

// allCyrillic reports whether every character of a folded token is
// Cyrillic.
func allCyrillic(tok []byte) bool {
	for i := 0; i < len(tok); {
		c, n := pieceRune(tok[i:])
		if !isCyrillic(c) {
			return false
		}
		i += n
	}
	return len(tok) > 0
}

// isCyrillic reports whether c (a folded character) is Cyrillic.
func isCyrillic(c uint32) bool {
	return c >= 0x400 && c < 0x530 || c >= 0x1C80 && unicode.Is(unicode.Cyrillic, rune(c))
}

// russianStem returns the Snowball Russian stem of a token of Cyrillic
// letters (a new slice, or tok itself for one the stemmer leaves alone),
// cut to maxTermBytes as any token is. "ё" is read as "е" first, as the
// Snowball algorithm asks: Russian is mostly printed without the dots.
func russianStem(tok []byte) []byte {
	word := string(tok)
	if strings.Contains(word, "ё") {
		word = strings.ReplaceAll(word, "ё", "е")
	}
	stem := russian.Stem(word, false)
	if stem == string(tok) || stem == "" {
		return tok
	}
	if len(stem) > maxTermBytes {
		stem = stem[:maxTermBytes]
	}
	return []byte(stem)
}

// CutInPieces reports whether r is of a script the index cuts into
// characters and character pairs (cjkPieces), as the query side needs to
// know to bound a query by the terms it becomes.
func CutInPieces(r rune) bool { return r >= 0 && isCJK(uint32(r)) }

// isCJK reports whether c (a folded character) is of a script cjkPieces
// cuts: Han, Hiragana, Katakana (with the prolonged sound mark "ー" that
// Katakana words use), Hangul, Thai, Lao, Khmer or Myanmar.
func isCJK(c uint32) bool {
	if c < 0x0E00 {
		return false
	}
	r := rune(c)
	return r == 0x30FC || unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul,
		unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}

// cjkPieces calls fn with the pieces of a folded token that holds CJK
// characters (see isCJK): for each run of them, each character and each
// pair of neighbours, in order of their first character; for each run of
// other characters, that run, Porter-stemmed and cut as a whole token is.
// p holds a piece only until fn returns.
func cjkPieces(tok []byte, fn func(p []byte)) {
	var piece []byte
	for i := 0; i < len(tok); {
		c, size := pieceRune(tok[i:])
		if !isCJK(c) {
			j := i + size
			for j < len(tok) {
				c, size := pieceRune(tok[j:])
				if isCJK(c) {
					break
				}
				j += size
			}
			piece = append(piece[:0], tok[i:j]...)
			if len(piece) >= porterMinToken && len(piece) <= porterMaxToken {
				piece = porterStem(piece)
			}
			if len(piece) > maxTermBytes {
				piece = piece[:maxTermBytes]
			}
			fn(piece)
			i = j
			continue
		}
		fn(tok[i : i+size])
		if j := i + size; j < len(tok) {
			if next, nsize := pieceRune(tok[j:]); isCJK(next) {
				fn(tok[i : j+nsize])
			}
		}
		i += size
	}
}

// pieceRune decodes the character at the start of b as u61AppendUTF8
// wrote it (one to four bytes, by the lead byte), and its length.
func pieceRune(b []byte) (uint32, int) {
	c := b[0]
	n := 1
	switch {
	case c >= 0xF0:
		n = 4
	case c >= 0xE0:
		n = 3
	case c >= 0xC0:
		n = 2
	}
	if n > len(b) {
		n = len(b)
	}
	if n == 1 {
		return uint32(c), 1
	}
	v := uint32(c) & (0x7F >> n)
	for _, d := range b[1:n] {
		v = v<<6 | uint32(d&0x3F)
	}
	return v, n
}

// asciiSpace marks the ASCII white space characters.
var asciiSpace = [128]bool{' ': true, '\t': true, '\n': true, '\v': true, '\f': true, '\r': true}

// tokenBufs holds EachToken's token buffers.
var tokenBufs = sync.Pool{New: func() any {
	b := make([]byte, 0, 256)
	return &b
}}

// asciiFold maps an ASCII byte to its folded form, or to 0 for separators:
// unicode61's token characters in ASCII are the letters and digits.
var asciiFold = func() (t [128]byte) {
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c)
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = byte(c)
		t[c-'a'+'A'] = byte(c)
	}
	return t
}()

// u61Decode reads the character that starts at text[i] (a byte >= 0x80) the
// way FTS5 does, and returns it with the index after it. FTS5 is lenient: a
// lead byte takes every continuation byte that follows, however many; a
// stray continuation byte stands for itself (U+0080..U+00BF); results below
// U+0080, surrogates and U+xxFFFE/U+xxFFFF become U+FFFD; nothing else is
// checked (so values above U+10FFFF can occur).
func u61Decode(text string, i int) (uint32, int) {
	c := uint32(text[i])
	i++
	if c < 0xC0 {
		return c, i
	}
	switch {
	case c < 0xE0:
		c &= 0x1F
	case c < 0xF0:
		c &= 0x0F
	case c < 0xF8:
		c &= 0x07
	case c < 0xFC:
		c &= 0x03
	case c < 0xFE:
		c &= 0x01
	default:
		c = 0
	}
	for i < len(text) && text[i]&0xC0 == 0x80 {
		c = c<<6 + uint32(text[i]&0x3F)
		i++
	}
	if c < 0x80 || c&0xFFFFF800 == 0xD800 || c&0xFFFFFFFE == 0xFFFE {
		c = 0xFFFD
	}
	return c, i
}

// u61AppendUTF8 encodes c as FTS5 does: plain UTF-8 up to U+1FFFFF, and
// for larger values the low 21 bits in a four-byte form.
func u61AppendUTF8(b []byte, c uint32) []byte {
	switch {
	case c < 0x80:
		return append(b, byte(c))
	case c < 0x800:
		return append(b, 0xC0|byte(c>>6&0x1F), 0x80|byte(c&0x3F))
	case c < 0x10000:
		return append(b, 0xE0|byte(c>>12&0x0F), 0x80|byte(c>>6&0x3F), 0x80|byte(c&0x3F))
	}
	return append(b, 0xF0|byte(c>>18&0x07), 0x80|byte(c>>12&0x3F), 0x80|byte(c>>6&0x3F), 0x80|byte(c&0x3F))
}

// u61IsDiacritic reports whether c is one of the combining marks that
// unicode61 treats as part of the token they follow (and drops).
func u61IsDiacritic(c uint32) bool {
	if c < 0x300 || c > 0x331 {
		return false
	}
	switch {
	case c <= 0x304, c >= 0x306 && c <= 0x30C, c == 0x30F, c == 0x311, c == 0x31B,
		c >= 0x323 && c <= 0x328, c == 0x32D, c == 0x32E, c == 0x330, c == 0x331:
		return true
	}
	return false
}

// --- token characters -----------------------------------------------------
//
// unicode61's default token characters are those of the categories L*, N*
// and Co. Its category table comes from an older Unicode version (6.1) than
// Go's, and a code point the table does not list (unassigned then) counts
// as a token character, as does everything from U+100000 up. So a
// character is a separator when Go puts it in a category other than L*, N*,
// Co and Cn, except in the ranges below, where FTS5 disagrees with Go.
// TestParityCodePoints checks every code point against FTS5.

// u61SepCategories are the categories whose characters separate tokens.
var u61SepCategories = []*unicode.RangeTable{
	unicode.Cc, unicode.Cf, unicode.Cs,
	unicode.M, unicode.P, unicode.S, unicode.Z,
}

type u61Range struct{ lo, hi uint32 }

// u61TokenExtra lists ranges of token characters containing every
// character that FTS5 treats as a token character although Go gives it a
// separator category: characters assigned (as marks, punctuation or
// symbols) after Unicode 6.1. The ranges also cover token characters
// between them, to keep the list short.
var u61TokenExtra = []u61Range{
	{0x58D, 0x58E}, {0x605, 0x605}, {0x61C, 0x61D}, {0x7FD, 0x7FF},
	{0x888, 0x8E3}, {0x8FF, 0x8FF}, {0x9FD, 0x9FE}, {0xA76, 0xA76},
	{0xAFA, 0xAFF}, {0xB55, 0xB55}, {0xC00, 0xC00}, {0xC04, 0xC3C},
	{0xC77, 0xC77}, {0xC81, 0xC81}, {0xC84, 0xC84}, {0xCF3, 0xD01},
	{0xD3B, 0xD3C}, {0xD4F, 0xD4F}, {0xD81, 0xD81}, {0xEBA, 0xEBA},
	{0xECE, 0xECE}, {0x1715, 0x1715}, {0x180F, 0x1886}, {0x1AB0, 0x1ACE},
	{0x1B7D, 0x1B7E}, {0x1CF7, 0x1CF9}, {0x1DE7, 0x1DFB}, {0x2066, 0x2069},
	{0x20BA, 0x20C0}, {0x218A, 0x218B}, {0x23F4, 0x23FF}, {0x2700, 0x2700},
	{0x2B4D, 0x2B4F}, {0x2B5A, 0x2BFF}, {0x2E3C, 0x2E5D}, {0x32FF, 0x32FF},
	{0xA69E, 0xA69E}, {0xA82C, 0xA82C}, {0xA8C5, 0xA8C5}, {0xA8FC, 0xA8FF},
	{0xA9E5, 0xA9E5}, {0xAA7C, 0xAA7D}, {0xAB5B, 0xAB6B}, {0xFBC2, 0xFBC2},
	{0xFD40, 0xFDCF}, {0xFDFE, 0xFDFF}, {0xFE27, 0xFE2F},
	{0x1018C, 0x1018E}, {0x1019C, 0x101A0}, {0x102E0, 0x1037A},
	{0x1056F, 0x1056F}, {0x10877, 0x10878}, {0x10AC8, 0x10AF6},
	{0x10B99, 0x10F89}, {0x11070, 0x1107F}, {0x110C2, 0x110CD},
	{0x11145, 0x11175}, {0x111C9, 0x1166C}, {0x116B9, 0x11FFF},
	{0x12474, 0x16F4F}, {0x16F7F, 0x16F87}, {0x16FE2, 0x1CFC3},
	{0x1D1DE, 0x1D1EA}, {0x1D800, 0x1ED2E}, {0x1F0BF, 0x1F0BF},
	{0x1F0E0, 0x1F10F}, {0x1F12F, 0x1F12F}, {0x1F16C, 0x1F16F},
	{0x1F19B, 0x1F1AD}, {0x1F23B, 0x1F23B}, {0x1F260, 0x1F265},
	{0x1F321, 0x1F32F}, {0x1F336, 0x1F336}, {0x1F37D, 0x1F37F},
	{0x1F394, 0x1F39F}, {0x1F3C5, 0x1F3C5}, {0x1F3CB, 0x1F3DF},
	{0x1F3F1, 0x1F3FF}, {0x1F43F, 0x1F43F}, {0x1F441, 0x1F441},
	{0x1F4F8, 0x1F4F8}, {0x1F4FD, 0x1F4FF}, {0x1F53E, 0x1F53F},
	{0x1F544, 0x1F54F}, {0x1F568, 0x1F5FA}, {0x1F641, 0x1F644},
	{0x1F650, 0x1F67F}, {0x1F6C6, 0x1F6FC}, {0x1F774, 0x1FBCA},
}

// u61SepExtra lists the characters FTS5 treats as separators although Go
// gives them a token category: vowel signs that were spacing marks (Mc) in
// Unicode 6.1 and are letters (Lo) now.
var u61SepExtra = []u61Range{
	{0x19B0, 0x19C0}, {0x19C8, 0x19C9}, {0x1CF2, 0x1CF3},
}

// --- case folding and diacritics -----------------------------------------

// u61NoFold lists ranges where FTS5 folds nothing although Go has lower
// case forms: capitals added after Unicode 6.1 (the ranges' other
// characters are lower case or unassigned).
var u61NoFold = []u61Range{
	{0x37F, 0x37F}, {0x528, 0x52F}, {0x13A0, 0x13F5}, {0x1C90, 0x1CBF},
	{0x2C2F, 0x2C2F}, {0xA698, 0xA69B}, {0xA796, 0xA79F}, {0xA7AB, 0xA7F5},
}

// u61FoldSpecial holds the characters whose case folding is not
// unicode.ToLower: letter variants that fold to the ordinary letter.
var u61FoldSpecial = map[uint32]uint32{
	0xB5:   0x3BC, // micro sign -> mu
	0x3C2:  0x3C3, // final sigma -> sigma
	0x3D0:  0x3B2, // beta symbol
	0x3D1:  0x3B8, // theta symbol
	0x3D5:  0x3C6, // phi symbol
	0x3D6:  0x3C0, // pi symbol
	0x3F0:  0x3BA, // kappa symbol
	0x3F1:  0x3C1, // rho symbol
	0x3F5:  0x3B5, // lunate epsilon
	0x1FBE: 0x3B9, // prosgegrammeni -> iota
	0x17F:  's',   // long s
	0x1E9B: 's',   // long s with dot above
}

// u61StripGroups lists, for each ASCII letter, the lower-case letters that
// remove_diacritics 2 turns into it, and (for "") the combining marks it
// drops. Letters not listed keep their diacritics (ø, ł, đ, ß, ...).
var u61StripGroups = []struct {
	to    byte
	chars string
}{
	{'a', "àáâãäåāăąǎǟǻȁȃȧḁạảấầẩẫậắằẳẵặ"},
	{'b', "ḃḅḇ"},
	{'c', "çćĉċčḉ"},
	{'d', "ďḋḍḏḑḓ"},
	{'e', "èéêëēĕėęěȅȇȩḕḗḙḛḝẹẻẽếềểễệ"},
	{'f', "ḟ"},
	{'g', "ĝğġģǧǵḡ"},
	{'h', "ĥȟḣḥḧḩḫẖ"},
	{'i', "ìíîïĩīĭįǐȉȋḭḯỉị"},
	{'j', "ĵǰ"},
	{'k', "ķǩḱḳḵ"},
	{'l', "ĺļľḷḹḻḽ"},
	{'m', "ḿṁṃ"},
	{'n', "ñńņňǹṅṇṉṋ"},
	{'o', "òóôõöōŏőơǒǫǭȍȏȫȭȯȱṍṏṑṓọỏốồổỗộớờởỡợ"},
	{'p', "ṕṗ"},
	{'r', "ŕŗřȑȓṙṛṝṟ"},
	{'s', "śŝşšșṡṣṥṧṩ"},
	{'t', "ţťțṫṭṯṱẗ"},
	{'u', "ùúûüũūŭůűųưǔǖǘǚǜȕȗṳṵṷṹṻụủứừửữự"},
	{'v', "ṽṿ"},
	{'w', "ŵẁẃẅẇẉẘ"},
	{'x', "ẋẍ"},
	{'y', "ýÿŷȳẏẙỳỵỷỹ"},
	{'z', "źżžẑẓẕ"},
	{0, "\u0300\u0301\u0302\u0303\u0304\u0306\u0307\u0308\u0309\u030A" +
		"\u030B\u030C\u030F\u0311\u031B\u0323\u0324\u0325\u0326\u0327" +
		"\u0328\u032D\u032E\u0330\u0331"},
}

// u61FoldLow is the fold of every character below u61FoldLowN (0 for
// those that fold to nothing); every character that loses diacritics is
// in this range.
const u61FoldLowN = 0x2000

var (
	u61Once     sync.Once
	u61FoldLow  [u61FoldLowN]uint16
	u61BMPToken [0x10000 / 64]uint64 // bit set: token character
	u61Astral   []u61Range           // separators from U+10000 up, sorted
)

// u61Build fills the lookup tables; it runs once, when the first non-ASCII
// character is met.
func u61Build() {
	// Token characters.
	for i := range u61BMPToken {
		u61BMPToken[i] = ^uint64(0)
	}
	var astral []u61Range
	mark := func(lo, hi uint32, token bool) {
		for c := lo; c <= hi && c < 0x10000; c++ {
			if token {
				u61BMPToken[c>>6] |= 1 << (c & 63)
			} else {
				u61BMPToken[c>>6] &^= 1 << (c & 63)
			}
		}
		if hi >= 0x10000 && !token {
			astral = append(astral, u61Range{max(lo, 0x10000), hi})
		}
	}
	for _, t := range u61SepCategories {
		for _, r := range t.R16 {
			for c := uint32(r.Lo); c <= uint32(r.Hi); c += uint32(r.Stride) {
				mark(c, c, false)
			}
		}
		for _, r := range t.R32 {
			if r.Stride == 1 {
				mark(r.Lo, r.Hi, false)
				continue
			}
			for c := r.Lo; c <= r.Hi; c += r.Stride {
				mark(c, c, false)
			}
		}
	}
	for _, r := range u61SepExtra {
		mark(r.lo, r.hi, false)
	}
	astral = u61Merge(astral)
	for _, r := range u61TokenExtra {
		mark(r.lo, r.hi, true)
		if r.hi >= 0x10000 {
			astral = u61Subtract(astral, u61Range{max(r.lo, 0x10000), r.hi})
		}
	}
	u61Astral = astral

	// Folding below u61FoldLowN.
	var strip [u61FoldLowN]uint16 // 1+letter, or 1 for "drop"
	for _, g := range u61StripGroups {
		for _, r := range g.chars {
			strip[r] = 1 + uint16(g.to)
		}
	}
	for c := range uint32(u61FoldLowN) {
		f := u61CaseFold(c)
		if f < u61FoldLowN && strip[f] != 0 {
			f = uint32(strip[f] - 1)
		}
		u61FoldLow[c] = uint16(f)
	}
}

// u61CaseFold folds the case of the BMP character c as FTS5 does.
func u61CaseFold(c uint32) uint32 {
	if c < 0x80 {
		if c >= 'A' && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	if f, ok := u61FoldSpecial[c]; ok {
		return f
	}
	if u61In(u61NoFold, c) {
		return c
	}
	return uint32(unicode.ToLower(rune(c)))
}

// u61Fold folds the non-ASCII character c as unicode61 with
// remove_diacritics 2 does: simple case folding (as of Unicode 6.1, in the
// BMP and for Deseret only), then, for Latin letters, the removal of
// diacritics. It returns 0 for a character that folds to nothing.
func u61Fold(c uint32) uint32 {
	switch {
	case c < u61FoldLowN:
		return uint32(u61FoldLow[c])
	case c < 0x10000:
		f := u61CaseFold(c)
		if f < u61FoldLowN {
			f = uint32(u61FoldLow[f]) // e.g. the Angstrom sign, via å
		}
		return f
	case c >= 0x10400 && c < 0x10428: // Deseret capitals
		return c + 40
	}
	return c
}

// u61IsTokenChar reports whether the non-ASCII character c is a token
// character for unicode61 with its default categories.
func u61IsTokenChar(c uint32) bool {
	if c < 0x10000 {
		return u61BMPToken[c>>6]&(1<<(c&63)) != 0
	}
	if c >= 0x100000 {
		return true
	}
	return !u61In(u61Astral, c)
}

// u61In reports whether c is in one of the sorted, disjoint ranges rs.
func u61In(rs []u61Range, c uint32) bool {
	i := sort.Search(len(rs), func(i int) bool { return rs[i].hi >= c })
	return i < len(rs) && rs[i].lo <= c
}

// u61Merge sorts rs and merges overlapping or adjacent ranges.
func u61Merge(rs []u61Range) []u61Range {
	sort.Slice(rs, func(i, j int) bool { return rs[i].lo < rs[j].lo })
	var out []u61Range
	for _, r := range rs {
		if k := len(out) - 1; k >= 0 && r.lo <= out[k].hi+1 {
			out[k].hi = max(out[k].hi, r.hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

// u61Subtract removes x from the sorted, disjoint ranges rs.
func u61Subtract(rs []u61Range, x u61Range) []u61Range {
	var out []u61Range
	for _, r := range rs {
		if r.hi < x.lo || r.lo > x.hi {
			out = append(out, r)
			continue
		}
		if r.lo < x.lo {
			out = append(out, u61Range{r.lo, x.lo - 1})
		}
		if r.hi > x.hi {
			out = append(out, u61Range{x.hi + 1, r.hi})
		}
	}
	return out
}
