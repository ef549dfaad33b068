package redact

import (
	"strings"
	"testing"
)

// The evasions of issue 13.5: each hides a secret from a pattern; none may
// reach the output.
func TestHiddenSecretsAreCaught(t *testing.T) {
	pass := fakeTok(7, 14) + "9!"
	for _, tc := range []struct{ name, in, secret string }{
		{"aws glued by hyphen", "tag-" + fakeAWSID + " in the bucket policy", fakeAWSID[4:]},
		{"aws glued by underscore", "x_" + fakeAWSID, fakeAWSID[4:]},
		{"aws glued by dot", "build." + fakeAWSID + ".log", fakeAWSID[4:]},
		{"github glued", "foo-" + fakeGHP + " leaked", fakeGHP[4:]},
		{"github in a path", "tokens/" + fakeGHP, fakeGHP[4:]},
		{"slack glued", "bot_" + fakeXoxb, fakeXoxb[5:]},
		{"zero-width space inside", "token " + fakeGHP[:12] + "\u200b" + fakeGHP[12:] + " here", fakeGHP[12:]},
		{"zero-width joiner and BOM", fakeAWSID[:8] + "\u200d" + fakeAWSID[8:14] + "\ufeff" + fakeAWSID[14:], fakeAWSID[14:]},
		{"percent-encoded underscore", "url?t=ghp%5F" + fakeGHP[4:], fakeGHP[4:]},
		{"percent-encoded assignment", "api_key%3D" + fakeTok(3, 32), fakeTok(3, 32)},
		{"pwd label", "pwd: " + pass, pass},
		{"passwd label", "passwd=" + pass, pass},
		{"password in a sentence", "my password is " + pass + ".", pass},
		{"passphrase in a sentence", "The passphrase was '" + pass + "' until Monday", pass},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, n := String(tc.in)
			if n == 0 || strings.Contains(got, tc.secret) {
				t.Fatalf("String(%q) = %q (%d): the secret survives", tc.in, got, n)
			}
			if !Contains(tc.in) {
				t.Errorf("Contains(%q) = false", tc.in)
			}
			if b, _ := Bytes([]byte(tc.in)); strings.Contains(string(b), tc.secret) {
				t.Errorf("Bytes(%q) = %q", tc.in, b)
			}
			if again, k := String(got); again != got || k != 0 {
				t.Errorf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

// Prose near the new rules stays as it is.
func TestHiddenRulesLeaveProse(t *testing.T) {
	for _, in := range []string{
		"the password field is required",
		"the password is wrong, try again",
		"the password is correct",
		"pin the version to 1.4.2",
		"task-AKIRA went to Osaka",
		"pwd is the current directory",
		"see foo-bar_baz.qux/quux for the design",
		"a zero\u200bwidth space between words",
		"50%3A50 split, 100%5F done",
		"“Quoted” — with dashes… and ellipses",
		"the passphrase is stored in the vault",
		"progress was 80% of the plan",
	} {
		if got, n := String(in); got != in || n != 0 {
			t.Errorf("changed %q -> %q (%v)", in, got, Find(in))
		}
	}
}

// Text with typographic characters and percent signs but nothing hidden
// costs no allocation.
func TestRevealCleanNoAlloc(t *testing.T) {
	in := "“Quoted” — 50% done… see https://x.example/a%20b " + prose[:200]
	if n := testing.AllocsPerRun(100, func() { String(in) }); n != 0 {
		t.Errorf("String allocates %v times on clean text", n)
	}
}
