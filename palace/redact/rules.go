package redact

import "strings"

// Each scanner looks for one cheap literal anchor with strings.IndexByte or
// strings.Index (vectorised in the runtime) and inspects the few bytes around
// each hit. Text without any anchor costs a handful of linear scans and no
// allocation.

const (
	minSeedTail  = 16   // emk_/evt_ + at least 16 token characters
	maxValue     = 4096 // longer runs are not treated as assignment values
	maxKey       = 64
	maxAuthority = 256
)

// scanUnderscore: emk_, evt_, ghp_/gho_/ghu_/ghs_/ghr_, github_pat_.
func (r *Redactor) scanUnderscore(s string, dst []span) []span {
	for off := 0; ; {
		k := strings.IndexByte(s[off:], '_')
		if k < 0 {
			return dst
		}
		u := off + k
		off = u + 1
		if u < 3 {
			continue
		}
		p := u - 3
		switch w := s[p:u]; {
		case w == "emk" || w == "evt":
			if !leftOK(s, p) {
				continue
			}
			e := spanClass(s, u+1, cTok)
			if tail := s[u+1 : e]; len(tail) >= minSeedTail && tokenish(tail) {
				id := rEMK
				if w == "evt" {
					id = rEVT
				}
				dst = r.add(dst, id, p, e, 8)
				off = e
			}
		case w[0] == 'g' && w[1] == 'h' && strings.IndexByte("pousr", w[2]) >= 0:
			if !leftOK(s, p) {
				continue
			}
			e := spanClass(s, u+1, cAlnum)
			if tail := s[u+1 : e]; len(tail) >= 20 && tokenish(tail) {
				dst = r.add(dst, rGitHub, p, e, 4)
				off = e
			}
		case w == "hub" && u >= 6 && s[u-6:u] == "github" && strings.HasPrefix(s[u:], "_pat_"):
			if !leftOK(s, u-6) {
				continue
			}
			e := spanClass(s, u+5, cWord)
			if tail := s[u+5 : e]; len(tail) >= 22 && tokenish(tail) {
				dst = r.add(dst, rGitHub, u-6, e, 11)
				off = e
			}
		}
	}
}

// scanHyphen: sk-… (OpenAI, Anthropic), xox?- and xapp- (Slack), PEM blocks.
func (r *Redactor) scanHyphen(s string, dst []span) []span {
	for off := 0; ; {
		k := strings.IndexByte(s[off:], '-')
		if k < 0 {
			return dst
		}
		u := off + k
		off = u + 1
		if strings.HasPrefix(s[u:], "-----BEGIN ") {
			var next int
			dst, next = r.pem(s, u, dst)
			off = max(off, next)
			continue
		}
		if u >= 2 && s[u-2] == 's' && s[u-1] == 'k' && leftOK(s, u-2) {
			id, keep := rOpenAI, 3
			switch rest := s[u+1:]; {
			case strings.HasPrefix(rest, "ant-"):
				id, keep = rAnthropic, 7
			case strings.HasPrefix(rest, "proj-"):
				keep = 8
			case strings.HasPrefix(rest, "admin-"):
				keep = 9
			case strings.HasPrefix(rest, "svcacct-"):
				keep = 11
			}
			e := spanClass(s, u+1, cTok)
			if st := u - 2 + keep; st <= e && len(s[st:e]) >= 20 && tokenish(s[st:e]) {
				dst = r.add(dst, id, u-2, e, keep)
				off = e
			}
			continue
		}
		if u >= 4 && leftOK(s, u-4) &&
			(s[u-4:u-1] == "xox" && strings.IndexByte("baprs", s[u-1]) >= 0 || s[u-4:u] == "xapp") {
			e := spanClass(s, u+1, cTok)
			if tail := s[u+1 : e]; len(tail) >= 10 && tokenish(tail) {
				dst = r.add(dst, rSlackToken, u-4, e, 5)
				off = e
			}
		}
	}
}

// pem handles "-----BEGIN <label>-----" at u where the label names a private
// key. The body up to the next "-----" (normally the END line) is replaced;
// the BEGIN and END lines and the surrounding line breaks stay. The body never
// crosses a '"', so a key split over several JSON strings cannot break the
// document. It returns where scanning may resume.
func (r *Redactor) pem(s string, u int, dst []span) ([]span, int) {
	h := u + len("-----BEGIN ")
	le := strings.Index(s[h:], "-----")
	if le < 0 || le > 48 {
		return dst, h
	}
	label := s[h : h+le]
	for i := 0; i < len(label); i++ {
		if c := label[i]; (c < 'A' || c > 'Z') && c != ' ' && (c < '0' || c > '9') {
			return dst, h
		}
	}
	if !strings.Contains(label, "PRIVATE KEY") {
		return dst, h
	}
	b := h + le + 5
	end := len(s)
	if k := strings.Index(s[b:], "-----"); k >= 0 {
		end = b + k
	}
	if q := strings.IndexByte(s[b:end], '"'); q >= 0 {
		end = b + q
	}
	e := end
	for b < e {
		if isSpace(s[b]) {
			b++
		} else if b+1 < e && s[b] == '\\' && isEscWS(s[b+1]) {
			b += 2
		} else {
			break
		}
	}
	for e > b {
		if isSpace(s[e-1]) {
			e--
		} else if e-2 >= b && s[e-2] == '\\' && isEscWS(s[e-1]) {
			e -= 2
		} else {
			break
		}
	}
	if e > b && s[b:e] != Mask {
		dst = r.add(dst, rPrivateKey, b, e, 0)
	}
	return dst, end
}

// scanEquals: signed-URL query parameters and key=value assignments.
func (r *Redactor) scanEquals(s string, dst []span) []span {
	for off := 0; ; {
		k := strings.IndexByte(s[off:], '=')
		if k < 0 {
			return dst
		}
		p := off + k
		off = p + 1
		if p == 0 || p+1 >= len(s) {
			continue
		}
		if s[p+1] == '=' {
			off = p + 2
			continue
		}
		if c := s[p-1]; c == '!' || c == '<' || c == '>' || c == '=' {
			continue
		}
		ks := p
		for ks > 0 && p-ks < maxKey && class[s[ks-1]]&cKey != 0 {
			ks--
		}
		ks = skipEsc(s, ks, p)
		if ks < p {
			n := len(dst)
			var isParam bool
			if dst, isParam = r.signedURL(s, ks, p, dst); isParam {
				if len(dst) > n {
					off = int(dst[len(dst)-1].end)
				}
				continue
			}
		}
		dst = r.assignment(s, p, dst)
	}
}

// signedURL handles key=value where key (s[ks:p]) is a URL signing
// parameter. It reports whether the key was one, matched or not.
func (r *Redactor) signedURL(s string, ks, p int, dst []span) ([]span, bool) {
	key := s[ks:p]
	legacy := false
	switch {
	case len(key) > 6 && strings.EqualFold(key[:6], "x-amz-"):
		k := key[6:]
		if !strings.EqualFold(k, "signature") && !strings.EqualFold(k, "credential") &&
			!strings.EqualFold(k, "security-token") {
			return dst, false
		}
	case len(key) > 7 && strings.EqualFold(key[:7], "x-goog-"):
		k := key[7:]
		if !strings.EqualFold(k, "signature") && !strings.EqualFold(k, "credential") {
			return dst, false
		}
	case key == "Signature" || key == "AWSAccessKeyId":
		legacy = true
	default:
		return dst, false
	}
	if ks > 0 && class[s[ks-1]]&cKey != 0 && !escBefore(s, ks) {
		return dst, false
	}
	v := p + 1
	e := spanClass(s, v, cURLV)
	if e == v || e-v > maxValue || hasMarker(s[v:e]) || maskedAt(s, e) {
		return dst, true
	}
	if legacy {
		// Only in a query string (after '?', '&' or ';') that also has Expires=.
		if ks == 0 || (s[ks-1] != '?' && s[ks-1] != '&' && s[ks-1] != ';' && !escBefore(s, ks)) {
			return dst, true
		}
		lo := ks
		for lo > 0 && ks-lo < maxValue && !urlStop(s[lo-1]) {
			lo--
		}
		hi := e
		for hi < len(s) && hi-e < maxValue && !urlStop(s[hi]) {
			hi++
		}
		if !strings.Contains(s[lo:hi], "Expires=") {
			return dst, true
		}
	}
	return r.add(dst, rSignedURL, v, e, 0), true
}

// skipEsc moves a key start ks (key = s[ks:p]) past a JSON escape that the
// backwards key scan swallowed: "\u0026Signature" or "\nX-Amz-Signature".
func skipEsc(s string, ks, p int) int {
	if ks == 0 || s[ks-1] != '\\' || ks >= p {
		return ks
	}
	if s[ks] == 'u' && p-ks > 5 && escBefore(s, ks+5) {
		return ks + 5
	}
	if isEscWS(s[ks]) || s[ks] == 'b' || s[ks] == 'f' {
		return ks + 1
	}
	return ks
}

func urlStop(c byte) bool {
	return c <= ' ' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`'
}

// scanColon: "://" user:password@ authorities and key: value assignments.
func (r *Redactor) scanColon(s string, dst []span) []span {
	for off := 0; ; {
		k := strings.IndexByte(s[off:], ':')
		if k < 0 {
			return dst
		}
		p := off + k
		off = p + 1
		if p+1 >= len(s) || s[p+1] == '=' {
			continue // ":=" is handled by scanEquals
		}
		if strings.HasPrefix(s[p:], "://") {
			dst = r.urlPassword(s, p, dst)
			continue
		}
		dst = r.assignment(s, p, dst)
	}
}

// urlPassword redacts the password of scheme://user:password@host.
func (r *Redactor) urlPassword(s string, p int, dst []span) []span {
	if p == 0 || class[s[p-1]]&cAlnum == 0 {
		return dst
	}
	colon := -1
	for i := p + 3; i < len(s) && i-p < maxAuthority; i++ {
		switch c := s[i]; c {
		case '@':
			if colon < 0 || hasMarker(s[colon+1:i]) {
				return dst
			}
			return r.add(dst, rURLPassword, colon+1, i, 0)
		case ':':
			if colon < 0 {
				colon = i
			}
		case '/', '?', '#', '"', '\'', '<', '>', '\\', '`', '[', ']':
			return dst
		default:
			if c <= ' ' {
				return dst
			}
		}
	}
	return dst
}

// Key kinds for assignments.
const (
	kNone = iota
	kPassword
	kSecret
	kAWSSecret
	kAuth
)

// assignment handles `key = value`, `key: value`, `"key": "value"` and
// `key := value` where sep is the position of '=' or ':'.
func (r *Redactor) assignment(s string, sep int, dst []span) []span {
	j := sep
	if s[sep] == '=' && j > 0 && s[j-1] == ':' {
		j--
	}
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		j--
		if j > 0 && s[j-1] == '\\' {
			j--
		}
	}
	if j == 0 {
		return dst
	}
	switch s[j-1] | 0x20 { // last letter of every key suffix classifyKey knows
	case 'd', 'e', 't', 'n', 'y':
	default:
		return dst
	}
	ke := j
	for j > 0 && ke-j < maxKey && class[s[j-1]]&cKey != 0 {
		j--
	}
	if s[sep] == ':' && j >= 3 && s[j-3:j] == "://" {
		return dst // user:password@ in a URL: see urlPassword
	}
	kind := classifyKey(s[j:ke])
	if kind == kNone {
		return dst
	}
	v := sep + 1
	for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
		v++
	}
	if v < len(s) && (s[v] == '"' || s[v] == '\'' || s[v] == '`') {
		v++
	} else if v+1 < len(s) && s[v] == '\\' && s[v+1] == '"' {
		v += 2
	}
	if kind == kAuth {
		return r.authorization(s, v, dst)
	}
	e := spanClass(s, v, cVal)
	val := s[v:e]
	if maskedAt(s, e) {
		return dst
	}
	switch kind {
	case kAWSSecret:
		if strongValue(val, 16) {
			dst = r.add(dst, rAWSSecret, v, e, 0)
		}
	case kPassword, kSecret:
		minLen := 16
		if kind == kPassword {
			minLen = 8
		}
		if strongValue(val, minLen) && !pathLike(val) {
			dst = r.add(dst, rGeneric, v, e, 0)
		}
	}
	return dst
}

// authorization handles the value of an Authorization header starting at v:
// an optional scheme word, then the credentials.
func (r *Redactor) authorization(s string, v int, dst []span) []span {
	id := rAuthHeader
	w := spanClass(s, v, cAlpha)
	if w > v && w < len(s) && (s[w] == ' ' || s[w] == '\t') {
		if strings.EqualFold(s[v:w], "bearer") {
			id = rBearer
		}
		for w < len(s) && (s[w] == ' ' || s[w] == '\t') {
			w++
		}
		v = w
	}
	e := spanClass(s, v, cB64)
	if strongValue(s[v:e], 8) && !maskedAt(s, e) {
		dst = r.add(dst, id, v, e, 0)
	}
	return dst
}

// classifyKey matches the key, case-insensitively and ignoring '_', '-' and
// '.', against the suffixes that label secrets.
func classifyKey(key string) int {
	if len(key) < 3 {
		return kNone
	}
	switch last := key[len(key)-1] | 0x20; last {
	case 'd':
		if keySuffix(key, "password") || keySuffix(key, "passwd") {
			return kPassword
		}
	case 'e':
		if keySuffix(key, "passphrase") {
			return kPassword
		}
	case 't':
		if keySuffix(key, "secret") {
			return kSecret
		}
	case 'n':
		if keySuffix(key, "authorization") {
			return kAuth
		}
		if keySuffix(key, "token") {
			return kSecret
		}
	case 'y':
		switch {
		case keySuffix(key, "secretaccesskey") || keySuffix(key, "awssecretkey"):
			return kAWSSecret
		case keySuffix(key, "apikey") || keySuffix(key, "secretkey") || keySuffix(key, "privatekey") ||
			keySuffix(key, "signingkey") || keySuffix(key, "authkey"):
			return kSecret
		}
	}
	return kNone
}

func keySuffix(key, word string) bool {
	i, j := len(key)-1, len(word)-1
	for j >= 0 {
		if i < 0 {
			return false
		}
		c := key[i]
		i--
		if c == '_' || c == '-' || c == '.' {
			continue
		}
		if c|0x20 != word[j] || c < 'A' {
			return false
		}
		j--
	}
	return true
}

// scanJWT: eyJ<header>.<payload>.<signature> in base64url.
func (r *Redactor) scanJWT(s string, dst []span) []span {
	for off := 0; ; {
		k := strings.IndexByte(s[off:], 'J')
		if k < 0 {
			return dst
		}
		j := off + k
		off = j + 1
		if j < 2 || s[j-2] != 'e' || s[j-1] != 'y' || !leftOK(s, j-2) {
			continue
		}
		st := j - 2
		e1 := spanClass(s, st, cTok)
		if e1-st < 10 || e1 >= len(s) || s[e1] != '.' {
			continue
		}
		e2 := spanClass(s, e1+1, cTok)
		if e2-e1-1 < 10 || e2 >= len(s) || s[e2] != '.' {
			continue
		}
		e3 := spanClass(s, e2+1, cTok)
		if e3 == e2+1 && !strings.HasPrefix(s[e1+1:], "eyJ") {
			continue // two segments and a full stop: not a JWT
		}
		dst = r.add(dst, rJWT, st, e3, 3)
		off = e3
	}
}

// scanAWSKeyID: a 4-letter AWS prefix plus exactly 16 of [A-Z0-9].
func (r *Redactor) scanAWSKeyID(s string, dst []span) []span {
	for off := 0; ; {
		k := strings.IndexByte(s[off:], 'A')
		if k < 0 {
			return dst
		}
		i := off + k
		off = i + 1
		if i+20 > len(s) {
			return dst
		}
		switch s[i : i+4] {
		case "AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA":
		default:
			continue
		}
		if !leftOK(s, i) {
			continue
		}
		e := i + 4
		for e < i+20 && (s[e] >= 'A' && s[e] <= 'Z' || s[e] >= '0' && s[e] <= '9') {
			e++
		}
		if e != i+20 || (e < len(s) && class[s[e]]&cAlnum != 0) {
			continue
		}
		dst = r.add(dst, rAWSKeyID, i, e, 4)
		off = e
	}
}

// scanBearer: "Bearer <token>" outside an Authorization header. The anchor
// is the capital B (Bearer, BEARER); a lower-case "bearer" is recognised in
// Authorization headers only, which keeps this scan cheap on prose.
func (r *Redactor) scanBearer(s string, dst []span) []span {
	for off := 0; ; {
		k := strings.IndexByte(s[off:], 'B')
		if k < 0 {
			return dst
		}
		b := off + k
		off = b + 1
		w := b + 6
		if w >= len(s) || (s[w] != ' ' && s[w] != '\t') || !strings.EqualFold(s[b:w], "bearer") || !leftOK(s, b) {
			continue
		}
		for w < len(s) && (s[w] == ' ' || s[w] == '\t') {
			w++
		}
		e := spanClass(s, w, cB64)
		if strongValue(s[w:e], 12) && !maskedAt(s, e) {
			dst = r.add(dst, rBearer, w, e, 0)
			off = e
		}
	}
}

// scanSlackWebhook: hooks.slack.com/services/…, /workflows/…, /triggers/….
func (r *Redactor) scanSlackWebhook(s string, dst []span) []span {
	const host = "hooks.slack.com"
	for off := 0; ; {
		k := strings.IndexByte(s[off:], '/')
		if k < 0 {
			return dst
		}
		p := off + k
		off = p + 1
		if p < len(host) || s[p-len(host):p] != host {
			continue
		}
		p++
		switch {
		case strings.HasPrefix(s[p:], "services/"):
			p += len("services/")
		case strings.HasPrefix(s[p:], "workflows/"):
			p += len("workflows/")
		case strings.HasPrefix(s[p:], "triggers/"):
			p += len("triggers/")
		default:
			continue
		}
		e := spanClass(s, p, cPath)
		if e-p >= 10 && !maskedAt(s, e) {
			dst = r.add(dst, rSlackWebhook, p, e, 0)
			off = e
		}
	}
}
