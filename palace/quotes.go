package palace

import (
	"os"
	"strings"
)

// unquoted is text without the lines it quotes. A line that opens with ">"
// quotes another's words, as a reply in mail, in markdown and in the chat
// apps that export replies that way writes them ("> I went there on
// Friday" above "sounds fun! did you swim?"). What a text quotes is not
// what its speaker says, so the lifts of a search read a text without it
// (answertype.go): the time a quote names is the quoted text's, and a
// reply that quotes a statement and only asks only asks. A text of quoted
// lines alone shares them, and they are what it says. Its keywords and
// vector are not changed here: a quote that restates a text of its
// conversation is read as restated (restated.go). LOCI_QUOTES=0 reads
// quoted lines as the text's own, for comparisons.
func unquoted(text string) string {
	if !strings.Contains(text, ">") || os.Getenv("LOCI_QUOTES") == "0" {
		return text
	}
	var own []string
	quoted := false
	for line := range strings.Lines(text) {
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), ">") {
			quoted = true
			continue
		}
		own = append(own, line)
	}
	rest := strings.TrimSpace(strings.Join(own, ""))
	if !quoted || rest == "" {
		return text
	}
	return rest
}
