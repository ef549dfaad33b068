// Package redact removes secrets from text. loci runs it before anything is
// stored and again at every output: MCP tool results and resources, CLI
// output, HTTP responses, hook output and logs. It uses only the standard
// library and imports nothing from loci.
//
// # API
//
//	String(s) (out string, n int)  redacted text and number of secrets replaced
//	Bytes(b) (out []byte, n int)   the same for byte slices
//	Contains(s) bool               whether any rule matches
//	Find(s) []Match                Match{Rule, Start, End}, for tests and audit
//	JSON(doc) []byte               redacts every string of a JSON document
//	Writer(w) io.Writer            redacts every Write (zerolog, log files)
//
// The package-level functions use every rule (Default); New builds a
// Redactor with a subset (rule names are the Rule* constants, listed by
// Rules). A Redactor is immutable and safe for concurrent use. Clean input
// is the fast path:
// each rule is anchored on one cheap literal byte ('_', '-', '=', ':', '/',
// 'A', 'B', 'J') found with the vectorised strings.IndexByte, and String,
// Bytes, Contains, JSON and Writer return their input without allocating
// when nothing matches.
//
// # Replacement format
//
// Seed 000 credentials keep their first eight characters followed by
// "_REDACTED" (SeedMask): emk_a1b2_REDACTED, evt_a1b2_REDACTED.
//
// Every other rule replaces the secret with "[REDACTED]" (Mask), keeping
// only a short vendor prefix that says what was there — ghp_[REDACTED],
// AKIA[REDACTED], sk-ant-[REDACTED], eyJ[REDACTED] — or, for secrets that
// follow a label, keeping the label and replacing the whole value:
// X-Amz-Signature=[REDACTED], password=[REDACTED], Bearer [REDACTED],
// postgres://user:[REDACTED]@host. Private keys keep their BEGIN and END
// lines and line breaks; the body becomes [REDACTED].
//
// Masks contain no quote, backslash or control byte, so redacting a JSON
// document or a JSON log line keeps it valid. Redaction is idempotent:
// String(String(s)) == String(s). Rules skip values that already are or
// end in a mask, and String repeats passes (at most four) until no rule
// matches, for the rare input where one replacement changes the context of
// another rule. Find reports the first pass.
// When matches of different rules overlap they are merged into one
// replacement that covers all of them and keeps the prefix of the one that
// starts first (at the same start, the higher-priority rule in Rules order:
// private-key, then signed-url-param, then the vendor prefixes, with
// generic-secret last — so token=ghp_… gives token=ghp_[REDACTED] and
// X-Amz-Credential=AKIA… gives X-Amz-Credential=[REDACTED]).
//
// # Rules
//
// A token may only start at a boundary: the start of the text, a byte other
// than [A-Za-z0-9_-], or right after a JSON escape such as \n or \u0026, so
// raw JSON is scanned like its decoded text. Names in parentheses are the
// stable rule names reported by Find.
//
// Seed 000 (emk-key, evt-token): emk_ or evt_ followed by at least 16 token
// characters [A-Za-z0-9_-] is the full form and is masked to its first eight
// characters + _REDACTED. The tail is exempt when it reads like a program
// identifier (every part between '_'/'-' is lower-case letters, only digits,
// or camelCase words), e.g. evt_handler_for_click_events. Short prefixes
// such as emk_a1b2 and evt_a1b2 (and anything under 20 characters, including
// an earlier emk_a1b2_REDACTED) are left alone.
//
// AWS (aws-access-key-id, aws-secret-access-key): AKIA, ASIA, AGPA, AIDA,
// AROA, ANPA, ANVA or AIPA followed by exactly 16 of [A-Z0-9] → AKIA[REDACTED].
// A secret access key is redacted when labelled: a key ending in
// secret_access_key / SecretAccessKey / aws_secret_key (case, '_', '-', '.'
// ignored) followed by '=' or ':' and a high-entropy value (see below); or
// when it follows an AKIA or ASIA key id after at most 8 bytes of space,
// commas, colons, bars or quotes, as exactly 40 generated-looking bytes of
// base64 (a row of the console's credentials.csv, a pasted pair).
//
// Signed URLs (signed-url-param): the values of X-Amz-Signature,
// X-Amz-Credential, X-Amz-Security-Token, X-Goog-Signature and
// X-Goog-Credential (any case) become [REDACTED]; the rest of the URL stays
// readable. The legacy Signature and AWSAccessKeyId parameters (S3 v2,
// CloudFront) are redacted only inside a query string (after '?', '&' or
// ';') that also carries Expires=.
//
// Vendor tokens, prefix kept:
//   - github-token: ghp_, gho_, ghu_, ghs_, ghr_ + ≥20 alphanumerics;
//     github_pat_ + ≥22 of [A-Za-z0-9_].
//   - openai-api-key: sk-, sk-proj-, sk-admin-, sk-svcacct- + ≥20 token chars.
//   - anthropic-api-key: sk-ant- + ≥20 token chars.
//   - slack-token: xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xapp- + ≥10 token chars.
//   - slack-webhook: the path after hooks.slack.com/services/ (or
//     /workflows/, /triggers/) → https://hooks.slack.com/services/[REDACTED];
//     discord-webhook: the path after discord.com/api/webhooks/ (or
//     discordapp.com's).
//   - loci-token: loci's own access tokens (loci_ + 12 hex + _ + 64 hex)
//     keep their public id: loci_0123456789ab_[REDACTED].
//   - npm-token (npm_ + ≥30), gitlab-token (glpat- + ≥20), huggingface-token
//     (hf_ + ≥30), stripe-key (sk_live_, sk_test_, rk_live_, rk_test_ + ≥20),
//     google-api-key (AIza + exactly 35 token chars).
//   - vendor-token, the long tail (vendors.go has each one's length and
//     characters): DigitalOcean dop_v1_/doo_v1_/dor_v1_, Shopify shpat_/
//     shpss_/shpca_/shppa_, Docker Hub dckr_pat_, Grafana glsa_/glc_, Linear
//     lin_api_, Sentry sntrys_/sntryu_, Groq gsk_, Replicate r8_, Supabase
//     sbp_, Stripe and Svix whsec_, Fly.io fo1_, PlanetScale pscale_tkn_/
//     pscale_pw_, RubyGems rubygems_, Figma figd_, Notion ntn_/secret_, PyPI
//     pypi-AgEIcHlwaS5vcmc, age AGE-SECRET-KEY-1, Postman PMAK-, New Relic
//     NRAK-, Pulumi pul-, xAI xai-, Perplexity pplx-, NVIDIA nvapi-, Google
//     OAuth GOCSPX-, ya29. and refresh tokens 1//0 (at least 30 token
//     characters after it), Square sq0atp-/sq0csp-, Mailgun key-, GitLab's
//     other tokens (glptt-, gldt-, glrt-, glft-, glcbt-, glsoat-), Vault hvs./
//     hvb./hvr., SendGrid SG., Doppler dp.pt./dp.st./dp.ct./dp.sa.,
//     LangSmith lsv2_pt_/lsv2_sk_, Pinecone pcsk_, Together AI tgp_v1_,
//     Netlify nfp_, CircleCI CCIPAT_, Buildkite bkua_, Resend re_, Tavily
//     tvly-, Heroku HRKU-, Mapbox sk.eyJ, Dropbox sl.,
//     Terraform Cloud <id>.atlasv1. (the id kept), Discord bot tokens
//     (three dotted base64url parts; nothing kept), Telegram bot tokens
//     (the bot's id of 8 to 10 digits, kept, ':' and 35 token characters:
//     1234567890:[REDACTED]), Atlassian API tokens (ATATT3 and 150 or more
//     base64url bytes), Firebase Cloud Messaging server keys (AAAA and 7
//     bytes, :APA91b and 100 or more; nothing kept) and Azure AD client
//     secrets (3 bytes, a digit, Q~ and 31 to 34 more: 37 to 40 in all;
//     nothing kept). A prefix of four bytes or fewer must start a word.
//
// Vendor tails must look generated: they contain a digit or both upper- and
// lower-case letters, so sk-this-is-a-phrase or ghs_configuration stay.
//
// jwt: three base64url segments separated by dots, the first starting with
// eyJ, the first two at least 10 characters → eyJ[REDACTED]. An empty third
// segment (unsigned token) counts only when the second also starts with eyJ.
//
// private-key: -----BEGIN <label>-----, where the label contains
// "PRIVATE KEY" (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP ... BLOCK), through the
// next "-----" (normally the END line), across lines; a truncated key is
// redacted to the end of the text. The body never extends past a '"', so a
// key split over several JSON strings cannot break the document. Public keys
// and certificates are kept.
//
// bearer-token, authorization-header: the value of an Authorization or
// Proxy-Authorization header (after ':' or '=', quoted or not) — the scheme
// word stays (Bearer, Basic, token, AWS4-HMAC-SHA256) and the credentials
// become [REDACTED]; a SigV4-style parameter list is redacted to the end of
// the line. Outside a header, "Bearer <token>" (capital B) is redacted when
// the token is high-entropy and at least 12 characters.
//
// url-password: scheme://user:password@host → scheme://user:[REDACTED]@host.
// An Azure shared access signature's sig= is redacted as signed-url-param
// inside a query that also carries sv=.
//
// generic-secret: key=value, key: value, "key": "value" and key := value
// where the key (case, '_', '-', '.' ignored) ends in password, passwd, pwd,
// passphrase, secret, token, apikey, secretkey, privatekey, signingkey,
// authkey, accountkey (Azure's AccountKey=), accesskey, masterkey,
// encryptionkey or secretkeybase (Rails), or is JSESSIONID or PHPSESSID
// (session cookies; a session_id field names a conversation and stays),
// auth or _auth (Docker's config.json, .npmrc), pass or pw after '_', '-'
// or '.' (DB_PASS, MYSQL_PW), or "key" after api, secret, private, access,
// signing, encryption or master and a space ("API key:").
// A quoted value runs to its closing quote, so a password holding '&' or
// '$' is redacted whole. Conservative by design: the value must be
// high-entropy —
// 16 to 1024 characters (8 for password keys), a letter plus a digit or a
// symbol (or upper and lower case in even measure), Shannon entropy of at
// least min(3.0, log2(len)-0.5) bits per character, not a number such as
// 1.5e+21, not a lower-case path, not a placeholder such as ${DB_PASSWORD}
// or YOUR_TOKEN_HERE, and, unquoted, not code: neither a call
// (x = tls13.NewEarlySecret(…)) nor an identifier ending in token, secret,
// password, passwd or key (t.AccessToken = res.IDToken) — so max_tokens=4096
// or token_type=bearer stay.
//
// Passwords are the exception, since people choose them: the value of a
// password label (a key ending in password, passwd, pwd or passphrase, or
// in pass or pw after '_', '-' or '.': DB_PASS, MYSQL_PW) is redacted when
// it fails the entropy test too, from 4 characters, if it reads as nothing
// else. Written as a literal (a whole quoted string, KEY=value with nothing
// between, an environment variable's name before ':' as in a compose file)
// letters alone are enough: POSTGRES_PASSWORD=[REDACTED], "password":
// "[REDACTED]". After a space (password: …, password = …, "my password is
// …", --password …, sshpass -p …, a .netrc line), where prose, code and
// type annotations write a word, the value must hold a digit or a symbol
// (password: [REDACTED] for hunter2; "the password is correct" stays).
// Never a placeholder (${PW}, <password>, {{ vault_pw }}, ********,
// YOUR_PASSWORD, yourpassword), a word of a schema or a setting (string,
// null, required, true), a path, a name of code (pw_hash, cfg.Password,
// hashedPw, sslpassword), a hex constant (0x115), another key=value, or an
// unquoted value that code goes on after (f(password=pw1), Password: pw2,).
//
// Hidden secrets. A vendor-prefixed token also matches when glued to a
// word by '-', '_', '.' or '/' (tag-AKIA…, x_ghp_…); a text whose secret is
// hidden by zero-width characters or percent-encoded separators (ghp%5F…,
// key%3D…) is redacted in its revealed form; "password is X", "passphrase
// was X" and pwd/passwd labels count as password labels, as do a command
// line's "--password X" and the password of a .netrc line ("login U password
// X"), the password of curl's -u/--user user:password, mysql's and
// mariadb's -pPASSWORD and sshpass's -p PASSWORD. A token split by a
// space or a line break, re-encoded (base64) or spelled out is out of scope:
// catching those would redact ordinary text (see hidden.go).
//
// # JSON and logs
//
// JSON scans the raw document (which also sees key/value pairs such as
// {"password": "..."}) and then decodes, redacts and re-encodes only the
// string literals that hold escapes, so \u0065mk_... or "Bearer\t..." cannot
// slip through. Writer redacts each Write on its own (zerolog writes one event
// per call), treating a payload that starts with '{' or '[' as JSON; it
// reports len(p) on success so callers never see a short write.
package redact
