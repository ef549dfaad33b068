package redact

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unsafe"
)

// Stable rule names, reported in Match.Rule and accepted by New, listed in
// priority order (see Rules).
const (
	RulePrivateKey     = "private-key"
	RuleSignedURLParam = "signed-url-param"
	RuleEMK            = "emk-key"
	RuleEVT            = "evt-token"
	RuleAWSAccessKeyID = "aws-access-key-id"
	RuleGitHubToken    = "github-token"
	RuleLociToken      = "loci-token"
	RuleNPMToken       = "npm-token"
	RuleGitLabToken    = "gitlab-token"
	RuleHuggingFace    = "huggingface-token"
	RuleGoogleAPIKey   = "google-api-key"
	RuleStripeKey      = "stripe-key"
	RuleAnthropicKey   = "anthropic-api-key"
	RuleOpenAIKey      = "openai-api-key"
	RuleSlackToken     = "slack-token"
	RuleVendorToken    = "vendor-token"
	RuleSlackWebhook   = "slack-webhook"
	RuleDiscordWebhook = "discord-webhook"
	RuleJWT            = "jwt"
	RuleAWSSecretKey   = "aws-secret-access-key"
	RuleBearerToken    = "bearer-token"
	RuleAuthHeader     = "authorization-header"
	RuleURLPassword    = "url-password"
	RuleGenericSecret  = "generic-secret"
)

// ruleID orders the rules by priority: when matches start at the same byte,
// the lower id names the merged match and decides the kept prefix.
type ruleID uint8

const (
	rPrivateKey ruleID = iota
	rSignedURL
	rEMK
	rEVT
	rAWSKeyID
	rGitHub
	rLoci
	rNPM
	rGitLab
	rHuggingFace
	rGoogleAPIKey
	rStripe
	rAnthropic
	rOpenAI
	rSlackToken
	rVendor
	rSlackWebhook
	rDiscordWebhook
	rJWT
	rAWSSecret
	rBearer
	rAuthHeader
	rURLPassword
	rGeneric
	numRules
)

// Redactor.mask has one bit per rule.
var _ [32 - numRules]struct{}

var ruleNames = [numRules]string{
	RulePrivateKey, RuleSignedURLParam, RuleEMK, RuleEVT, RuleAWSAccessKeyID, RuleGitHubToken,
	RuleLociToken, RuleNPMToken, RuleGitLabToken, RuleHuggingFace, RuleGoogleAPIKey, RuleStripeKey,
	RuleAnthropicKey, RuleOpenAIKey, RuleSlackToken, RuleVendorToken, RuleSlackWebhook,
	RuleDiscordWebhook, RuleJWT,
	RuleAWSSecretKey, RuleBearerToken, RuleAuthHeader,
	RuleURLPassword, RuleGenericSecret,
}

const (
	// SeedMask is appended to the first eight characters of an emk_/evt_
	// credential (seed 000): emk_a1b2_REDACTED.
	SeedMask = "_REDACTED"
	// Mask replaces the secret part of every other rule: ghp_[REDACTED].
	Mask = "[REDACTED]"
)

// Match is one secret found by Find. Start and End are byte offsets of the
// text that String replaces; the replacement keeps a short, rule-specific
// prefix of that text (see the package documentation).
type Match struct {
	Rule       string
	Start, End int
}

// span is the internal, allocation-free form of a Match.
type span struct {
	start, end int
	rule       ruleID
	keep       uint8 // bytes of s[start:] copied before the mask
}

func (m span) mask() string {
	if m.rule == rEMK || m.rule == rEVT {
		return SeedMask
	}
	return Mask
}

// Redactor holds a rule set. The zero value has no rules; use New or the
// package-level functions, which use every rule. A Redactor is immutable and
// safe for concurrent use.
type Redactor struct {
	mask uint32 // bit i set: rule i enabled
}

var std = &Redactor{mask: 1<<numRules - 1}

// Default returns the Redactor used by the package-level functions (all rules).
func Default() *Redactor { return std }

// Rules lists every rule name in priority order.
func Rules() []string { return slices.Clone(ruleNames[:]) }

// New returns a Redactor with the named rules, or with every rule when no
// name is given. Unknown names are an error.
func New(rules ...string) (*Redactor, error) {
	if len(rules) == 0 {
		return &Redactor{mask: std.mask}, nil
	}
	r := &Redactor{}
	for _, name := range rules {
		i := slices.Index(ruleNames[:], name)
		if i < 0 {
			return nil, fmt.Errorf("redact: unknown rule %q", name)
		}
		r.mask |= 1 << i
	}
	return r, nil
}

func (r *Redactor) on(id ruleID) bool { return r.mask&(1<<id) != 0 }

// add records a match of rule id over s[start:end], keeping keep bytes.
func (r *Redactor) add(dst []span, id ruleID, start, end, keep int) []span {
	if !r.on(id) || end <= start {
		return dst
	}
	return append(dst, span{start: start, end: end, rule: id, keep: uint8(keep)})
}

// spans finds every secret in s, sorted and merged so that no two overlap.
// It appends to dst and allocates only when dst's capacity is exceeded.
func (r *Redactor) spans(s string, dst []span) []span {
	if len(s) < 8 { // shorter than the shortest secret (s://u:p@)
		return dst
	}
	dst = r.scanUnderscore(s, dst)
	dst = r.scanHyphen(s, dst)
	dst = r.scanEquals(s, dst)
	dst = r.scanColon(s, dst)
	dst = r.scanJWT(s, dst)
	dst = r.scanAWSKeyID(s, dst)
	dst = r.scanBearer(s, dst)
	dst = r.scanSlash(s, dst)
	dst = r.scanTilde(s, dst)
	dst = r.scanDot(s, dst)
	if r.on(rGeneric) {
		dst = r.scanPhrase(s, dst)
	}
	return merge(dst)
}

// merge sorts spans by start (then rule priority) and folds overlapping
// spans into the first one, extending it to the furthest end, so that no
// secret byte covered by any rule survives. The first span's rule names the
// result and decides the kept prefix.
func merge(sp []span) []span {
	if len(sp) < 2 {
		return sp
	}
	slices.SortFunc(sp, func(a, b span) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return int(a.rule) - int(b.rule)
	})
	out := sp[:1]
	for _, m := range sp[1:] {
		last := &out[len(out)-1]
		if m.start < last.end {
			last.end = max(last.end, m.end)
			continue
		}
		out = append(out, m)
	}
	return out
}

// Find reports the secrets of s, in order and without overlaps: what the
// first redaction pass replaces. (String may run further passes when a
// replacement changes the context of another rule, so its count can exceed
// len(Find(s)).)
func (r *Redactor) Find(s string) []Match {
	if u := r.unhide(s); u != s {
		return r.findRevealed(s)
	}
	var buf [8]span
	sp := r.spans(s, buf[:0])
	if len(sp) == 0 {
		return nil
	}
	out := make([]Match, len(sp))
	for i, m := range sp {
		out[i] = Match{Rule: ruleNames[m.rule], Start: m.start, End: m.end}
	}
	return out
}

// Contains reports whether s holds at least one secret.
func (r *Redactor) Contains(s string) bool {
	var buf [8]span
	return len(r.spans(r.unhide(s), buf[:0])) > 0
}

// maxPasses bounds the redaction passes. A second pass is needed only when
// one replacement changes the context of another rule (the label in front of
// a value, a quote, a PEM header); a third has never been seen.
const maxPasses = 4

// String returns s with every secret replaced and the number of secrets
// replaced. When there is none it returns s itself without allocating.
// Passes repeat until no rule matches, so String(String(s)) == String(s).
func (r *Redactor) String(s string) (string, int) {
	s = r.unhide(s)
	total := 0
	for pass := 0; pass < maxPasses; pass++ {
		var buf [8]span
		sp := r.spans(s, buf[:0])
		if len(sp) == 0 {
			break
		}
		var b strings.Builder
		b.Grow(outLen(len(s), sp))
		last := 0
		for _, m := range sp {
			b.WriteString(s[last:m.start])
			b.WriteString(s[m.start : m.start+int(m.keep)])
			b.WriteString(m.mask())
			last = m.end
		}
		b.WriteString(s[last:])
		s = b.String()
		total += len(sp)
	}
	return s, total
}

// Bytes is String for byte slices. When nothing is redacted it returns b
// itself (not a copy); otherwise a new slice, leaving b untouched.
func (r *Redactor) Bytes(b []byte) ([]byte, int) {
	if u := r.unhide(bytesView(b)); len(u) != len(b) {
		b = []byte(u)
	}
	total := 0
	for pass := 0; pass < maxPasses; pass++ {
		var buf [8]span
		sp := r.spans(bytesView(b), buf[:0])
		if len(sp) == 0 {
			break
		}
		b = apply(make([]byte, 0, outLen(len(b), sp)), b, sp)
		total += len(sp)
	}
	return b, total
}

func apply(dst, b []byte, sp []span) []byte {
	last := 0
	for _, m := range sp {
		dst = append(dst, b[last:m.start]...)
		dst = append(dst, b[m.start:m.start+int(m.keep)]...)
		dst = append(dst, m.mask()...)
		last = m.end
	}
	return append(dst, b[last:]...)
}

func outLen(n int, sp []span) int {
	for _, m := range sp {
		n += int(m.keep) + len(m.mask()) - (m.end - m.start)
	}
	return n
}

// bytesView reads b as a string without copying. The string never outlives
// the call that scans it.
func bytesView(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// Writer returns an io.Writer that redacts every Write before passing it on
// to w. Each Write is redacted on its own, which suits line-oriented writers
// such as zerolog (one event per Write). A Write whose first non-space byte is
// '{' or '[' is treated as JSON (see JSON). Write reports len(p) on success so
// callers never see a short write caused by a shorter redacted text.
func (r *Redactor) Writer(w io.Writer) io.Writer { return &writer{w: w, r: r} }

type writer struct {
	w io.Writer
	r *Redactor
}

func (w *writer) Write(p []byte) (int, error) {
	out := p
	i := 0
	for i < len(p) && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r') {
		i++
	}
	if i < len(p) && (p[i] == '{' || p[i] == '[') {
		out = w.r.JSON(p)
	} else {
		out, _ = w.r.Bytes(p)
	}
	n, err := w.w.Write(out)
	if err != nil {
		return 0, err
	}
	if n < len(out) {
		return 0, io.ErrShortWrite
	}
	return len(p), nil
}

// String redacts s with every rule; see Redactor.String.
func String(s string) (string, int) { return std.String(s) }

// Bytes redacts b with every rule; see Redactor.Bytes.
func Bytes(b []byte) ([]byte, int) { return std.Bytes(b) }

// Contains reports whether s holds a secret under any rule.
func Contains(s string) bool { return std.Contains(s) }

// Find lists the secrets in s under every rule; see Redactor.Find.
func Find(s string) []Match { return std.Find(s) }

// JSON redacts every string of a JSON document; see Redactor.JSON.
func JSON(v []byte) []byte { return std.JSON(v) }

// Writer wraps w so that every Write is redacted with every rule.
func Writer(w io.Writer) io.Writer { return std.Writer(w) }
