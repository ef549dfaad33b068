package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

type doc struct {
	Content  string            `json:"content"`
	URL      string            `json:"url"`
	Password string            `json:"password"`
	Key      string            `json:"key"`
	Tags     []string          `json:"tags"`
	Meta     map[string]string `json:"meta"`
	N        float64           `json:"max_token"`
}

func TestJSONMarshalled(t *testing.T) {
	in := doc{
		Content:  "deploy with " + fakeEMK + "\nand <b>" + fakeGHP + "</b>\n" + fakePEM("RSA PRIVATE KEY"),
		URL:      presignedLegacy(), // Go escapes & as \u0026
		Password: fakeTok(12, 14),
		Key:      "AWS " + fakeAWSID,
		Tags:     []string{"ok", fakeXoxb, "Bearer\t" + fakeTok(13, 20)},
		Meta:     map[string]string{fakeEVT: "as a key", "hook": fakeHook},
		N:        1.2345678901234567e+21,
	}
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out := JSON(raw)
	if !json.Valid(out) {
		t.Fatalf("invalid JSON: %s", out)
	}
	var got doc
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	want := doc{
		Content: "deploy with emk_a1b2_REDACTED\nand <b>ghp_[REDACTED]</b>\n" +
			"-----BEGIN RSA PRIVATE KEY-----\n[REDACTED]\n-----END RSA PRIVATE KEY-----",
		URL:      presignedLegacyWant,
		Password: Mask,
		Key:      "AWS AKIA[REDACTED]",
		Tags:     []string{"ok", "xoxb-[REDACTED]", "Bearer\t[REDACTED]"},
		Meta:     map[string]string{"evt_a1b2_REDACTED": "as a key", "hook": "https://hooks.slack.com/services/[REDACTED]"},
		N:        in.N,
	}
	gotJ, _ := json.Marshal(got)
	wantJ, _ := json.Marshal(want)
	if !bytes.Equal(gotJ, wantJ) {
		t.Fatalf("got  %s\nwant %s", gotJ, wantJ)
	}
	if again := JSON(out); !bytes.Equal(again, out) {
		t.Fatalf("JSON not idempotent:\n%s\n%s", out, again)
	}
}

func TestJSONCases(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"unicode escaped emk", `{"a":"\u0065mk_a1b2` + rep("c3d4", 5) + `"}`, `{"a":"emk_a1b2_REDACTED"}`},
		{"escaped slashes in webhook", `["https:\/\/hooks.slack.com\/services\/T000\/B000\/` + fakeTok(14, 24) + `"]`,
			`["https://hooks.slack.com/services/[REDACTED]"]`},
		{"password pair", `{"password" : "` + fakeTok(15, 16) + `", "user": "bob"}`, `{"password" : "[REDACTED]", "user": "bob"}`},
		{"raw pass keeps escapes", `{"a":"\ud83d\ude00 ` + fakeGHP + `\u2028"}`, `{"a":"\ud83d\ude00 ghp_[REDACTED]\u2028"}`},
		{"decoded pass re-encodes", `{"a":"\ud83d\ude00 \u0067hp_` + rep("a1", 18) + `\u2028"}`, `{"a":"😀 ghp_[REDACTED]\u2028"}`},
		{"control char re-escaped", `{"a":"\u0001` + fakeGHP + `\""}`, `{"a":"\u0001ghp_[REDACTED]\""}`},
		{"pem split over strings", `["-----BEGIN RSA PRIVATE KEY-----","abc","-----END RSA PRIVATE KEY-----"]`,
			`["-----BEGIN RSA PRIVATE KEY-----","abc","-----END RSA PRIVATE KEY-----"]`},
		{"number not redacted", `{"token": 1.5e+21, "secret": -12345678901234567890}`,
			`{"token": 1.5e+21, "secret": -12345678901234567890}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !json.Valid([]byte(tc.in)) {
				t.Fatalf("bad test input %s", tc.in)
			}
			got := JSON([]byte(tc.in))
			if string(got) != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
			if !json.Valid(got) {
				t.Fatalf("invalid output %s", got)
			}
		})
	}
}

func TestJSONClean(t *testing.T) {
	for _, in := range []string{
		`{"content":"` + prose + `","n":1}`,
		`{"content":"line one\nline two \u003cb\u003e","tags":["a","b"]}`,
		`{"id":"123e4567-e89b-12d3-a456-426614174000","sha":"3b18e512dba79e4c8300dd08aeb37f8e728b8dad"}`,
	} {
		b := []byte(in)
		if out := JSON(b); &out[0] != &b[0] || string(out) != in {
			t.Errorf("clean document changed or copied: %s", out)
		}
	}
	b := []byte(`{"content":"line one\nline two \u003cb\u003e"}`)
	if a := testing.AllocsPerRun(100, func() { JSON(b) }); a != 0 {
		t.Errorf("JSON with escapes allocates %v times on clean input", a)
	}
}

func TestJSONInvalidInput(t *testing.T) {
	for _, in := range []string{`{"a":"` + fakeGHP, `"\u12`, `"\`, `{"a":"x\q ` + fakeGHP + `"}`, `]]"""`} {
		out := JSON([]byte(in)) // must not panic
		if strings.Contains(string(out), fakeGHP) {
			t.Errorf("secret survived in %q", out)
		}
	}
}
