package redact

import (
	"strings"
	"testing"
	"time"
)

type tcase struct {
	name, in, want string
	rules          []string // rules expected from Find, in order (optional)
}

func positiveCases() []tcase {
	return []tcase{
		// Rule 1: seed 000 emk_/evt_.
		{name: "emk alone", in: fakeEMK, want: "emk_a1b2_REDACTED", rules: []string{RuleEMK}},
		{name: "evt alone", in: fakeEVT, want: "evt_a1b2_REDACTED", rules: []string{RuleEVT}},
		{name: "emk in prose", in: "use key " + fakeEMK + " to log in", want: "use key emk_a1b2_REDACTED to log in"},
		{name: "emk at start and end", in: fakeEMK + " and " + fakeEVT, want: "emk_a1b2_REDACTED and evt_a1b2_REDACTED",
			rules: []string{RuleEMK, RuleEVT}},
		{name: "emk exactly 16 tail", in: "k=emk" + "_" + "a1b2c3d4e5f6a7b8.", want: "k=emk_a1b2_REDACTED."},
		{name: "emk with - and _", in: "(evt" + "_" + "a1b2-c3d4_e5f6-g7h8)", want: "(evt_a1b2_REDACTED)"},
		{name: "emk in JSON", in: `{"key":"` + fakeEMK + `"}`, want: `{"key":"emk_a1b2_REDACTED"}`},
		{name: "emk after JSON escape", in: `"line\n` + fakeEMK + `\n"`, want: `"line\nemk_a1b2_REDACTED\n"`},
		{name: "emk uppercase tail", in: "emk" + "_" + rep("AbCdEfGh", 3), want: "emk_AbCd_REDACTED"},

		// Rule 2: AWS.
		{name: "aws key id", in: "id " + fakeAWSID + ".", want: "id AKIA[REDACTED].", rules: []string{RuleAWSAccessKeyID}},
		{name: "aws asia", in: fakeASIA, want: "ASIA[REDACTED]"},
		{name: "aws env", in: "AWS_ACCESS_KEY_ID=" + fakeAWSID + "\nAWS_SECRET_ACCESS_KEY=" + fakeAWSSec + "\n",
			want:  "AWS_ACCESS_KEY_ID=AKIA[REDACTED]\nAWS_SECRET_ACCESS_KEY=[REDACTED]\n",
			rules: []string{RuleAWSAccessKeyID, RuleAWSSecretKey}},
		{name: "aws secret ini", in: "aws_secret_access_key = " + fakeAWSSec, want: "aws_secret_access_key = [REDACTED]"},
		{name: "aws credentials.csv row", in: "ana,," + fakeAWSID + "," + fakeAWSSec + ",https://console.aws.amazon.com/",
			want:  "ana,,AKIA[REDACTED],[REDACTED],https://console.aws.amazon.com/",
			rules: []string{RuleAWSAccessKeyID, RuleAWSSecretKey}},
		{name: "aws pair unlabelled", in: "here: " + fakeASIA + " " + fakeAWSSec + "\nthanks", want: "here: ASIA[REDACTED] [REDACTED]\nthanks"},
		{name: "aws id and a shorter run", in: fakeAWSID + " " + fakeAWSSec[:39] + " x", want: "AKIA[REDACTED] " + fakeAWSSec[:39] + " x",
			rules: []string{RuleAWSAccessKeyID}},
		{name: "aws secret json", in: `{"AccessKeyId": "` + fakeASIA + `", "SecretAccessKey": "` + fakeAWSSec + `"}`,
			want:  `{"AccessKeyId": "ASIA[REDACTED]", "SecretAccessKey": "[REDACTED]"}`,
			rules: []string{RuleAWSAccessKeyID, RuleAWSSecretKey}},

		// Rule 3: signed URLs.
		{name: "s3 presigned v4", in: presignedV4(), want: presignedV4Want},
		{name: "gcs presigned", in: presignedGCS(), want: presignedGCSWant},
		{name: "s3 legacy presigned", in: presignedLegacy(), want: presignedLegacyWant},
		{name: "presigned in prose", in: "upload to <" + presignedV4() + "> now", want: "upload to <" + presignedV4Want + "> now"},
		{name: "presigned in markdown", in: "[file](" + presignedLegacy() + ")", want: "[file](" + presignedLegacyWant + ")"},
		{name: "presigned with Go JSON escapes", in: `{"url":"` + strings.ReplaceAll(presignedLegacy(), "&", `\u0026`) + `"}`,
			want: `{"url":"` + strings.ReplaceAll(presignedLegacyWant, "&", `\u0026`) + `"}`},
		{name: "signature lower case", in: "?x-amz-signature=" + fakeHex64, want: "?x-amz-signature=[REDACTED]"},
		{name: "cloudfront style", in: "https://d.cloudfront.net/v.mp4?Expires=1700000000&Signature=" + rep("Ab9~", 8) + "&Key-Pair-Id=K2",
			want: "https://d.cloudfront.net/v.mp4?Expires=1700000000&Signature=[REDACTED]&Key-Pair-Id=K2"},

		// Rule 4: common credentials.
		{name: "ghp", in: "token " + fakeGHP, want: "token ghp_[REDACTED]", rules: []string{RuleGitHubToken}},
		{name: "ghs in url", in: "https://x-access-token:" + fakeGHS + "@github.com/o/r.git",
			want: "https://x-access-token:ghs_[REDACTED]@github.com/o/r.git"},
		{name: "github pat", in: "GH=" + fakeGHPat, want: "GH=github_pat_[REDACTED]"},
		{name: "loci token", in: "LOCI_HTTP_TOKEN=" + "loci" + "_0123456789ab_" + fakeHex64 + " ok",
			want: "LOCI_HTTP_TOKEN=loci_0123456789ab_[REDACTED] ok", rules: []string{RuleLociToken}},
		{name: "npm", in: "//registry.npmjs.org/:_authToken=" + "npm" + "_" + fakeTok(21, 36),
			want: "//registry.npmjs.org/:_authToken=npm_[REDACTED]", rules: []string{RuleNPMToken}},
		{name: "huggingface", in: "HF_TOKEN=" + "hf" + "_" + fakeTok(22, 34), want: "HF_TOKEN=hf_[REDACTED]",
			rules: []string{RuleHuggingFace}},
		{name: "google api key", in: "?key=" + "AI" + "za" + fakeTok(23, 35) + "&q=x", want: "?key=AIza[REDACTED]&q=x",
			rules: []string{RuleGoogleAPIKey}},
		{name: "stripe", in: "stripe " + "sk" + "_live_" + fakeTok(24, 24), want: "stripe sk_live_[REDACTED]",
			rules: []string{RuleStripeKey}},
		{name: "openai", in: "OPENAI_API_KEY=" + fakeOpenAI, want: "OPENAI_API_KEY=sk-[REDACTED]", rules: []string{RuleOpenAIKey}},
		{name: "openai proj", in: "key: " + fakeProj + "\n", want: "key: sk-proj-[REDACTED]\n"},
		{name: "anthropic", in: `"` + fakeAnt + `"`, want: `"sk-ant-[REDACTED]"`, rules: []string{RuleAnthropicKey}},
		{name: "slack bot", in: "slack " + fakeXoxb + ", ok", want: "slack xoxb-[REDACTED], ok", rules: []string{RuleSlackToken}},
		{name: "slack user", in: fakeXoxp, want: "xoxp-[REDACTED]"},
		{name: "slack webhook", in: "post to " + fakeHook + " please", want: "post to https://hooks.slack.com/services/[REDACTED] please",
			rules: []string{RuleSlackWebhook}},
		{name: "jwt", in: "jwt=" + fakeJWT + ";", want: "jwt=eyJ[REDACTED];", rules: []string{RuleJWT}},
		{name: "jwt in cookie", in: "Cookie: session=" + fakeJWT, want: "Cookie: session=eyJ[REDACTED]"},
		{name: "pem rsa", in: "key:\n" + fakePEM("RSA PRIVATE KEY") + "\nend",
			want:  "key:\n-----BEGIN RSA PRIVATE KEY-----\n[REDACTED]\n-----END RSA PRIVATE KEY-----\nend",
			rules: []string{RulePrivateKey}},
		{name: "pem pkcs8 crlf", in: strings.ReplaceAll(fakePEM("PRIVATE KEY"), "\n", "\r\n"),
			want: "-----BEGIN PRIVATE KEY-----\r\n[REDACTED]\r\n-----END PRIVATE KEY-----"},
		{name: "pem openssh", in: fakePEM("OPENSSH PRIVATE KEY"),
			want: "-----BEGIN OPENSSH PRIVATE KEY-----\n[REDACTED]\n-----END OPENSSH PRIVATE KEY-----"},
		{name: "pem escaped in JSON", in: `{"k":"` + strings.ReplaceAll(fakePEM("EC PRIVATE KEY"), "\n", `\n`) + `"}`,
			want: `{"k":"-----BEGIN EC PRIVATE KEY-----\n[REDACTED]\n-----END EC PRIVATE KEY-----"}`},
		{name: "pem truncated", in: "-----BEGIN RSA PRIVATE KEY-----\n" + fakePEMBody,
			want: "-----BEGIN RSA PRIVATE KEY-----\n[REDACTED]"},
		{name: "bearer header", in: "Authorization: Bearer " + fakeTok(3, 24), want: "Authorization: Bearer [REDACTED]",
			rules: []string{RuleBearerToken}},
		{name: "bearer curl", in: `curl -H "authorization: bearer ` + fakeTok(4, 12) + `" https://api`,
			want: `curl -H "authorization: bearer [REDACTED]" https://api`},
		{name: "bearer jwt", in: "Authorization: Bearer " + fakeJWT, want: "Authorization: Bearer eyJ[REDACTED]"},
		{name: "bearer bare", in: "use Bearer " + fakeTok(5, 10) + "." + fakeTok(6, 8) + " here", want: "use Bearer [REDACTED] here"},
		{name: "basic auth header", in: "Authorization: Basic " + "dXNlcjpwYXNzd29yZA==", want: "Authorization: Basic [REDACTED]",
			rules: []string{RuleAuthHeader}},
		{name: "aws sigv4 header", in: "Authorization: AWS4-HMAC-SHA256 Credential=" + fakeAWSID +
			"/20240101/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=" + fakeHex64 + "\r\nHost: s3",
			want: "Authorization: AWS4-HMAC-SHA256 [REDACTED]\r\nHost: s3", rules: []string{RuleAuthHeader}},
		{name: "github token scheme", in: `"Authorization": "token ` + fakeGHP + `"`, want: `"Authorization": "token ghp_[REDACTED]"`},
		{name: "password assignment", in: "password=" + "Tr0ub4dor3x&user=bob", want: "password=[REDACTED]&user=bob"},
		{name: "db password yaml", in: "db_password: " + "s3cr3t-Pa55w0rd!\n", want: "db_password: [REDACTED]\n",
			rules: []string{RuleGenericSecret}},
		{name: "api_key quoted", in: `api_key = "` + fakeTok(7, 24) + `"`, want: `api_key = "[REDACTED]"`},
		{name: "apiKey json", in: `{"apiKey":"` + fakeTok(8, 21) + `"}`, want: `{"apiKey":"[REDACTED]"}`},
		{name: "client secret go", in: `clientSecret := "` + fakeTok(9, 21) + `"`, want: `clientSecret := "[REDACTED]"`},
		{name: "token env", in: "export GITLAB_TOKEN=" + "glpat-" + fakeTok(10, 20), want: "export GITLAB_TOKEN=glpat-[REDACTED]", rules: []string{RuleGitLabToken}},
		{name: "hex secret", in: "secret=" + "9e107d9d372bb6826bd81d3542a419d6", want: "secret=[REDACTED]"},
		{name: "escaped JSON in JSON", in: `"{\"password\":\"` + fakeTok(11, 12) + `\"}"`, want: `"{\"password\":\"[REDACTED]\"}"`},
		{name: "url password", in: "postgres://loci:" + "hunter2" + "@localhost:5432/db",
			want: "postgres://loci:[REDACTED]@localhost:5432/db", rules: []string{RuleURLPassword}},

		// The long tail of vendor prefixes (vendor-token), prefix kept.
		{name: "digitalocean", in: "DO=" + "dop" + "_v1_" + rep("9f8e", 16), want: "DO=dop_v1_[REDACTED]", rules: []string{RuleVendorToken}},
		{name: "shopify", in: "shpat" + "_" + rep("0a1b", 8) + " ok", want: "shpat_[REDACTED] ok"},
		{name: "docker hub", in: "docker login -p " + "dckr" + "_pat_" + fakeTok(31, 27), want: "docker login -p dckr_pat_[REDACTED]"},
		{name: "grafana", in: "glsa" + "_" + fakeTok(32, 32) + "_" + "1a2b3c4d", want: "glsa_[REDACTED]"},
		{name: "pypi", in: "password = " + "pypi-" + "AgEIcHlwaS5vcmc" + fakeTok(33, 60), want: "password = pypi-AgEIcHlwaS5vcmc[REDACTED]"},
		{name: "age", in: "AGE-" + "SECRET-KEY-1" + rep("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 2)[:58], want: "AGE-SECRET-KEY-1[REDACTED]"},
		{name: "google oauth client secret", in: `"client_id": "x", "web": "` + "GOCSPX" + "-" + fakeTok(34, 28) + `"`,
			want: `"client_id": "x", "web": "GOCSPX-[REDACTED]"`},
		{name: "mailgun", in: "api:" + "key" + "-" + rep("3ax6", 8), want: "api:key-[REDACTED]"},
		{name: "vault", in: "VAULT=" + "hvs" + "." + fakeTok(35, 90) + ".", want: "VAULT=hvs.[REDACTED].", rules: []string{RuleVendorToken}},
		{name: "sendgrid", in: "SG" + "." + fakeTok(36, 22) + "." + fakeTok(37, 43), want: "SG.[REDACTED]"},
		{name: "google oauth refresh token", in: "refresh with " + "1//0" + "g" + fakeTok(41, 60) + "-" + fakeTok(42, 38) + " then",
			want: "refresh with 1//0[REDACTED] then"},
		{name: "google oauth refresh token in a token response", in: `{"access_token": "x", "expires_in": 3599, "token": "` + "1//0" + "4" + fakeTok(43, 90) + `"}`,
			want: `{"access_token": "x", "expires_in": 3599, "token": "1//0[REDACTED]"}`},
		{name: "google oauth access token", in: "ya29" + "." + fakeTok(38, 20) + "-" + fakeTok(39, 30) + ". Next",
			want: "ya29.[REDACTED]. Next"},
		{name: "discord bot token", in: "bot: " + "MTAx" + fakeTok(40, 20) + "." + "GaBcDe" + "." + fakeTok(41, 38),
			want: "bot: [REDACTED]"},
		{name: "terraform cloud", in: "TFE=" + rep("ab12", 3) + "cd" + ".atlasv1." + fakeTok(42, 66),
			want: "TFE=ab12ab12ab12cd.atlasv1.[REDACTED]"},
		{name: "discord webhook", in: "https://discord" + ".com/api/webhooks/123456789012345678/" + fakeTok(43, 68),
			want: "https://discord.com/api/webhooks/[REDACTED]", rules: []string{RuleDiscordWebhook}},
		{name: "langsmith", in: "LANGSMITH_API_KEY=" + "lsv2" + "_pt_" + rep("0a1b", 8) + "_" + "9f8e7d6c5b", want: "LANGSMITH_API_KEY=lsv2_pt_[REDACTED]"},
		{name: "pinecone", in: "pc = " + "pcsk" + "_" + fakeTok(60, 5) + "_" + fakeTok(61, 60), want: "pc = pcsk_[REDACTED]"},
		{name: "together", in: "tgp" + "_v1_" + fakeTok(62, 43), want: "tgp_v1_[REDACTED]"},
		{name: "netlify", in: "token " + "nfp" + "_" + fakeTok(63, 40), want: "token nfp_[REDACTED]"},
		{name: "circleci", in: "CCIPAT" + "_" + fakeTok(64, 22) + "_" + rep("0a1b", 10), want: "CCIPAT_[REDACTED]"},
		{name: "buildkite", in: "bkua" + "_" + rep("0a1b2c3d", 5), want: "bkua_[REDACTED]"},
		{name: "resend", in: "RESEND: " + "re" + "_" + fakeTok(65, 8) + "_" + fakeTok(66, 24), want: "RESEND: re_[REDACTED]"},
		{name: "tavily", in: "tvly" + "-" + fakeTok(67, 32), want: "tvly-[REDACTED]"},
		{name: "heroku", in: "HEROKU=" + "HRKU" + "-" + fakeTok(68, 60), want: "HEROKU=HRKU-[REDACTED]"},
		{name: "mapbox secret", in: "sk" + ".eyJ1IjoiYWJjIiwiYSI6I" + fakeTok(69, 20) + "." + fakeTok(70, 22), want: "sk.eyJ[REDACTED]"},
		{name: "dropbox short-lived", in: "Bearer-less " + "sl" + "." + fakeTok(72, 138), want: "Bearer-less sl.[REDACTED]"},
		{name: "azure client secret", in: `AZURE_SECRET_VALUE="` + "x7K" + "8Q~" + fakeTok(73, 29) + "_~" + `"`, want: `AZURE_SECRET_VALUE="[REDACTED]"`},
		{name: "azure client secret in prose", in: "the new secret is " + "Ab3" + "4Q~" + fakeTok(74, 31) + ", rotate it", want: "the new secret is [REDACTED], rotate it"},
		{name: "atlassian", in: "JIRA: " + "ATATT3" + "xFfGF0" + fakeTok(75, 170) + "=" + "A1B2C3D4", want: "JIRA: ATATT3[REDACTED]"},
		{name: "firebase server key", in: "key=" + "AAAA" + fakeTok(76, 7) + ":APA91b" + fakeTok(77, 134), want: "key=[REDACTED]"},

		// Labels beyond key=value.
		{name: "azure storage", in: "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + fakeTok(44, 86) + "==;EndpointSuffix=core.windows.net",
			want: "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=[REDACTED];EndpointSuffix=core.windows.net"},
		{name: "azure sas", in: "https://a.blob.core.windows.net/c/f?sv=2021-06-08&se=2024-01-01&sig=" + fakeTok(45, 40) + "%3D",
			want: "https://a.blob.core.windows.net/c/f?sv=2021-06-08&se=2024-01-01&sig=[REDACTED]", rules: []string{RuleSignedURLParam}},
		{name: "rails secret_key_base", in: "secret_key_base: " + rep("9e107d9d372bb6826bd81d3542a419d6", 2), want: "secret_key_base: [REDACTED]"},
		{name: "api key with a space", in: "my API key: " + fakeTok(46, 32), want: "my API key: [REDACTED]"},
		{name: "secret key with a space", in: "secret key = " + fakeTok(47, 24), want: "secret key = [REDACTED]"},
		{name: "quoted password with &", in: `DB_PASSWORD="` + "Tr0ub4dor&3" + `xyz" ./run`, want: `DB_PASSWORD="[REDACTED]" ./run`},
		{name: "password phrase with &", in: "the db password is " + "Tr0ub4dor&3" + "xyz, ok?", want: "the db password is [REDACTED], ok?"},
		{name: "netrc", in: "machine api.example.com login octocat password " + fakeTok(48, 20),
			want: "machine api.example.com login octocat password [REDACTED]"},
		{name: "password flag", in: "loader --password " + fakeTok(49, 14) + " --verbose", want: "loader --password [REDACTED] --verbose"},
		{name: "curl -u", in: "curl -u admin:" + fakeTok(50, 14) + " https://example.com", want: "curl -u admin:[REDACTED] https://example.com"},
		{name: "curl --user quoted", in: "curl --user 'admin:" + "S3cr3t&" + fakeTok(51, 8) + "' https://x", want: "curl --user 'admin:[REDACTED]' https://x"},

		{name: "mysql -p", in: "mysql -u root -p" + fakeTok(52, 14) + " shop", want: "mysql -u root -p[REDACTED] shop"},
		{name: "sshpass -p", in: "sshpass -p '" + fakeTok(53, 12) + "' ssh host", want: "sshpass -p '[REDACTED]' ssh host"},
		{name: "docker auth", in: `{"auths":{"https://index.docker.io/v1/":{"auth":"` + fakeTok(54, 28) + `=="}}}`,
			want: `{"auths":{"https://index.docker.io/v1/":{"auth":"[REDACTED]"}}}`},
		{name: "npmrc _auth", in: "_auth=" + fakeTok(55, 24) + "=", want: "_auth=[REDACTED]"},
		{name: "session cookie", in: "Cookie: theme=dark; JSESSIONID=" + fakeTok(56, 32), want: "Cookie: theme=dark; JSESSIONID=[REDACTED]"},

		// Mixed.
		{name: "many in one", in: fakeGHP + " " + fakeAWSID + " " + fakeEMK + " " + fakeXoxb,
			want:  "ghp_[REDACTED] AKIA[REDACTED] emk_a1b2_REDACTED xoxb-[REDACTED]",
			rules: []string{RuleGitHubToken, RuleAWSAccessKeyID, RuleEMK, RuleSlackToken}},
		{name: "token= github", in: "token=" + fakeGHP, want: "token=ghp_[REDACTED]", rules: []string{RuleGitHubToken}},
		{name: "token= emk", in: "EVERME_TOKEN=" + fakeEVT, want: "EVERME_TOKEN=evt_a1b2_REDACTED"},
		{name: "adjacent", in: fakeGHP + "," + fakeGHS, want: "ghp_[REDACTED],ghs_[REDACTED]"},
	}
}

func negativeCases() []string {
	return []string{
		"",
		"hello",
		"loci_version_string and loci_0123456789ab_short",
		prose,
		"commit 3b18e512dba79e4c8300dd08aeb37f8e728b8dad fixed it; see also 3b18e51",
		"id 123e4567-e89b-12d3-a456-426614174000 and 0190a3f0-7b5e-7cc3-9d2a-1f0e2d3c4b5a",
		"emk_a1b2", "evt_a1b2", "support: emk_a1b2 / evt_a1b2",
		"emk_a1b2_REDACTED", "evt_a1b2_REDACTED ok",
		"emk_a1b2c3d4 is a medium prefix",
		"skeleton", "sk-", "sk-learn is a library", "a task-force of risk-takers", "desk-lamp",
		"sk-this-is-a-long-hyphenated-phrase-of-words",
		"ghp_", "github_pat_", "xoxb-", "AKIA", "eyJ", "Bearer", "Bearer of bad news",
		"Authorization: Bearer YOUR_TOKEN_HERE",
		"Authorization: Bearer [REDACTED]", "password=[REDACTED]", "ghp_[REDACTED]",
		"AKIA_IS_NOT_A_KEY and AKIAFAKE", "SOMEAKIAFAKETEST00000000 is glued",
		"func (s *Server) handle(evt_handler_for_click_events string) error { return nil }",
		"evt_2024_01_15_deploy_log.txt", "var emk_handlerForClickEvents = 1", "emk_cache-key-for-session-42",
		"re_compile_the_pattern_for_every_request_handler", "sl.is short", "tvly-is-a-prefix",
		"cd ~/src && ls ~user/.config", "the FAQ~ish page", "x=1Q~2", "approx. 8Q~ what",
		"ATATT3 is Atlassian's prefix", "AAAAbbbbccc:APA91b is short",
		"pk_live_ is publishable", "npm_config_cache=/tmp/npm", "hf_hub_download(repo_id)", "AIzaSy too short",
		"const skeleton = document.querySelector('.sk-loader'); let token = getToken();",
		`token := os.Getenv("GITHUB_TOKEN")`,
		`password = "${DB_PASSWORD}"`, "api_key=YOUR_API_KEY_HERE", "secret: changeme",
		"password: required", "token_type=bearer", "max_tokens=4096", "tokens: 1234567890123456",
		`{"prompt_token": 1.2345678901234567e+21, "ok": true}`,
		"secret_file=/var/run/secrets/kubernetes.io/serviceaccount/token",
		"SGVsbG8sIHdvcmxkISBUaGlzIGlzIG9yZGluYXJ5IHRleHQu",
		"earlySecret = tls13.NewEarlySecret(hs.suite.hash.New, psk)", `procOpenProcessToken = modadvapi32.NewProc("OpenProcessToken")`,
		"token.AccessToken = tokenRes.IDToken", "IFLA_INET6_TOKEN = C.IFLA_INET6_TOKEN", "ClientSecret: *idpClientSecret,",
		"the key-value store", "SG.Smith wrote it", "hvs. is short", "ya29.short", "login page password reset flow",
		"1//0 is undefined", "see 1//0abcdefghijklmnopqrstuvwxyzabcdefgh", "x1//0" + fakeTok(44, 40), "ratio 1//0" + fakeTok(45, 20),
		"curl -u $USER:$PASS https://x", "curl -u admin:admin https://x", "ssh -u root:22", "time 12:30:45 and 09:15",
		"Mr. Smith. Dr. Who. e.g. i.e. v1.2.3 example.com", "the API key: see the docs", "secret key = YOUR_SECRET_KEY",
		"docker run -p 8080:80 -p 127.0.0.1:9000:9000 img", "mkdir -p /var/lib/mysql/data", "ssh -p 2222 host",
		`"oauth": "enabled"`, `{"session_id": "54e1b13a-88f1-529a-88cd-d6fc036350b9", "sessionId": "` + fakeTok(57, 24) + `"}`, "shpat_tooshort", "secret_sauce_recipe_for_the_dinner_party_tonight_ok", "dop_v1_ is DigitalOcean's prefix",
		"https://discord.com/api/webhooks/", "https://example.com/f?sig=abc123DEF456ghi789&v=1",
		`{"password": "Enter your password", "label": "Password & confirm"}`,
		"eyJhIjoxfQ== is base64 of a tiny JSON object",
		"eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0 has no third segment and ends here.",
		"/home/user/.config/loci/palaces/default/palace.db",
		`C:\Users\me\AppData\Local\loci\palace.db`,
		"alice@example.com wrote to bob.smith+tag@example.org",
		"https://example.com/search?q=signature&page=2&sort=desc",
		"https://bucket.s3.amazonaws.com/key.txt?versionId=3HL4kqtJlcpXroDTDmJ",
		"https://example.com/doc?Signature=abc",
		"https://example.com/a?b=c#Signature",
		"http://localhost:8080/path@user",
		"ssh://git@github.com:22/o/r.git",
		"http://[::1]:3031/api/v1/memory/search",
		"-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
		"-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBa\n-----END CERTIFICATE-----",
		"if a == b && c != d { x <= y }",
		"x=1 y=2 z=3 key=value a:b c: d",
		"hooks.slack.com/services/",
		"-----",
	}
}

func TestPositive(t *testing.T) {
	for _, tc := range positiveCases() {
		t.Run(tc.name, func(t *testing.T) {
			got, n := String(tc.in)
			if got != tc.want {
				t.Fatalf("String:\n in  %q\n got %q\nwant %q", tc.in, got, tc.want)
			}
			if n == 0 {
				t.Fatalf("n = 0 for %q", tc.in)
			}
			if !Contains(tc.in) {
				t.Fatalf("Contains(%q) = false", tc.in)
			}
			ms := Find(tc.in)
			if len(ms) != n {
				t.Fatalf("Find gave %d matches, String replaced %d", len(ms), n)
			}
			if tc.rules != nil {
				var names []string
				for _, m := range ms {
					names = append(names, m.Rule)
				}
				if strings.Join(names, ",") != strings.Join(tc.rules, ",") {
					t.Fatalf("rules %v, want %v", names, tc.rules)
				}
			}
			for _, m := range ms {
				if secret := tc.in[m.Start:m.End]; strings.Contains(got, secret) {
					t.Fatalf("output %q still holds %s secret %q", got, m.Rule, secret)
				}
			}
			if again, k := String(got); again != got || k != 0 {
				t.Fatalf("not idempotent: %q -> %q (%d)", got, again, k)
			}
			b, k := Bytes([]byte(tc.in))
			if string(b) != tc.want || k != n {
				t.Fatalf("Bytes = %q, %d", b, k)
			}
		})
	}
}

func TestNegative(t *testing.T) {
	for _, in := range negativeCases() {
		if got, n := String(in); got != in || n != 0 {
			t.Errorf("changed %q\n     -> %q (matches %v)", in, got, Find(in))
		}
		if Contains(in) {
			t.Errorf("Contains(%q) = true", in)
		}
		if b := []byte(in); len(b) > 0 {
			if out, _ := Bytes(b); &out[0] != &b[0] {
				t.Errorf("Bytes copied clean input %q", in)
			}
		}
	}
}

func TestFindOffsets(t *testing.T) {
	in := "a " + fakeGHP + " b " + fakeEMK
	ms := Find(in)
	if len(ms) != 2 {
		t.Fatalf("Find = %v", ms)
	}
	if g := in[ms[0].Start:ms[0].End]; g != fakeGHP {
		t.Errorf("first match %q", g)
	}
	if g := in[ms[1].Start:ms[1].End]; g != fakeEMK {
		t.Errorf("second match %q", g)
	}
}

func TestNewRules(t *testing.T) {
	r, err := New(RuleEMK)
	if err != nil {
		t.Fatal(err)
	}
	in := fakeEMK + " " + fakeGHP
	if got, n := r.String(in); got != "emk_a1b2_REDACTED "+fakeGHP || n != 1 {
		t.Errorf("emk-only redactor: %q, %d", got, n)
	}
	if _, err := New("no-such-rule"); err == nil {
		t.Error("unknown rule accepted")
	}
	all, _ := New()
	if got, _ := all.String(in); got != "emk_a1b2_REDACTED ghp_[REDACTED]" {
		t.Errorf("all rules: %q", got)
	}
	if len(Rules()) != int(numRules) {
		t.Errorf("Rules() = %v", Rules())
	}
	var zero Redactor
	if zero.Contains(in) {
		t.Error("zero Redactor has rules")
	}
}

func TestNoAllocCleanInput(t *testing.T) {
	b := []byte(prose)
	if a := testing.AllocsPerRun(100, func() { String(prose) }); a != 0 {
		t.Errorf("String allocates %v times on clean input", a)
	}
	if a := testing.AllocsPerRun(100, func() { Bytes(b) }); a != 0 {
		t.Errorf("Bytes allocates %v times on clean input", a)
	}
	if a := testing.AllocsPerRun(100, func() { Contains(prose) }); a != 0 {
		t.Errorf("Contains allocates %v times on clean input", a)
	}
	if a := testing.AllocsPerRun(100, func() { JSON(b) }); a != 0 {
		t.Errorf("JSON allocates %v times on clean input", a)
	}
}

// TestLinearTime feeds repeated rule anchors: every scan must stay linear,
// whatever the input, so 4x the input may not cost much more than 4x the time
// (a quadratic scan costs 16x).
func TestLinearTime(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	run := func(in string) time.Duration { // best of three, against noisy neighbours
		best := time.Duration(1 << 62)
		for range 3 {
			start := time.Now()
			String(in)
			JSON([]byte(`"` + in + `"`))
			best = min(best, time.Since(start))
		}
		return best
	}
	for _, unit := range []string{
		"password=", "token: ", "Authorization: ", "X-Amz-Signature=", "?Signature=REDACTED&",
		"-----BEGIN RSA PRIVATE KEY-----", "-----BEGIN ", "eyJ" + rep("a", 10) + ".", "Bearer ", "a://u:",
		"emk_", "ghp_", "sk-", "xoxb-", "AIza", "glpat-", "hf_", "npm_", "sk_live_", "github_pat_", `\u0026`, "hooks.slack.com/services/", "AKIA", "=", ":", "_", "-",
		"DB_PASS=", "PASSWORD: ", "my password is ", "ATATT3", "AAAAbbbbccc:APA91b", "12345678:", "x8Q~", "~", "AKIAAAAAAAAAAAAAAAAA ",
	} {
		small := run(strings.Repeat(unit, (1<<18)/len(unit)))
		large := run(strings.Repeat(unit, (1<<20)/len(unit)))
		if large > 8*small && large > 300*time.Millisecond {
			t.Errorf("%q repeated: 256 KB in %v, 1 MB in %v", unit, small, large)
		}
	}
}
