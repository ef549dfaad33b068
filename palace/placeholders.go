package palace

import (
	"os"
	"regexp"
	"strings"
)

// Chat exports write a line where a message held no text of its own: a
// photo or a file they leave out ("<Media omitted>", "image omitted",
// "<attached: 00000012-PHOTO-2023-05-30-13-53-12.jpg>", after the
// left-to-right mark iOS writes before it), a message
// deleted, a call missed, and a mark after a message edited. Such a line
// is the export's, not the speaker's, and says nothing (withoutPlaceholders
// takes it out of what a text says: spokenWords). So a text of nothing
// else holds nothing a question could ask for: it ranks last among the
// head of a search (question.lift), and the walk to a hit's neighbours
// passes over it (neighbours), as over a line that is not a turn. A text
// that only reacts or only asks besides is read as one that only reacts
// or asks (onlyReacts, onlyAsks). The forms are WhatsApp's, on Android
// and iOS, in English: a chat memory is most often imported from its
// export. LOCI_PLACEHOLDERS=0 reads them as words, for comparisons.
var rePlaceholder = regexp.MustCompile(`(?i)\x{200e}?(?:<media omitted>|<attached: [^>\n]{1,200}>|<this message was edited>|` +
	`\b(?:image|video|audio|sticker|gif|document|contact card) omitted\b|` +
	`\b(?:this message was deleted|you deleted this message)\b|\bmissed (?:voice|video|group voice|group video) call\b)`)

// placeholderCues are substrings of every placeholder, in the cases the
// exports write them, so that most texts are passed over without the
// expression.
var placeholderCues = []string{"omitted", "Omitted", "OMITTED", "<attached:", "deleted", "Deleted", "issed ", "ISSED ", "edited>", "EDITED>"}

// withoutPlaceholders is text without the lines a chat export writes in
// place of what a message held.
func withoutPlaceholders(text string) string {
	if !mayHoldPlaceholder(text) {
		return text
	}
	return strings.TrimSpace(rePlaceholder.ReplaceAllString(text, " "))
}

// mayHoldPlaceholder reports whether text holds a cue of a placeholder
// (and the reading is on).
func mayHoldPlaceholder(text string) bool {
	if !placeholdersOn() {
		return false
	}
	for _, cue := range placeholderCues {
		if strings.Contains(text, cue) {
			return true
		}
	}
	return false
}

// saysNothing reports whether a text of d holds nothing but the lines a
// chat export writes in place of a message (and a header or a speaker's
// label). A text with no cue of one is passed over at the cost of a scan:
// the ranking asks this of every candidate it may lift and every
// neighbour it walks to.
func saysNothing(d *Drawer) bool {
	return len(d.Content) <= 4*reactionBytes && mayHoldPlaceholder(d.Content) && spokenWords(d.Content, d) == ""
}

func placeholdersOn() bool { return os.Getenv("LOCI_PLACEHOLDERS") != "0" }
