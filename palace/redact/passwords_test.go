package redact

import (
	"strings"
	"testing"
)

// Passwords that people choose fail the entropy test, and are redacted
// all the same where a password label says what they are. Each of these
// was stored as it was before passwords.go (an attack list of compose
// files, .env files, configs and chat lines).
func TestPasswordsPeopleChoose(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"POSTGRES_PASSWORD=postgres", "POSTGRES_PASSWORD=[REDACTED]"},
		{"export DATABASE_PASSWORD=hunter2hunter2", "export DATABASE_PASSWORD=[REDACTED]"},
		{"PGPASSWORD=hunter2 psql -h db", "PGPASSWORD=[REDACTED] psql -h db"},
		{"user=admin password=changeme", "user=admin password=[REDACTED]"},
		{"https://x.example/login?user=ana&password=letmein&next=/", "https://x.example/login?user=ana&password=[REDACTED]&next=/"},
		{"environment:\n  POSTGRES_PASSWORD: example\n", "environment:\n  POSTGRES_PASSWORD: [REDACTED]\n"},
		{"DB_PASS=Tr0ub4dor3", "DB_PASS=[REDACTED]"},
		{"SMTP_PASS=sunshine", "SMTP_PASS=[REDACTED]"},
		{"MYSQL_PW: dragon", "MYSQL_PW: [REDACTED]"},
		{`{"user": "ana", "password": "letmein"}`, `{"user": "ana", "password": "[REDACTED]"}`},
		{`password = "hunter2"`, `password = "[REDACTED]"`},
		{`Password: "nyuknyuk",`, `Password: "[REDACTED]",`},
		{"password: hunter2\nhost: db\n", "password: [REDACTED]\nhost: db\n"},
		{"PASSWORD=1234", "PASSWORD=[REDACTED]"},
		{"my password is hunter2.", "my password is [REDACTED]."},
		{"the wifi passphrase was Summer2024!", "the wifi passphrase was [REDACTED]!"},
		{"loader --password pass123 --verbose", "loader --password [REDACTED] --verbose"},
		{"mysql -u root -phunter2 shop", "mysql -u root -p[REDACTED] shop"},
		{"sshpass -p 'sunshine' ssh host", "sshpass -p '[REDACTED]' ssh host"},
		{"machine api.example.com login ana password pass1234", "machine api.example.com login ana password [REDACTED]"},
		{"Server=tcp:x.example.net;User ID=admin;Password=Hunter2pass;", "Server=tcp:x.example.net;User ID=admin;Password=[REDACTED];"},
		{"Data Source=db;Password=letmein;Pooling=true", "Data Source=db;Password=[REDACTED];Pooling=true"},
	} {
		got, n := String(tc.in)
		if got != tc.want || n == 0 {
			t.Errorf("String(%q)\n got %q (%d)\nwant %q", tc.in, got, n, tc.want)
			continue
		}
		if again, k := String(got); again != got || k != 0 {
			t.Errorf("not idempotent: %q -> %q", got, again)
		}
		if ms := Find(tc.in); len(ms) != n || ms[0].Rule != RuleGenericSecret {
			t.Errorf("Find(%q) = %v", tc.in, ms)
		}
		if j := JSON([]byte(`{"text": ` + quoteJSON(tc.in) + `}`)); strings.Contains(string(j), tc.in) && tc.in != tc.want {
			t.Errorf("JSON kept %q", tc.in)
		}
	}
}

// What stands where a password would, in code, schemas, templates and
// prose, is not one. Each of these is a value of a password label that
// the weak-password reading must pass over.
func TestPasswordLabelsLeaveCodeAndProse(t *testing.T) {
	for _, in := range []string{
		"password: string",                            // a type annotation
		"  password: str = Field(min_length=8)",       // pydantic
		"password: required",                          // a schema
		"password = None",                             // Python
		"password: true",                              // a setting
		`password = "${DB_PASSWORD}"`,                 // a reference
		"PASSWORD=$1",                                 // a shell argument
		"password: <your password>",                   // a template
		"password: '{{ vault_db_password }}'",         // Ansible
		"password: ${{ secrets.DB_PASSWORD }}",        // GitHub Actions
		"password: ********",                          // a mask
		"DB_PASSWORD=YOUR_PASSWORD",                   // an instruction
		"password=yourpassword",                       //
		"password = hashed",                           // an assignment of code
		"password = pw_hash",                          //
		"Password: cfg.Password,",                     // a field of code
		"connect(user=u, password=secret_pw)",         // an argument
		"conn = connect(host=h, password=pw1)",        //
		"password = hashed;",                          //
		"user.password = newPass",                     //
		"NL80211_ATTR_SAE_PASSWORD = 0x115",           // a constant
		"ICMPV6_FILTER_PASS = C.ICMPV6_FILTER_PASS",   //
		`"PGSSLPASSWORD": "sslpassword",`,             // a setting's name
		"RuleURLPassword = \"url-password\"",          //
		"host= user= password= port= database=",       // empty values
		"the password is correct",                     // prose
		"the password is wrong, try again",            //
		"the password for the staging db is in Vault", //
		"Password: Enter a strong password",           //
		`{"password": "Enter your password"}`,         // a label's text
		"login page password reset flow",              //
		"use the --password flag",                     //
		"Boarding pass: A12",                          // not a label
		"bypass=true compass=north",                   //
		"PWD: want %s, got %s",                        // a message's label
		"pw: 1234",                                    // too short a key
		"password: pw",                                // too short a value
	} {
		if got, n := String(in); got != in || n != 0 {
			t.Errorf("changed %q\n     -> %q (%v)", in, got, Find(in))
		}
	}
}

func quoteJSON(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// A Telegram bot token keeps the bot's id and loses its secret; a time, a
// port or a ratio with a colon is no token.
func TestTelegramBotTokens(t *testing.T) {
	secret := "AA" + fakeTok(71, 33)
	for _, tc := range []struct{ in, want string }{
		{"TELEGRAM_TOKEN=7123456789:" + secret, "TELEGRAM_TOKEN=7123456789:[REDACTED]"},
		{"bot 123456789:" + secret + " polls", "bot 123456789:[REDACTED] polls"},
		{"https://api.telegram.org/bot12345678:" + secret + "/getMe", "https://api.telegram.org/bot12345678:[REDACTED]/getMe"},
	} {
		if got, n := String(tc.in); got != tc.want || n != 1 {
			t.Errorf("String(%q)\n got %q (%d)\nwant %q", tc.in, got, n, tc.want)
		}
	}
	for _, in := range []string{
		"at 12:30:45 on 20240101:1200",
		"1234567:" + secret,       // an id too short
		"12345678:" + secret[:34], // a secret too short
		"12345678:" + secret + "x",
		"12345678:abcdefghijklmnopqrstuvwxyzabcdefghi", // no digit, one case: words
	} {
		if got, n := String(in); got != in || n != 0 {
			t.Errorf("changed %q -> %q", in, got)
		}
	}
}
