package extract

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
)

// HeuristicName is the provenance name of the heuristic extractor.
const HeuristicName = "heuristic-v1"

// Heuristic returns the deterministic, offline extractor. Given the same
// messages it always produces the same result. What it does:
//
//   - One episode per stretch. Subject: the first user sentence (at most 80
//     characters). Summary: "<Owner> discussed <subject> on <date>." plus
//     the first assistant sentence, cut to about 200 characters at a word
//     boundary. Narrative: every turn retold in the third person ("On
//     Monday, January 6, 2025 at 09:30 UTC, alice said: …"), with the date
//     written out whenever it changes.
//   - Atomic facts: each first-person declarative user sentence ("I prefer
//     pnpm", "my dog is called Rex") rewritten in the third person about the
//     owner, one sentence each, deduplicated.
//   - Profile: name, location, occupation/employer and preferences taken
//     from the same sentences with fixed patterns.
//   - Agent track: one case per stretch. Task intent: the first user
//     sentence. Approach: the assistant's tool calls in order plus its first
//     sentence. Quality: 0.5, +0.2 if the run ends with an assistant answer,
//     +0.1 if tools were used, -0.2 if a tool result reported an error, and
//     +0.2 if the user thanked or approved at the end, clamped to [0,1].
//     Key insight: the last assistant sentence containing a causal marker
//     ("because", "the fix", "turns out", "root cause", "the key"), else "".
//   - Facts: first-person user sentences classified into the ten seed-004
//     kinds by keyword; confidence 0.9 for explicit statements ("I prefer",
//     "my name is"), 0.7 otherwise.
func Heuristic() Extractor { return heuristic{} }

type heuristic struct{}

var _ Extractor = heuristic{}

func (heuristic) Name() string { return HeuristicName }

func (heuristic) Extract(ctx context.Context, owner string, agent bool, msgs []Message) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	res := Result{Episodes: []Episode{}, Cases: []AgentCase{}}
	msgs = nonEmpty(msgs)
	if len(msgs) == 0 {
		return res, nil
	}
	if owner == "" {
		owner = "the user"
	}
	if agent {
		res.Cases = append(res.Cases, agentCase(msgs))
		return res, nil
	}
	ep := episode(owner, msgs)
	own := ownMessages(msgs, owner)
	ep.Facts = atomicFacts(owner, own)
	res.Episodes = append(res.Episodes, ep)
	if prof := profile(own); len(prof) > 0 {
		res.Profile = prof
	}
	return res, nil
}

func (heuristic) Facts(ctx context.Context, msgs []Message) ([]Fact, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []Fact{}
	seen := map[string]bool{}
	for i, m := range msgs {
		if m.Role != "user" {
			continue
		}
		for _, s := range Sentences(m.Text) {
			if !firstPerson(s) || Asks(s) {
				continue
			}
			key := strings.ToLower(s)
			if seen[key] {
				continue
			}
			seen[key] = true
			kind, explicit := Classify(s)
			conf := 0.7
			if explicit {
				conf = 0.9
			}
			src := m.ID
			if src == "" {
				src = fmt.Sprintf("message %d", i+1)
			}
			out = append(out, Fact{Text: strings.TrimRight(s, " "), Kind: kind, Confidence: conf, Source: src})
		}
	}
	return out, nil
}

func nonEmpty(msgs []Message) []Message {
	out := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		if strings.TrimSpace(m.Text) != "" || len(m.ToolCalls) > 0 {
			out = append(out, m)
		}
	}
	return out
}

// speaker names the author of a message in the third person.
func speaker(m Message, owner string) string {
	switch {
	case m.SenderName != "":
		return m.SenderName
	case m.SenderID != "":
		return m.SenderID
	case m.Role == "user":
		return owner
	case m.Role == "tool":
		return "a tool"
	default:
		return "the assistant"
	}
}

// longDate writes t as an absolute date, e.g. "Monday, January 6, 2025".
func longDate(t time.Time) string { return t.Format("Monday, January 2, 2006") }

func episode(owner string, msgs []Message) Episode {
	first := msgs[0]
	for _, m := range msgs {
		if m.Role == "user" && strings.TrimSpace(m.Text) != "" {
			first = m
			break
		}
	}
	subject := clip(topicSentence(first.Text), 80)
	if subject == "" {
		subject = "Conversation"
	}
	ts := msgs[0].Timestamp
	var b strings.Builder
	lastDay := ""
	senders := []string{}
	seenSender := map[string]bool{}
	for _, m := range msgs {
		if m.SenderID != "" && !seenSender[m.SenderID] {
			seenSender[m.SenderID] = true
			senders = append(senders, m.SenderID)
		}
		text := oneLine(m.Text)
		if text == "" && len(m.ToolCalls) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		day := m.Timestamp.Format("2006-01-02")
		if day != lastDay {
			fmt.Fprintf(&b, "On %s at %s, ", longDate(m.Timestamp), m.Timestamp.Format("15:04 MST"))
			lastDay = day
		} else {
			fmt.Fprintf(&b, "At %s, ", m.Timestamp.Format("15:04"))
		}
		who := speaker(m, owner)
		switch {
		case m.Role == "tool":
			fmt.Fprintf(&b, "a tool returned: %s", quoted(clip(text, 300)))
		case len(m.ToolCalls) > 0:
			names := make([]string, len(m.ToolCalls))
			for i, tc := range m.ToolCalls {
				names[i] = tc.Name
			}
			if text != "" {
				fmt.Fprintf(&b, "%s called %s, saying: %s", who, strings.Join(names, ", "), quoted(clip(text, 300)))
			} else {
				fmt.Fprintf(&b, "%s called %s.", who, strings.Join(names, ", "))
			}
		default:
			fmt.Fprintf(&b, "%s said: %s", who, quoted(clip(text, 600)))
		}
	}
	summary := fmt.Sprintf("On %s, %s talked about: %s", longDate(ts), ownerName(msgs, owner), subject)
	if !strings.ContainsAny(summary[len(summary)-1:], ".!?…") {
		summary += "."
	}
	for _, m := range msgs {
		if m.Role == "assistant" && strings.TrimSpace(m.Text) != "" {
			summary += " The assistant responded: " + firstSentence(m.Text)
			break
		}
	}
	ep := Episode{
		Subject:   subject,
		Summary:   clip(summary, 200),
		Narrative: b.String(),
		Timestamp: ts,
		SenderIDs: senders,
	}
	return ep
}

// ownMessages keeps the user messages that speak for owner: all of them
// when the stretch has at most one distinct user sender (or none of them
// is owner), else only those sent by owner.
func ownMessages(msgs []Message, owner string) []Message {
	senders := map[string]bool{}
	for _, m := range msgs {
		if m.Role == "user" && m.SenderID != "" {
			senders[m.SenderID] = true
		}
	}
	out := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		if m.Role == "user" && (len(senders) <= 1 || m.SenderID == owner) {
			out = append(out, m)
		}
	}
	if len(out) == 0 { // owner is not among the senders: every user speaks for them
		for _, m := range msgs {
			if m.Role == "user" {
				out = append(out, m)
			}
		}
	}
	return out
}

// quoted wraps a sentence in double quotes, ending it with a full stop
// unless it ends with its own punctuation.
func quoted(s string) string {
	s = strings.ReplaceAll(s, `"`, "'")
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "…") {
		return `"` + s + `"`
	}
	return `"` + s + `."`
}

func ownerName(msgs []Message, owner string) string {
	for _, m := range msgs {
		if m.Role == "user" {
			return speaker(m, owner)
		}
	}
	return owner
}

// atomicFacts rewrites first-person user statements about the owner.
func atomicFacts(owner string, msgs []Message) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, m := range msgs {
		if m.Role != "user" {
			continue
		}
		who := speaker(m, owner)
		for _, s := range Sentences(m.Text) {
			if !firstPerson(s) || Asks(s) {
				continue
			}
			f := ThirdPerson(s, who)
			if f == "" {
				continue
			}
			if d := m.Timestamp; !d.IsZero() && mentionsRelativeDay(s) {
				f = strings.TrimRight(f, ".") + " (stated on " + d.Format("January 2, 2006") + ")."
			}
			if k := strings.ToLower(f); !seen[k] {
				seen[k] = true
				out = append(out, f)
			}
		}
	}
	return out
}

func agentCase(msgs []Message) AgentCase {
	intent := ""
	for _, m := range msgs {
		if m.Role == "user" && strings.TrimSpace(m.Text) != "" {
			intent = clip(topicSentence(m.Text), 200)
			break
		}
	}
	var tools []string
	firstAssistant := ""
	toolError := false
	for _, m := range msgs {
		switch m.Role {
		case "assistant":
			for _, tc := range m.ToolCalls {
				tools = append(tools, tc.Name)
			}
			if firstAssistant == "" && strings.TrimSpace(m.Text) != "" {
				firstAssistant = firstSentence(m.Text)
			}
		case "tool":
			l := strings.ToLower(m.Text)
			if strings.Contains(l, "error") || strings.Contains(l, "failed") || strings.Contains(l, "exception") {
				toolError = true
			}
		}
	}
	if intent == "" {
		intent = clip(firstAssistant, 200)
	}
	approach := []string{}
	if firstAssistant != "" {
		approach = append(approach, firstAssistant)
	}
	if len(tools) > 0 {
		approach = append(approach, "Tools used in order: "+strings.Join(tools, " → ")+".")
	}
	last := msgs[len(msgs)-1]
	q := 0.5
	if last.Role == "assistant" && strings.TrimSpace(last.Text) != "" {
		q += 0.2
	}
	if len(tools) > 0 {
		q += 0.1
	}
	if toolError {
		q -= 0.2
	}
	for i := len(msgs) - 1; i >= 0 && i >= len(msgs)-2; i-- {
		if msgs[i].Role == "user" && approves(msgs[i].Text) {
			q += 0.2
			break
		}
	}
	q = max(0, min(1, q))
	insight := ""
	for i := len(msgs) - 1; i >= 0 && insight == ""; i-- {
		if msgs[i].Role != "assistant" {
			continue
		}
		ss := Sentences(msgs[i].Text)
		for j := len(ss) - 1; j >= 0; j-- {
			l := strings.ToLower(ss[j])
			for _, mk := range []string{"because", "the fix", "turns out", "root cause", "the key", "the trick", "lesson"} {
				if strings.Contains(l, mk) {
					insight = clip(ss[j], 300)
					break
				}
			}
			if insight != "" {
				break
			}
		}
	}
	return AgentCase{
		TaskIntent:   intent,
		Approach:     clip(strings.Join(approach, " "), 600),
		QualityScore: float64(int(q*100+0.5)) / 100,
		KeyInsight:   insight,
		Timestamp:    msgs[0].Timestamp,
	}
}

func approves(s string) bool {
	l := strings.ToLower(s)
	for _, w := range []string{"thanks", "thank you", "perfect", "great", "works", "lgtm", "looks good"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// profile extracts simple profile fields from user statements.
func profile(msgs []Message) map[string]any {
	prof := map[string]any{}
	var prefs []string
	for _, m := range msgs {
		if m.Role != "user" {
			continue
		}
		for _, s := range Sentences(m.Text) {
			l := strings.ToLower(s)
			if v := after(s, l, "my name is "); v != "" {
				prof["name"] = v
			} else if v := after(s, l, "call me "); v != "" && strings.HasPrefix(l, "call me") {
				prof["name"] = v
			}
			if v := after(s, l, "i live in "); v != "" {
				prof["location"] = v
			} else if v := after(s, l, "i'm based in "); v != "" {
				prof["location"] = v
			} else if v := after(s, l, "i am based in "); v != "" {
				prof["location"] = v
			}
			if v := after(s, l, "i work at "); v != "" {
				prof["employer"] = v
			} else if v := after(s, l, "i work for "); v != "" {
				prof["employer"] = v
			}
			if v := after(s, l, "i work as "); v != "" {
				prof["occupation"] = v
			} else if strings.HasPrefix(l, "i am a ") || strings.HasPrefix(l, "i'm a ") {
				if v := after(s, l, " a "); v != "" && !strings.Contains(v, " who ") {
					prof["occupation"] = v
				}
			}
			for _, p := range []string{"i prefer ", "i like ", "i love ", "i always use ", "i use "} {
				if v := after(s, l, p); v != "" && strings.HasPrefix(l, p) {
					prefs = append(prefs, v)
					break
				}
			}
		}
	}
	if len(prefs) > 0 {
		sort.Strings(prefs)
		prefs = dedupe(prefs)
		anys := make([]any, len(prefs))
		for i, p := range prefs {
			anys[i] = p
		}
		prof["preferences"] = anys
	}
	return prof
}

// after returns the (original-case) words that follow marker in s, cut at
// the first clause break, or "" if marker is absent.
func after(s, lower, marker string) string {
	i := strings.Index(lower, marker)
	if i < 0 {
		return ""
	}
	v := s[i+len(marker):]
	if j := strings.IndexAny(v, ",;:!?()"); j >= 0 {
		v = v[:j]
	}
	for _, cut := range []string{" and ", " but ", " because "} {
		if j := strings.Index(strings.ToLower(v), cut); j >= 0 {
			v = v[:j]
		}
	}
	v = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(v), "."))
	if len(v) > 80 {
		return ""
	}
	return v
}

func dedupe(ss []string) []string {
	out := ss[:0]
	for i, s := range ss {
		if i == 0 || s != ss[i-1] {
			out = append(out, s)
		}
	}
	return out
}
