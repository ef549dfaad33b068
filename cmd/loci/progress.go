package main

import (
	"fmt"
	"io"
	"time"
)

// progress shows how far a long command has got (count, rate, time left)
// on one rewritten stderr line, and only when stderr is a terminal: in a
// pipe or a log it stays quiet, as the summary says it all. At most four
// updates a second, so a fast loop is not slowed by its display.
type progress struct {
	w           io.Writer // nil: quiet
	label, unit string
	start, last time.Time
	phase       string // the note of the last Set; a new one restarts the rate
	shown       bool
}

// progressEvery is how often the line is rewritten.
const progressEvery = 250 * time.Millisecond

// newProgress returns a display for "label: done/total unit". It is quiet
// unless stderr is a terminal.
func newProgress(env *cliEnv, label, unit string) *progress {
	p := &progress{label: label, unit: unit, start: time.Now()}
	if isTerminal(env.stderr) {
		p.w = env.stderr
	}
	return p
}

// Set reports done of total (total 0: unknown) with a note such as the
// phase ("embedding"). Calls closer together than progressEvery are
// skipped, except the last one (done == total).
func (p *progress) Set(done, total int, note string) {
	if p == nil || p.w == nil {
		return
	}
	now := time.Now()
	if note != p.phase { // a new phase has its own rate and time left
		p.phase, p.start, p.last = note, now, time.Time{}
	}
	if now.Sub(p.last) < progressEvery && (total == 0 || done < total) {
		return
	}
	p.last, p.shown = now, true
	line := fmt.Sprintf("%s: %s", p.label, thousands(done))
	if total > 0 {
		line += "/" + thousands(total)
	}
	line += " " + p.unit
	if el := now.Sub(p.start).Seconds(); el >= 0.5 && done > 0 {
		rate := float64(done) / el
		line += fmt.Sprintf(", %s/s", thousands(int(rate+0.5)))
		if total > done {
			line += ", about " + (time.Duration(float64(total-done)/rate) * time.Second).Round(time.Second).String() + " left"
		}
	}
	if note != "" {
		line += " (" + note + ")"
	}
	fmt.Fprintf(p.w, "\r%s\x1b[K", line) // \x1b[K clears what a longer line left
}

// Done ends the line, if anything was shown.
func (p *progress) Done() {
	if p != nil && p.w != nil && p.shown {
		fmt.Fprintln(p.w)
		p.shown = false
	}
}

// thousands writes n with comma separators: 12,345.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// statusf prints a status line of a long command ("eval: conversation 3
// ...") on stderr when it is a terminal; quiet otherwise, like progress.
func statusf(env *cliEnv, format string, a ...any) {
	if isTerminal(env.stderr) {
		fmt.Fprintf(env.stderr, format+"\n", a...)
	}
}
