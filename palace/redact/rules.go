package redact

import "strings"

// Each scanner looks for one literal anchor byte with strings.IndexByte
// (vectorised in the runtime) and inspects the few bytes around each hit.
// Clean text costs eight such scans and no allocation. The cost stays linear
// on any input: a token is measured only from a boundary (never from inside
// another run), keys and authorities are bounded (maxKey, maxAuthority), and
// labelled values share measured runs through a memo (labels.go).

const (
	minSeedTail  = 16   // emk_/evt_ + at least 16 token characters
	maxValue     = 1024 // longer runs are not treated as labelled values
	maxKey       = 64
	maxAuthority = 256
	// telegramSecret is the length of a Telegram bot token's secret, after
	// the bot's id and a colon.
	telegramSecret = 35
	// awsSecretLen is the length of an AWS secret access key; awsPairGap
	// bounds what may stand between it and its key id when no label does.
	awsSecretLen = 40
	awsPairGap   = 8
	// atlassianPrefix opens an Atlassian API token; atlassianMin is the
	// least its tail is taken at (the tokens have 186 bytes after it).
	atlassianPrefix = "ATATT3"
	atlassianMin    = 150
	// fcmMarker follows the 11-byte id of a Firebase Cloud Messaging server
	// key; fcmMin is the least its tail is taken at (some 134 bytes).
	fcmMarker = ":APA91b"
	fcmMin    = 100
	// azureSecretMin and azureSecretMax bound an Azure AD client secret:
	// 3 bytes, a digit, "Q~", then 31 to 34 bytes.
	azureSecretMin, azureSecretMax = 37, 40
)

// scanUnderscore: emk_, evt_, gh?_, github_pat_, loci_, npm_, hf_,
// sk_live_ and rk_live_ (and _test_).
func (r *Redactor) scanUnderscore(s string, dst []span) []span {
	for off := 0; ; {
		k := strings.IndexByte(s[off:], '_')
		if k < 0 {
			return dst
		}
		u := off + k
		off = u + 1
		if u < 2 {
			continue
		}
		var (
			id        = numRules
			st, t, e  int
			keep      int
			matchedOK bool
		)
		w2 := s[u-2 : u]
		w3 := ""
		if u >= 3 {
			w3 = s[u-3 : u]
		}
		switch {
		case w3 == "emk" || w3 == "evt":
			st, t = u-3, u+1
			id, keep = rEMK, 8
			if w3 == "evt" {
				id = rEVT
			}
			if leftOK(s, st) {
				e = spanClass(s, t, cTok)
				matchedOK = e-t >= minSeedTail && !identLike(s[t:e])
			}
		case len(w3) == 3 && w3[0] == 'g' && w3[1] == 'h' && strings.IndexByte("pousr", w3[2]) >= 0:
			id, keep, st, t = rGitHub, 4, u-3, u+1
			e, matchedOK = token(s, st, t, cAlnum, 20)
		case w3 == "hub" && u >= 6 && s[u-6:u] == "github" && strings.HasPrefix(s[u:], "_pat_"):
			id, keep, st, t = rGitHub, 11, u-6, u+5
			e, matchedOK = token(s, st, t, cWord, 22)
		case w3 == "oci" && u >= 4 && s[u-4] == 'l':
			// loci's own access tokens: loci_<12 hex id>_<64 hex secret>.
			// The id stays, so a leak says which token to revoke.
			id, keep, st, t = rLoci, 18, u-4, u+1
			e, matchedOK = token(s, st, t, cWord, 77)
		case w3 == "npm":
			id, keep, st, t = rNPM, 4, u-3, u+1
			e, matchedOK = token(s, st, t, cAlnum, 30)
		case w2 == "hf":
			id, keep, st, t = rHuggingFace, 3, u-2, u+1
			e, matchedOK = token(s, st, t, cAlnum, 30)
		case (w2 == "sk" || w2 == "rk") && (strings.HasPrefix(s[u:], "_live_") || strings.HasPrefix(s[u:], "_test_")):
			id, keep, st, t = rStripe, 8, u-2, u+6
			e, matchedOK = token(s, st, t, cAlnum, 20)
		default:
			id = rVendor
			st, e, keep, off, matchedOK = vendorAt(s, u, underscoreVendors)
		}
		if matchedOK {
			dst = r.add(dst, id, st, e, keep)
		}
		// Matched or not, nothing in the run just measured starts another
		// token of these rules: skipping it keeps a run of glued prefixes
		// (ghp_ghp_ghp_…) linear.
		off = max(off, e)
	}
}

// token checks a vendor-prefixed token starting at st: a token boundary
// before st (gluedOK), and from t a run of class c of at least minLen bytes
// that passes tokenish. It returns the end of the run (0 when st is not at a
// boundary).
func token(s string, st, t, c, minLen int) (int, bool) {
	if !gluedOK(s, st) {
		return 0, false
	}
	e := spanClass(s, t, c)
	return e, e-t >= minLen && tokenish(s[t:e])
}

// scanHyphen: sk-… (OpenAI, Anthropic), glpat-, xox?- and xapp- (Slack), PEM
// blocks.
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
		if r.on(rGeneric) {
			dst = r.passwordFlag(s, u, dst)
		}
		if st, e, keep, next, ok := vendorAt(s, u, hyphenVendors); ok {
			dst = r.add(dst, rVendor, st, e, keep)
			off = max(off, next)
			continue
		}
		if u >= 5 && s[u-5:u] == "glpat" {
			e, ok := token(s, u-5, u+1, cTok, 20)
			if ok {
				dst = r.add(dst, rGitLab, u-5, e, 6)
			}
			off = max(off, e) // glpat-glpat-… stays linear
			continue
		}
		if u >= 4 && gluedOK(s, u-4) &&
			(s[u-4:u-1] == "xox" && strings.IndexByte("baprs", s[u-1]) >= 0 || s[u-4:u] == "xapp") {
			e := spanClass(s, u+1, cTok)
			if tail := s[u+1 : e]; len(tail) >= 10 && tokenish(tail) {
				dst = r.add(dst, rSlackToken, u-4, e, 5)
			}
			off = max(off, e) // xoxb-xoxb-… stays linear
		}
	}
}

// pem handles "-----BEGIN <label>-----" at u where the label names a private
// key. The body up to the next "-----" (normally the END line) is replaced;
// the BEGIN and END lines and the surrounding line breaks stay. The body never
// crosses a '"', so a key split over several JSON strings cannot break the
// document. A body that already starts with the mask is left alone. It
// returns where scanning may resume.
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
	if oddBackslashes(s, b, end) {
		end-- // never split an escape such as \" in raw JSON
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
		} else if e-2 >= b && s[e-2] == '\\' && isEscWS(s[e-1]) && oddBackslashes(s, b, e-1) {
			e -= 2
		} else {
			break
		}
	}
	if e <= b || strings.HasPrefix(s[b:e], Mask) {
		return dst, h // nothing to redact: keep scanning inside
	}
	return r.add(dst, rPrivateKey, b, e, 0), end
}

// oddBackslashes reports whether the run of backslashes ending just before
// i (and starting no earlier than lo) is odd, i.e. s[i] is escaped rather
// than preceded by an escaped backslash.
func oddBackslashes(s string, lo, i int) bool {
	n := 0
	for i > lo && s[i-1] == '\\' {
		n++
		i--
	}
	return n%2 == 1
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

// scanAWSKeyID: a 4-letter AWS prefix plus exactly 16 of [A-Z0-9]; also
// Google API keys, AIza plus exactly 35 of [A-Za-z0-9_-].
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
		case "ATAT":
			// An Atlassian API token: ATATT3 and some 186 bytes of
			// base64url and '='.
			if strings.HasPrefix(s[i:], atlassianPrefix) && gluedOK(s, i) {
				e := spanClass(s, i+len(atlassianPrefix), cB64)
				if e-i-len(atlassianPrefix) >= atlassianMin && tokenish(s[i+len(atlassianPrefix):e]) {
					dst = r.add(dst, rVendor, i, e, len(atlassianPrefix))
				}
				off = max(off, e)
			}
			continue
		case "AIza":
			if !gluedOK(s, i) {
				continue
			}
			e := spanClass(s, i+4, cTok)
			if e-i == 39 {
				dst = r.add(dst, rGoogleAPIKey, i, e, 4)
			}
			off = max(off, e) // AIza-AIza-… stays linear
			continue
		default:
			continue
		}
		if !gluedOK(s, i) {
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
		if p := s[i : i+4]; p == "AKIA" || p == "ASIA" {
			if st, se, ok := awsSecretAfter(s, e); ok {
				dst = r.add(dst, rAWSSecret, st, se, 0)
				off = se
			}
		}
	}
}

// awsSecretAfter finds the secret access key that follows an access key id
// ending at e with no label, as the console's credentials.csv writes a row
// ("ana,,AKIA…,wJalr…,https://…") and a pasted pair often stands ("AKIA…
// wJalr…"): after at most awsPairGap bytes of space, commas, colons, bars
// or quotes, exactly 40 bytes of base64 that look generated. A labelled
// secret is found by its label (aws_secret_access_key = …) anyway.
func awsSecretAfter(s string, e int) (st, se int, ok bool) {
	st = e
	for st < len(s) && st-e < awsPairGap && strings.IndexByte(" \t\r\n,;:|\"'", s[st]) >= 0 {
		st++
	}
	if st == e {
		return 0, 0, false
	}
	se = st
	for se < len(s) && se-st <= awsSecretLen && (class[s[se]]&cAlnum != 0 || s[se] == '/' || s[se] == '+') {
		se++
	}
	if se-st != awsSecretLen || se < len(s) && class[s[se]]&cB64 != 0 || !tokenish(s[st:se]) {
		return 0, 0, false
	}
	return st, se, true
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
		e := spanValue(s, w, cB64)
		if strongValue(s[w:e], 12) && !maskedAt(s, e) {
			dst = r.add(dst, rBearer, w, e, 0)
			off = e
		}
	}
}

// scanSlash: what turns on a '/'. The secret path of a chat webhook URL —
// hooks.slack.com/services/…, /workflows/…, /triggers/… (slack-webhook) and
// discord.com/api/webhooks/… or discordapp.com/api/webhooks/…
// (discord-webhook); the host and the path's fixed part stay. And a
// Google OAuth refresh token (vendor-token), 1//0 and its tail, which
// stands unlabelled in a pasted token response or a gcloud credentials
// file as often as under "refresh_token"; "1//0" stays.
func (r *Redactor) scanSlash(s string, dst []span) []span {
	const slack = "hooks.slack.com"
	for off := 0; ; {
		k := strings.IndexByte(s[off:], '/')
		if k < 0 {
			return dst
		}
		p := off + k
		off = p + 1
		if st, e, ok := googleRefreshToken(s, p); ok {
			dst = r.add(dst, rVendor, st, e, len(googleRefresh))
			off = e
			continue
		}
		id := rSlackWebhook
		switch {
		case p >= len(slack) && s[p-len(slack):p] == slack:
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
		case p >= len("discord.com") && (s[p-len("discord.com"):p] == "discord.com" ||
			p >= len("discordapp.com") && s[p-len("discordapp.com"):p] == "discordapp.com") &&
			strings.HasPrefix(s[p:], "/api/webhooks/"):
			id = rDiscordWebhook
			p += len("/api/webhooks/")
		default:
			continue
		}
		e := spanClass(s, p, cPath)
		if e-p >= 10 && !maskedAt(s, e) {
			dst = r.add(dst, id, p, e, 0)
			off = e
		}
	}
}

// googleRefresh is how a Google OAuth refresh token begins.
const googleRefresh = "1//0"

// googleRefreshToken: 1//0 at a word's start, its first '/' at p, and at
// least 30 generated-looking token bytes (the tokens Google issues have
// about 100).
func googleRefreshToken(s string, p int) (st, e int, ok bool) {
	st = p - 1
	if st < 0 || !strings.HasPrefix(s[st:], googleRefresh) || !leftOK(s, st) {
		return 0, 0, false
	}
	t := st + len(googleRefresh)
	e = spanClass(s, t, cTok)
	if e-t < 30 || !tokenish(s[t:e]) || maskedAt(s, e) {
		return 0, 0, false
	}
	return st, e, true
}

// scanTilde: an Azure AD (Entra ID) client secret, whose fourth and fifth
// bytes after a digit are "Q~" (abc8Q~…, 37 to 40 bytes of letters,
// digits, '_', '~', '.' and '-'). Nothing is kept: no part says what it
// is. '~' is a rare byte, so the scan is cheap on prose and code alike.
func (r *Redactor) scanTilde(s string, dst []span) []span {
	for off := 0; ; {
		k := strings.IndexByte(s[off:], '~')
		if k < 0 {
			return dst
		}
		p := off + k
		off = p + 1
		st := p - 5
		if st < 0 || s[p-1] != 'Q' || !isDigit(s[p-2]) || !azureSecretByte(s[st]) ||
			!azureSecretByte(s[st+1]) || !azureSecretByte(s[st+2]) || st > 0 && azureSecretByte(s[st-1]) {
			continue
		}
		e := p + 1
		for e < len(s) && e-st <= azureSecretMax && (azureSecretByte(s[e]) || s[e] == '-') {
			e++
		}
		if n := e - st; n < azureSecretMin || n > azureSecretMax || !tokenish(s[p+1:e]) {
			continue
		}
		dst = r.add(dst, rVendor, st, e, 0)
		off = e
	}
}

func azureSecretByte(c byte) bool { return class[c]&cWord != 0 || c == '~' || c == '.' }
