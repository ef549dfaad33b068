package palace

import (
	"os"

	"github.com/loci-mem/loci/palace/words"
)

// legibleShare is the share of text's words that are written as words of
// a language rather than as code (words.Legible): prose, chat, names,
// slang and numbers are legible; identifiers, calls, selectors, paths,
// operators and URLs are not. A text without words counts as legible (1).
//
// A hybrid search weighs the vector leg's vote on a drawer by the share
// of the text its vector matched that is legible (Search): the sentence
// encoder reads language, so its cosine to a function's code says little
// about which function a question in words asks for, while the keyword
// leg reads an identifier's words (words.CaseParts) as well as prose.
// Nothing is chosen: the share is the fraction of the text the encoder
// could read, and prose and chat are 1, so they rank as before. Only the
// part of the vote made by models that read language only is weighed
// (embed.LanguageShare: GloVe's and USE-lite's 0.85 of the default's
// cosine, not the hash part's, which reads identifiers as the keyword
// index does, and none of a remote model's, which is trained on code).
//
// Only the first maxLegibleBytes of text are read: a long text's passage
// vectors are each 50 words, and its whole-text vector, the one vector
// that stands for all of a 4 MiB text, is judged by its opening.
func legibleShare(text string) float64 {
	if len(text) > maxLegibleBytes {
		text = text[:maxLegibleBytes] // a character cut in two is no word
	}
	legible, all := words.Legible(text)
	if all == 0 {
		return 1
	}
	return float64(legible) / float64(all)
}

// maxLegibleBytes bounds the text legibleShare reads: 16 KiB, some 2,500
// words, far more than any passage vector's 50 (VectorPassageWords), so
// that only a long text's whole-text vector is judged by a part of it.
const maxLegibleBytes = 16 << 10

// legibleOn reports whether hybrid searches weigh the vector leg by
// legibility; LOCI_LEGIBLE=0 turns it off (for comparison).
func legibleOn() bool { return os.Getenv("LOCI_LEGIBLE") != "0" }
