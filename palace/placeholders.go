package palace

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Chat exports write a line where a message held no text of its own: a
// photo or a file they leave out ("<Media omitted>", "image omitted"), or
// name in its place when they keep it ("<attached:
// 00000012-PHOTO-2023-05-30-13-53-12.jpg>", after the left-to-right mark
// iOS writes before it; "IMG-20230512-WA0007.jpg (file attached)" on a
// line of its own, Android's), a message deleted (or unsent, as iMessage
// and Messenger say), a call missed, and a mark after a message edited.
// Other apps name the photo or sticker on a line of its own: "[Photo]",
// "[Sticker]" (LINE, WeChat), "Ana sent a photo." (Messenger). Such a line
// is the export's, not the speaker's, and says nothing (withoutPlaceholders
// takes it out of what a text says: spokenWords). So a text of nothing
// else holds nothing a question could ask for: it ranks last among the
// head of a search (question.lift), and the walk to a hit's neighbours
// passes over it (neighbours), as over a line that is not a turn. A text
// that only reacts or only asks besides is read as one that only reacts
// or asks (onlyReacts, onlyAsks). The forms are the apps' own, in
// English; WhatsApp's on Android and iOS come first, since a chat memory
// is most often imported from its export. A tapback written as a text
// (below) is read the same way, and the texts after it take their
// context past it (contextKeywords). LOCI_PLACEHOLDERS=0 reads them as
// words, for comparisons.
var rePlaceholder = regexp.MustCompile(`(?i)\x{200e}?(?:<media omitted>|<attached: [^>\n]{1,200}>|<this message was edited>|` +
	`(?m:^[ \t]*[^\n<>]{1,200}?\.[a-z0-9]{2,5} \(file attached\)[ \t]*$)|` +
	`\b(?:image|video|audio|sticker|gif|document|contact card) omitted\b|` +
	`\b(?:this message was deleted|you deleted this message)\b|\bmissed (?:voice|video|group voice|group video) call\b|` +
	`(?m:^[ \t]*\[(?:photo|image|picture|video|sticker|gif|file|voice message|audio|location|contact)\][ \t]*$)|` +
	`(?-i:(?m:^[ \t]*(?:You|` + exportName + `) (?:unsent a message|sent an? (?:photo|video|GIF|sticker|attachment|link|voice message|audio clip)\.?)[ \t]*$)))`)

// exportName is a person's name as an export writes it in a line of its
// own ("Maria José unsent a message"): up to three capitalised words.
const exportName = `\p{Lu}[\p{L}\p{M}'’.-]*(?: \p{Lu}[\p{L}\p{M}'’.-]*){0,2}`

// placeholderCues are substrings of every placeholder, in the cases the
// exports write them, so that most texts are passed over without the
// expression.
var placeholderCues = []string{"omitted", "Omitted", "OMITTED", "<attached:", "(file attached)", "deleted", "Deleted", "issed ", "ISSED ", "edited>", "EDITED>", "unsent a", " sent a",
	"[Photo]", "[photo]", "[Image]", "[image]", "[Picture]", "[Video]", "[video]", "[Sticker]", "[sticker]", "[GIF]", "[File]", "[Voice message]", "[Audio]", "[Location]", "[Contact]"}

// A reaction to a message (iMessage's tapback) reaches a phone or an
// export that cannot show it on the message as a text of its own: the
// reaction's verb and the message quoted ("Loved “I got the job!”",
// "Laughed at “…”", "Emphasized “…”", "Reacted 🔥 to “…”", "Removed a
// heart from “…”", "Liked an image"; Messenger's "Reacted 😆 to your
// message" and Instagram's "Liked a message" are ones too). Such a text repeats another's words and adds
// nothing the person said, so it is read as a placeholder: a text of it
// says nothing, whatever the quote holds and however long it is.
// Only the whole text is one: "Loved “Dune”, you have to see it" says
// something. The forms are the apps' own, in English.
var (
	tapbackVerbs = []string{"Loved", "Liked", "Disliked", "Laughed at", "Emphasized", "Emphasised", "Questioned"}
	tapbackMedia = []string{"image", "photo", "video", "movie", "attachment", "audio message", "sticker", "GIF", "message"}
	reTapback    = regexp.MustCompile(`^(?:(?:` + strings.Join(tapbackVerbs, "|") + `|Reacted \S{1,16} to|Removed an? [^“"\n]{1,30} from) (?:“(?s:.*)”|"(?s:.*)")|Reacted \S{1,16} to (?:your|a|their|his|her) message|(?:` +
		strings.Join(tapbackVerbs, "|") + `) an? (?:` + strings.Join(tapbackMedia, "|") + `))$`)
	// tapbackOpenings are the words a tapback opens with, tapbackEndings
	// what it ends with.
	tapbackOpenings = append(slices.Clone(tapbackVerbs), "Reacted", "Removed")
	tapbackEndings  = append(slices.Clone(tapbackMedia), "”", `"`)
)

// isTapback reports whether text, without its header and label, is a
// reaction written as a text of its own (reTapback).
func isTapback(text string) bool {
	if !placeholdersOn() {
		return false
	}
	text = strings.TrimSpace(text)
	for _, v := range tapbackOpenings {
		if rest, ok := strings.CutPrefix(text, v); ok && strings.HasPrefix(rest, " ") {
			return reTapback.MatchString(text)
		}
	}
	return false
}

// isTapbackText reports whether the text of d, without its header and
// label, is a tapback. Its end is looked at first, so that most texts are
// passed over without reading their header.
func isTapbackText(d *Drawer) bool {
	end := strings.TrimRightFunc(d.Content, unicode.IsSpace)
	for _, e := range tapbackEndings {
		if strings.HasSuffix(end, e) {
			return isTapback(unlabelled(d.Content, d))
		}
	}
	return false
}

// withoutPlaceholders is text without the lines a chat export writes in
// place of what a message held; a tapback (isTapback) is such a line as a
// whole.
func withoutPlaceholders(text string) string {
	if isTapback(text) {
		return ""
	}
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
// label), or is a tapback, of any length. A text with no cue of either is
// passed over at the cost of a scan: the ranking asks this of every
// candidate it may lift and every neighbour it walks to.
func saysNothing(d *Drawer) bool {
	if len(d.Content) <= 4*reactionBytes && mayHoldPlaceholder(d.Content) && spokenWords(d.Content, d) == "" {
		return true
	}
	return isTapbackText(d)
}

func placeholdersOn() bool { return os.Getenv("LOCI_PLACEHOLDERS") != "0" }
