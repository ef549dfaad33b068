package redact

import "strings"

// The long tail of vendor tokens (vendor-token): services whose tokens
// carry a fixed prefix, listed by the byte the scanners already look for
// ('_' and '-') or by '.' (scanDot). Each needs its prefix at a token
// boundary, then a tail of the given class and length that looks generated
// (tokenish), and keeps its prefix: dop_v1_[REDACTED], hvs.[REDACTED].
// A prefix of four bytes or fewer (key-, r8_, gsk_) must start a word; a
// longer one may also be glued to a word (see gluedOK), as AKIA may.

type vendor struct {
	prefix   string
	at       int // index in prefix of the byte the scan finds
	class    int
	min, max int  // tail length; max 0 = no bound
	dots     bool // the tail may hold '.' (not at its end)
}

// vendorTable holds vendors by the byte just before their anchor, so a hit
// of the anchor looks only at the prefixes that could end there.
type vendorTable [256][]vendor

func vendorsAt(anchor byte, vs ...vendor) *vendorTable {
	var t vendorTable
	for _, v := range vs {
		v.at = strings.IndexByte(v.prefix, anchor)
		b := v.prefix[v.at-1]
		t[b] = append(t[b], v)
	}
	return &t
}

var (
	underscoreVendors = vendorsAt('_',
		vendor{prefix: "dop_v1_", class: cAlnum, min: 64, max: 64}, // DigitalOcean
		vendor{prefix: "doo_v1_", class: cAlnum, min: 64, max: 64},
		vendor{prefix: "dor_v1_", class: cAlnum, min: 64, max: 64},
		vendor{prefix: "shpat_", class: cAlnum, min: 32, max: 32}, // Shopify
		vendor{prefix: "shpss_", class: cAlnum, min: 32, max: 32},
		vendor{prefix: "shpca_", class: cAlnum, min: 32, max: 32},
		vendor{prefix: "shppa_", class: cAlnum, min: 32, max: 32},
		vendor{prefix: "dckr_pat_", class: cTok, min: 24},          // Docker Hub
		vendor{prefix: "glsa_", class: cWord, min: 40},             // Grafana service account
		vendor{prefix: "glc_", class: cTok, min: 32},               // Grafana Cloud
		vendor{prefix: "lin_api_", class: cAlnum, min: 40},         // Linear
		vendor{prefix: "sntrys_", class: cTok, min: 40},            // Sentry
		vendor{prefix: "sntryu_", class: cAlnum, min: 64},          //
		vendor{prefix: "gsk_", class: cAlnum, min: 40},             // Groq
		vendor{prefix: "r8_", class: cAlnum, min: 30},              // Replicate
		vendor{prefix: "sbp_", class: cAlnum, min: 40},             // Supabase
		vendor{prefix: "whsec_", class: cTok, min: 24},             // Stripe, Svix webhook secrets
		vendor{prefix: "fo1_", class: cTok, min: 40},               // Fly.io
		vendor{prefix: "pscale_tkn_", class: cTok, min: 32},        // PlanetScale
		vendor{prefix: "pscale_pw_", class: cTok, min: 32},         //
		vendor{prefix: "rubygems_", class: cAlnum, min: 48},        // RubyGems
		vendor{prefix: "figd_", class: cTok, min: 40},              // Figma
		vendor{prefix: "ntn_", class: cAlnum, min: 40},             // Notion
		vendor{prefix: "secret_", class: cAlnum, min: 43, max: 43}, // Notion (older)
		vendor{prefix: "lsv2_pt_", class: cTok, min: 40},           // LangSmith
		vendor{prefix: "lsv2_sk_", class: cTok, min: 40},           //
		vendor{prefix: "pcsk_", class: cTok, min: 40},              // Pinecone
		vendor{prefix: "tgp_v1_", class: cTok, min: 40},            // Together AI
		vendor{prefix: "nfp_", class: cAlnum, min: 36},             // Netlify
		vendor{prefix: "CCIPAT_", class: cTok, min: 40},            // CircleCI
		vendor{prefix: "bkua_", class: cAlnum, min: 40, max: 40},   // Buildkite
		vendor{prefix: "re_", class: cTok, min: 30},                // Resend
	)
	hyphenVendors = vendorsAt('-',
		vendor{prefix: "pypi-AgEIcHlwaS5vcmc", class: cTok, min: 50}, // PyPI (macaroon)
		vendor{prefix: "AGE-SECRET-KEY-1", class: cAlnum, min: 50},   // age
		vendor{prefix: "PMAK-", class: cTok, min: 40},                // Postman
		vendor{prefix: "NRAK-", class: cAlnum, min: 27},              // New Relic
		vendor{prefix: "pul-", class: cAlnum, min: 40, max: 40},      // Pulumi
		vendor{prefix: "xai-", class: cAlnum, min: 60},               // xAI
		vendor{prefix: "pplx-", class: cAlnum, min: 40},              // Perplexity
		vendor{prefix: "nvapi-", class: cTok, min: 60},               // NVIDIA
		vendor{prefix: "GOCSPX-", class: cTok, min: 24},              // Google OAuth client secret
		vendor{prefix: "sq0atp-", class: cTok, min: 22},              // Square
		vendor{prefix: "sq0csp-", class: cTok, min: 40},              //
		vendor{prefix: "key-", class: cAlnum, min: 32, max: 32},      // Mailgun
		vendor{prefix: "glptt-", class: cTok, min: 20},               // GitLab, beyond glpat-
		vendor{prefix: "gldt-", class: cTok, min: 20},                //
		vendor{prefix: "glrt-", class: cTok, min: 20},                //
		vendor{prefix: "glft-", class: cTok, min: 20},                //
		vendor{prefix: "glcbt-", class: cTok, min: 20},               //
		vendor{prefix: "glsoat-", class: cTok, min: 20},              //
		vendor{prefix: "tvly-", class: cAlnum, min: 32},              // Tavily
		vendor{prefix: "HRKU-", class: cTok, min: 40},                // Heroku
	)
	dotVendors = vendorsAt('.',
		vendor{prefix: "hvs.", class: cTok, min: 24}, // HashiCorp Vault service, batch, recovery
		vendor{prefix: "hvb.", class: cTok, min: 24},
		vendor{prefix: "hvr.", class: cTok, min: 24},
		vendor{prefix: "ya29.", class: cTok, min: 30, dots: true},        // Google OAuth access token
		vendor{prefix: "SG.", class: cTok, min: 60, max: 70, dots: true}, // SendGrid: 22 . 43
		vendor{prefix: "dp.pt.", class: cAlnum, min: 40},                 // Doppler
		vendor{prefix: "dp.st.", class: cTok, min: 40},
		vendor{prefix: "dp.ct.", class: cAlnum, min: 40},
		vendor{prefix: "dp.sa.", class: cAlnum, min: 40},
		vendor{prefix: "sk.eyJ", class: cTok, min: 60, dots: true}, // Mapbox secret token
		vendor{prefix: "sl.", class: cTok, min: 100},               // Dropbox short-lived token
	)
)

// vendorAt checks the vendors whose prefix holds the byte at u. It returns
// the match's start, end and kept bytes, and where scanning may resume
// (past a tail it measured, so runs of glued prefixes stay linear).
func vendorAt(s string, u int, t *vendorTable) (st, e, keep, next int, ok bool) {
	next = u + 1
	if u == 0 {
		return 0, 0, 0, next, false
	}
	vs := t[s[u-1]]
	for i := range vs {
		v := &vs[i]
		st = u - v.at
		if st < 0 || !strings.HasPrefix(s[st:], v.prefix) {
			continue
		}
		if len(v.prefix) <= 4 && !leftOK(s, st) || !gluedOK(s, st) {
			continue
		}
		t := st + len(v.prefix)
		e = spanClass(s, t, v.class)
		if v.dots {
			for e+1 < len(s) && s[e] == '.' && int(class[s[e+1]])&v.class != 0 {
				e = spanClass(s, e+1, v.class)
			}
		}
		next = max(next, e)
		n := e - t
		if n < v.min || v.max > 0 && n > v.max || !tokenish(s[t:e]) {
			continue
		}
		return st, e, len(v.prefix), next, true
	}
	return 0, 0, 0, next, false
}

// scanDot: the vendors of dotVendors, Discord bot tokens and Terraform
// Cloud tokens, whose shapes turn on a '.'.
func (r *Redactor) scanDot(s string, dst []span) []span {
	for off := 0; ; {
		k := strings.IndexByte(s[off:], '.')
		if k < 0 {
			return dst
		}
		u := off + k
		off = u + 1
		// Every shape here goes on with a token byte after the dot, which
		// rules out a sentence's end at once.
		if u == 0 || u+1 >= len(s) || class[s[u-1]]&cAlnum == 0 || class[s[u+1]]&cTok == 0 {
			continue
		}
		if st, e, keep, next, ok := vendorAt(s, u, dotVendors); ok {
			dst = r.add(dst, rVendor, st, e, keep)
			off = max(off, next)
			continue
		}
		if st, e, keep, ok := terraformToken(s, u); ok {
			dst = r.add(dst, rVendor, st, e, keep)
			off = max(off, e)
			continue
		}
		if st, e, ok := discordToken(s, u); ok {
			dst = r.add(dst, rVendor, st, e, 0)
			off = max(off, e)
		}
	}
}

// terraformToken: <14 alphanumerics>.atlasv1.<60 or more token bytes>, the
// dot at u; the id and "atlasv1." are kept.
func terraformToken(s string, u int) (st, e, keep int, ok bool) {
	const mid = ".atlasv1."
	if !strings.HasPrefix(s[u:], mid) || u < 14 {
		return 0, 0, 0, false
	}
	st = u - 14
	if spanClass(s, st, cAlnum) != u || !leftOK(s, st) {
		return 0, 0, 0, false
	}
	t := u + len(mid)
	e = spanClass(s, t, cTok)
	if e-t < 60 || !tokenish(s[t:e]) {
		return 0, 0, 0, false
	}
	return st, e, u + len(mid) - st, true
}

// discordToken: a Discord bot token, three base64url parts joined by
// dots — the user id (24 to 28 bytes, starting M, N or O), a 6-byte
// timestamp, and an HMAC of 27 or more — with the first dot at u. Nothing
// is kept: no part says what the token is.
func discordToken(s string, u int) (st, e int, ok bool) {
	if u+8 >= len(s) || s[u+7] != '.' {
		return 0, 0, false
	}
	st = u
	for st > 0 && u-st <= 28 && class[s[st-1]]&cTok != 0 {
		st--
	}
	if n := u - st; n < 24 || n > 28 || strings.IndexByte("MNO", s[st]) < 0 || !leftOK(s, st) {
		return 0, 0, false
	}
	t := spanClass(s, u+1, cTok)
	if t-u-1 != 6 || t >= len(s) || s[t] != '.' {
		return 0, 0, false
	}
	e = spanClass(s, t+1, cTok)
	if e-t-1 < 27 || !tokenish(s[st:u]) || !tokenish(s[t+1:e]) {
		return 0, 0, false
	}
	return st, e, true
}
