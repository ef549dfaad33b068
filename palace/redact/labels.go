package redact

import "strings"

// Rules for labelled values: the secret follows a key, a header name, a URL
// query parameter or a URL scheme, anchored on '=' and ':'.

// memo remembers the last run measured for each value class and the last
// URL query examined, so that the many labels of a pathological input
// (password=password=..., &Signature=x&Signature=x...) share one scan and
// the total cost stays linear with a small constant.
type memo struct {
	runs       [4]struct{ c, start, end int }
	qLo, qHi   int
	qHasExpiry bool
	qHasSV     bool
}

// span is spanValue with the memo: a value starting inside an already
// measured run of the same class ends where that run ends.
func (m *memo) span(s string, i, c int) int {
	slot := &m.runs[0]
	switch c {
	case cURLV:
		slot = &m.runs[1]
	case cB64:
		slot = &m.runs[2]
	case cTok:
		slot = &m.runs[3]
	}
	if slot.c != c || i < slot.start || i > slot.end {
		slot.c, slot.start, slot.end = c, i, spanClass(s, i, c)
	}
	return min(slot.end, i+maxValue+1)
}

// scanEquals: signed-URL query parameters and key=value assignments.
func (r *Redactor) scanEquals(s string, dst []span) []span {
	var m memo
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
			if dst, isParam = r.signedURL(s, ks, p, dst, &m); isParam {
				if len(dst) > n {
					off = dst[len(dst)-1].end
				}
				continue
			}
		}
		dst = r.assignment(s, p, dst, &m)
	}
}

// signedURL handles key=value where key (s[ks:p]) is a URL signing
// parameter. It reports whether the key was one, matched or not.
func (r *Redactor) signedURL(s string, ks, p int, dst []span, m *memo) ([]span, bool) {
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
	case key == "Signature" || key == "AWSAccessKeyId" || key == "sig":
		legacy = true
	default:
		return dst, false
	}
	if ks > 0 && class[s[ks-1]]&cKey != 0 && !escBefore(s, ks) {
		return dst, false
	}
	v := p + 1
	e := m.span(s, v, cURLV)
	if e == v || e-v > maxValue || hasMarker(s[v:e]) || maskedAt(s, e) {
		return dst, true
	}
	if legacy {
		// Only in a query string (after '?', '&' or ';') that also has
		// Expires= (S3 v2, CloudFront) or, for sig=, sv= (an Azure shared
		// access signature).
		if ks == 0 || (s[ks-1] != '?' && s[ks-1] != '&' && s[ks-1] != ';' && !escBefore(s, ks)) {
			return dst, true
		}
		if ks < m.qLo || ks >= m.qHi {
			lo, hi := ks, ks
			for lo > 0 && !urlStop(s[lo-1]) {
				lo--
			}
			for hi < len(s) && !urlStop(s[hi]) {
				hi++
			}
			q := s[lo:hi]
			m.qLo, m.qHi = lo, hi
			m.qHasExpiry, m.qHasSV = strings.Contains(q, "Expires="), strings.Contains(q, "sv=")
		}
		if key == "sig" && !m.qHasSV || key != "sig" && !m.qHasExpiry {
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
	var m memo
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
		dst = r.userFlag(s, p, dst)
		if p > 0 && isDigit(s[p-1]) {
			dst = r.telegramToken(s, p, dst)
		}
		if strings.HasPrefix(s[p:], fcmMarker) {
			dst = r.fcmKey(s, p, dst)
		}
		dst = r.assignment(s, p, dst, &m)
	}
}

// telegramToken redacts the secret of a Telegram bot token, the colon at p:
// the bot's id (8 to 10 digits, which the bot's public link shows, so it is
// kept) and 35 generated characters: 1234567890:[REDACTED]. A time, a port
// or a ratio has neither that many digits nor that long a run after them.
func (r *Redactor) telegramToken(s string, p int, dst []span) []span {
	d := p
	for d > 0 && p-d <= 10 && isDigit(s[d-1]) {
		d--
	}
	if n := p - d; n < 8 || n > 10 || !leftOK(s, d) && !(d >= 3 && s[d-3:d] == "bot" && leftOK(s, d-3)) {
		return dst // the id starts a word, or follows "bot" as in the API's URLs (/bot<id>:<secret>/getMe)
	}
	e := spanClass(s, p+1, cTok)
	if e-(p+1) != telegramSecret || !tokenish(s[p+1:e]) || maskedAt(s, e) {
		return dst
	}
	return r.add(dst, rVendor, p+1, e, 0)
}

// fcmKey redacts a Firebase Cloud Messaging server key, the colon at p
// opening fcmMarker: an id of 11 bytes (AAAA and 7 more) before it and some
// 134 bytes of base64url after. Nothing is kept.
func (r *Redactor) fcmKey(s string, p int, dst []span) []span {
	st := p - 11
	if st < 0 || !strings.HasPrefix(s[st:], "AAAA") || spanClass(s, st, cTok) != p || !leftOK(s, st) {
		return dst
	}
	e := spanClass(s, p+1, cTok)
	if e-p-1 < fcmMin {
		return dst
	}
	return r.add(dst, rVendor, st, e, 0)
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

// userFlag redacts the password of a command line's user:password
// argument (curl -u, --user, --user=; wget --user is a name only and has
// no colon), the colon at p: the password runs to the next space or quote
// and must pass the test of labelled passwords.
func (r *Redactor) userFlag(s string, p int, dst []span) []span {
	if p+1 >= len(s) || isSpace(s[p+1]) || isQuote(s[p+1]) {
		return dst // no password right after the colon ("Note: …")
	}
	ks := p
	for ks > 0 && p-ks < maxKey && !isSpace(s[ks-1]) && s[ks-1] != '=' && !isQuote(s[ks-1]) {
		ks--
	}
	if ks == p || p+1 >= len(s) {
		return dst
	}
	if ks > 0 && isQuote(s[ks-1]) {
		ks--
	}
	f := ks
	if f > 0 && (s[f-1] == ' ' || s[f-1] == '=') {
		f--
	}
	var flagOK bool
	switch {
	case f >= 2 && s[f-2:f] == "-u" && s[f] != '=':
		flagOK = leftOK(s, f-2)
	case f >= 6 && s[f-6:f] == "--user":
		flagOK = leftOK(s, f-6)
	}
	if !flagOK {
		return dst
	}
	v := p + 1
	e := wordEnd(s, v, v)
	if val := s[v:e]; strongValue(val, 8) && !maskedAt(s, e) {
		dst = r.add(dst, rGeneric, v, e, 0)
	}
	return dst
}

// passwordFlag redacts the password of a -p flag at u where the command
// on the line is known to take one there: mysql's and mariadb's glued
// -pPASSWORD, and sshpass's -p PASSWORD. Elsewhere -p is a port, a path or
// a flag of its own.
func (r *Redactor) passwordFlag(s string, u int, dst []span) []span {
	if u+3 >= len(s) || s[u+1] != 'p' || !leftOK(s, u) {
		return dst
	}
	line := s[max(0, u-maxAuthority):u]
	if i := strings.LastIndexByte(line, '\n'); i >= 0 {
		line = line[i+1:]
	}
	v, form := u+2, pwLiteral
	switch {
	case s[v] == ' ' && strings.Contains(line, "sshpass"):
		v++
		form = pwSpaced
	case s[v] != ' ' && (strings.Contains(line, "mysql") || strings.Contains(line, "mariadb")):
	default:
		return dst
	}
	if isQuote(s[v]) {
		v++
		form = pwLiteral
	}
	e := trimSentenceEnd(s, v, wordEnd(s, v, v))
	if val := s[v:e]; labelledPassword(val, form) && !maskedAt(s, e) {
		dst = r.add(dst, rGeneric, v, e, 0)
	}
	return dst
}

func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }

// wordEnd extends a value starting at v, measured up to e, to the next
// space, quote, escape or control byte (at most maxValue bytes from v): a
// password may hold any other byte ('&', '$', '('), which the value
// classes leave out. A quoted value so runs to its closing quote. Values
// of different labels cannot overlap (each stops at the next quote or
// space), so the scan stays linear.
func wordEnd(s string, v, e int) int {
	for e < len(s) && e-v <= maxValue && s[e] > ' ' && s[e] != 0x7f && !isQuote(s[e]) && s[e] != '\\' {
		e++
	}
	return e
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
func (r *Redactor) assignment(s string, sep int, dst []span, m *memo) []span {
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
	case 'd', 'e', 't', 'n', 'y', 'h':
	case 's': // pass, after a separator
		if j < 5 || !strings.EqualFold(s[j-4:j], "pass") {
			return dst
		}
	case 'w': // pw, after a separator
		if j < 3 || !strings.EqualFold(s[j-2:j], "pw") {
			return dst
		}
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
	if kind == kNone && ke-j == 3 && strings.EqualFold(s[j:ke], "key") {
		kind = keyAfterWord(s, j)
	}
	if kind == kNone {
		return dst
	}
	v := sep + 1
	for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
		v++
	}
	var quote byte
	if v < len(s) && (s[v] == '"' || s[v] == '\'' || s[v] == '`') {
		quote = s[v]
		v++
	} else if v+1 < len(s) && s[v] == '\\' && s[v+1] == '"' {
		quote = '"'
		v += 2
	}
	quoted := quote != 0
	if kind == kAuth {
		return r.authorization(s, v, dst, m)
	}
	e := m.span(s, v, cVal)
	if quoted {
		e = wordEnd(s, v, e)
	}
	val := s[v:e]
	// A password label's value that ends in a label's word names a setting
	// ("sslpassword"), or, read as a name, a constant (C.FILTER_PASS).
	named := kind == kPassword && namesLabel(val)
	if maskedAt(s, e) || !quoted && (e < len(s) && s[e] == '(' || namesSecret(val) ||
		named && (identifier(val) || placeholder(val))) {
		// Code, not a secret: an unquoted value followed by '(' is a call
		// (earlySecret = tls13.NewEarlySecret(…)), and one that ends in
		// the word of a label names a variable or constant
		// (token.AccessToken = tokenRes.IDToken, X_TOKEN = C.X_TOKEN,
		// FILTER_PASS = C.FILTER_PASS; a password such as Hunter2pass
		// may end in one too).
		return dst
	}
	switch kind {
	case kAWSSecret:
		if strongValue(val, 16) {
			dst = r.add(dst, rAWSSecret, v, e, 0)
		}
	case kPassword:
		form := pwForm(s, j, ke, sep, v, e, quote)
		if named {
			form = pwStrong // read only by the entropy test (Hunter2pass)
		}
		if labelledPassword(val, form) {
			dst = r.add(dst, rGeneric, v, e, 0)
		}
	case kSecret:
		if strongValue(val, 16) && !pathLike(val) {
			dst = r.add(dst, rGeneric, v, e, 0)
		}
	}
	return dst
}

// authorization handles the value of an Authorization header starting at v:
// an optional scheme word (Bearer, Basic, token, AWS4-HMAC-SHA256, ...),
// then the credentials. A parameter list (AWS SigV4 "Credential=...,
// SignedHeaders=..., Signature=...") is redacted to the end of the line.
func (r *Redactor) authorization(s string, v int, dst []span, m *memo) []span {
	id := rAuthHeader
	w := m.span(s, v, cTok)
	if w > v && w < len(s) && (s[w] == ' ' || s[w] == '\t') {
		if strings.EqualFold(s[v:w], "bearer") {
			id = rBearer
		}
		for w < len(s) && (s[w] == ' ' || s[w] == '\t') {
			w++
		}
		v = w
	}
	e := m.span(s, v, cB64)
	if !strongValue(s[v:e], 8) || maskedAt(s, e) {
		return dst
	}
	if e < len(s) && s[e] == ',' {
		for e < len(s) && e-v < maxValue && strings.IndexByte("\r\n\"'`\\", s[e]) < 0 {
			e++
		}
		for s[e-1] == ' ' || s[e-1] == '\t' {
			e--
		}
	}
	return r.add(dst, id, v, e, 0)
}

// classifyKey matches the key, case-insensitively and ignoring '_', '-' and
// '.', against the suffixes that label secrets.
func classifyKey(key string) int {
	if len(key) < 3 {
		return kNone
	}
	switch last := key[len(key)-1] | 0x20; last {
	case 'd':
		if keySuffix(key, "password") || keySuffix(key, "passwd") || keySuffix(key, "pwd") {
			return kPassword
		}
		// The session cookies of Java and PHP servers, by their exact
		// names: a session_id field elsewhere names a conversation.
		if strings.EqualFold(key, "JSESSIONID") || strings.EqualFold(key, "PHPSESSID") {
			return kSecret
		}
	case 'e':
		if keySuffix(key, "passphrase") {
			return kPassword
		}
		if keySuffix(key, "secretkeybase") { // Rails
			return kSecret
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
	case 's', 'w':
		// A password's short forms, as the last word of a longer key only
		// (DB_PASS, smtp.pass, MYSQL_PW): "bypass", "compass" and a "pass"
		// or "pw" of its own ("Boarding pass: A12") are not labels.
		if sepSuffix(key, "pass") || sepSuffix(key, "pw") {
			return kPassword
		}
	case 'h':
		// Docker's config.json and .npmrc keep base64 user:password as
		// "auth" / _auth.
		if strings.EqualFold(strings.TrimLeft(key, "_.-"), "auth") {
			return kSecret
		}
	case 'y':
		switch {
		case keySuffix(key, "secretaccesskey") || keySuffix(key, "awssecretkey"):
			return kAWSSecret
		case keySuffix(key, "apikey") || keySuffix(key, "secretkey") || keySuffix(key, "privatekey") ||
			keySuffix(key, "signingkey") || keySuffix(key, "authkey") || keySuffix(key, "accountkey") ||
			keySuffix(key, "accesskey") || keySuffix(key, "masterkey") || keySuffix(key, "encryptionkey"):
			// accountkey: Azure storage connection strings (AccountKey=…);
			// accesskey covers their SharedAccessKey= too.
			return kSecret
		}
	}
	return kNone
}

// namesSecret reports whether a value ends in a word that labels secrets
// (token, secret, password, passwd, key), as identifiers do and generated
// values do not.
func namesSecret(v string) bool {
	return endsInWord(v, "token", "secret", "password", "passwd", "key")
}

// endsInWord reports whether v ends in one of words after something else
// (case, '_', '-' and '.' ignored, as keySuffix reads a key).
func endsInWord(v string, words ...string) bool {
	for _, w := range words {
		if len(v) > len(w) && keySuffix(v, w) {
			return true
		}
	}
	return false
}

// keyAfterWord classifies a key that is only "key" and starts at j by the
// word before it, as in "API key: …" or "secret key = …".
func keyAfterWord(s string, j int) int {
	if j < 2 || s[j-1] != ' ' {
		return kNone
	}
	w := j - 1
	for w > 0 && j-1-w < 10 && class[s[w-1]]&cAlpha != 0 {
		w--
	}
	switch strings.ToLower(s[w : j-1]) {
	case "api", "secret", "private", "access", "signing", "encryption", "master":
		return kSecret
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

// sepSuffix reports whether key ends in word after '_', '-' or '.', in any
// case.
func sepSuffix(key, word string) bool {
	n := len(key) - len(word)
	if n < 1 || !strings.EqualFold(key[n:], word) {
		return false
	}
	return key[n-1] == '_' || key[n-1] == '-' || key[n-1] == '.'
}
