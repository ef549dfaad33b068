package redact

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func fuzzSeeds(f *testing.F) {
	for _, tc := range positiveCases() {
		f.Add(tc.in)
	}
	for _, in := range negativeCases() {
		f.Add(in)
	}
	f.Add("password=" + fakeTok(20, 12) + "_REDACTED")
	f.Add("AWSAccessKeyId=AKIA[REDACTED]&Expires=1&Signature=x")
	f.Add("Bearer emk_a1b2_REDACTED")
	f.Add("-----BEGIN RSA PRIVATE KEY-----\n[REDACTED]\n-----END RSA PRIVATE KEY-----")
	// Hidden secrets (hidden.go).
	f.Add("tag-" + fakeAWSID + " x_" + fakeGHP)
	f.Add(fakeGHP[:10] + "\u200b" + fakeGHP[10:] + " ghp%5F" + fakeGHP[4:])
	f.Add("my password is " + fakeTok(21, 12) + "9! and pwd: " + fakeTok(22, 12))
	f.Add("passpasspass is is was pwdpwd password is password is")
}

// FuzzString checks that redaction is idempotent, leaves nothing a rule
// recognises, agrees with Bytes, and removes every matched secret.
func FuzzString(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		out, n := String(s)
		ms := Find(s)
		if n < len(ms) || (n == 0) != (len(ms) == 0) {
			t.Fatalf("Find %d matches, String %d", len(ms), n)
		}
		if n == 0 && out != s {
			t.Fatalf("changed without a match: %q -> %q", s, out)
		}
		if again, k := String(out); again != out || k != 0 {
			t.Fatalf("not idempotent:\n in  %q\n out %q\n 2nd %q", s, out, again)
		}
		if left := Find(out); len(left) != 0 {
			t.Fatalf("output %q still matches %v", out, left)
		}
		if b, _ := Bytes([]byte(s)); string(b) != out {
			t.Fatalf("Bytes %q != String %q", b, out)
		}
		// The output is read between its masks, so that a one-letter
		// secret such as "D" is not found inside "[REDACTED]". (Masks
		// once became NUL bytes here, and a private key whose body was a
		// NUL byte was then "kept".)
		bare := strings.Split(strings.ReplaceAll(out, SeedMask, Mask), Mask)
		kept := func(secret string) bool {
			return slices.ContainsFunc(bare, func(p string) bool { return strings.Contains(p, secret) })
		}
		last := 0
		for _, m := range ms {
			if m.Start < last || m.End <= m.Start || m.End > len(s) {
				t.Fatalf("bad match %+v in %q", m, s)
			}
			last = m.End
			secret := s[m.Start:m.End]
			if strings.Count(s, secret) == 1 && kept(secret) {
				t.Fatalf("output %q keeps %s secret %q", out, m.Rule, secret)
			}
		}
	})
}

// FuzzJSON checks that JSON keeps documents valid and idempotent, and that no
// decoded string of the result holds a secret.
func FuzzJSON(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		doc, err := json.Marshal(map[string]any{"v": s, s: []string{s, "x"}, "password": s})
		if err != nil {
			return
		}
		out := JSON(doc)
		if !json.Valid(out) {
			t.Fatalf("invalid JSON from %s:\n%s", doc, out)
		}
		if again := JSON(out); !bytes.Equal(again, out) {
			t.Fatalf("JSON not idempotent:\n%s\n%s", out, again)
		}
		var m map[string]any
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatal(err)
		}
		for k, v := range m {
			vals := []string{k}
			switch v := v.(type) {
			case string:
				vals = append(vals, v)
			case []any:
				vals = append(vals, v[0].(string))
			}
			for _, x := range vals {
				if ms := Find(x); len(ms) != 0 {
					t.Fatalf("decoded %q still matches %v\ndoc %s\nout %s", x, ms, doc, out)
				}
			}
		}
	})
}

// TestCombinations glues rule fragments, masks, separators and escapes
// together at random (fixed seed) and checks the FuzzString and FuzzJSON
// properties on each result; random bytes rarely form such inputs.
func TestCombinations(t *testing.T) {
	parts := []string{
		fakeEMK, fakeEVT, "emk_a1b2", fakeAWSID, fakeAWSSec, fakeGHP, fakeGHPat, fakeOpenAI, fakeProj, fakeAnt,
		fakeXoxb, fakeHook, fakeJWT, fakePEM("RSA PRIVATE KEY"), "-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----",
		presignedV4(), presignedLegacy(), fakeTok(30, 20), fakeHex64, "Bearer ", "bearer ", "Authorization: ",
		"password=", "token: ", `"secret": "`, "api_key=", "X-Amz-Signature=", "?Signature=", "&Expires=1",
		"https://", "u:", "@", Mask, SeedMask, "_", "-", "=", ":", " ", "\n", `\n`, `\u0026`, `\"`, `"`, "'",
		"[", "]", ",", ".", "/", "eyJ", "sk-", "AKIA", "ghp_", "a1", "Zz", "%2F", `\`, `\t`, "\t", "\\",
	}
	seed := uint32(7)
	next := func(n int) int {
		seed ^= seed << 13
		seed ^= seed >> 17
		seed ^= seed << 5
		return int(seed % uint32(n))
	}
	for i := 0; i < 30000; i++ {
		var b strings.Builder
		for k := 1 + next(6); k > 0; k-- {
			b.WriteString(parts[next(len(parts))])
		}
		s := b.String()
		out, n := String(s)
		if again, k := String(out); again != out || k != 0 {
			t.Fatalf("not idempotent:\n in  %q\n out %q\n 2nd %q", s, out, again)
		}
		if left := Find(out); len(left) != 0 {
			t.Fatalf("output %q of %q still matches %v", out, s, left)
		}
		if ms := Find(s); n < len(ms) || (n == 0) != (len(ms) == 0) {
			t.Fatalf("Find/String disagree on %q", s)
		}
		doc, _ := json.Marshal([]string{s, "x"})
		if raw, _ := Bytes(doc); !json.Valid(raw) {
			t.Fatalf("raw pass broke JSON: %s -> %s", doc, raw)
		}
		j := JSON(doc)
		if !json.Valid(j) {
			t.Fatalf("invalid JSON %s from %s", j, doc)
		}
		var back []string
		if err := json.Unmarshal(j, &back); err != nil || len(Find(back[0])) != 0 {
			t.Fatalf("JSON left a secret: %s (%v)", j, err)
		}
		if again := JSON(j); !bytes.Equal(again, j) {
			t.Fatalf("JSON not idempotent on %q:\n%s\n%s", s, j, again)
		}
	}
}
