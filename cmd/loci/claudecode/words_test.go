package claudecode_test

import (
	"strings"
	"testing"
	"time"

	hooks "github.com/loci-mem/loci/cmd/loci/claudecode"
)

func TestCountWords(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"   ", 0},
		{"yes", 1},
		{"go on", 2},
		{"fix the bug", 3},
		{"debug.js", 1},
		{"?! -- ...", 0},
		{"what about this?", 3},
		{"你好", 1},
		{"继续", 1},
		{"如何使用", 2},
		{"怎么修复这个错误", 4},
		{"debug.js 如何使用", 3},
		{"修复auth的bug", 4}, // 修复 (1) auth (1) 的 (1) bug (1)
		{"テストを追加して", 4},
		{"버그를 고쳐 주세요", 3}, // Hangul separates words with spaces
		{"café crème brûlée", 3},
		{"Ünïcödé\tand\nnewlines", 3},
	}
	for _, c := range cases {
		if got := hooks.CountWords(c.in); got != c.want {
			t.Errorf("CountWords(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestCoverage(t *testing.T) {
	t.Parallel()
	cases := []struct {
		q, text string
		want    float64
	}{
		{"deploy production", "Deploys go to production on Tuesday", 1},
		{"when do we deploy to production?", "we deployed it", 0.5},
		{"running tests", "the test runner runs", 1},
		{"caches and sessions", "session cache", 1},
		{"the and of", "the and of", 0}, // stopwords only: no terms
		{"如何使用", "使用方法", 1.0 / 3},
		{"vault token", "", 0},
		// informal words and British spellings, either side
		{"family weekend", "camping with my fam this weekend", 1},
		{"my fav colour", "my favorite color is green", 1},
		{"bff", "my best friend", 1},
		// an emoji that names a thing, either side
		{"the dog's vet", "took the 🐶 to the vet", 1},
		{"🇯🇵 trip", "the Japan trip is booked", 1},
		{"funny", "😂😂", 0},
	}
	for _, c := range cases {
		if got := hooks.Coverage(c.q, c.text); got < c.want-1e-9 || got > c.want+1e-9 {
			t.Errorf("Coverage(%q, %q) = %v, want %v", c.q, c.text, got, c.want)
		}
	}
	long := "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november"
	if got := hooks.Coverage(long, "alpha bravo charlie delta echo foxtrot golf hotel india juliet"); got != 1 {
		t.Errorf("ten shared words of a long prompt cover %v, want 1", got)
	}
}

func TestRelativeAge(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 2, 20, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		ago  time.Duration
		want string
	}{
		{-time.Hour, "just now"},
		{30 * time.Second, "just now"},
		{time.Minute, "1 minute ago"},
		{59 * time.Minute, "59 minutes ago"},
		{2 * time.Hour, "2 hours ago"},
		{25 * time.Hour, "yesterday"},
		{3 * 24 * time.Hour, "3 days ago"},
		{13 * 24 * time.Hour, "13 days ago"},
		{15 * 24 * time.Hour, "2 weeks ago"},
		{70 * 24 * time.Hour, "2 months ago"},
		{400 * 24 * time.Hour, "1 year ago"},
		{800 * 24 * time.Hour, "2 years ago"},
	}
	for _, c := range cases {
		if got := hooks.RelativeAge(now.Add(-c.ago), now); got != c.want {
			t.Errorf("RelativeAge(-%v) = %q, want %q", c.ago, got, c.want)
		}
	}
}

func TestEventForCommand(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"session-start": hooks.EventSessionStart, "prompt-submit": hooks.EventUserPromptSubmit,
		"stop": hooks.EventStop, "session-end": hooks.EventSessionEnd, "UserPromptSubmit": hooks.EventUserPromptSubmit,
	} {
		if got, ok := hooks.EventForCommand(in); !ok || got != want {
			t.Errorf("EventForCommand(%q) = %q, %v", in, got, ok)
		}
	}
	if _, ok := hooks.EventForCommand("pre-tool-use"); ok {
		t.Error("pre-tool-use accepted")
	}
}

func TestOutputEncodeRedacts(t *testing.T) {
	t.Parallel()
	secret := "AKIA" + "IOSFODNN7EXAMPLE"
	o := hooks.Output{Continue: true, SystemMessage: "key " + secret,
		HookSpecificOutput: &hooks.Specific{HookEventName: "SessionStart", AdditionalContext: "<ctx> " + secret}}
	got := string(o.Encode())
	if strings.Contains(got, secret) || !strings.Contains(got, "<ctx>") || !strings.HasSuffix(got, "}\n") {
		t.Errorf("Encode = %s", got)
	}
	if o.HookSpecificOutput.AdditionalContext != "<ctx> "+secret {
		t.Error("Encode changed the caller's output")
	}
	if got := string(hooks.FailOpen().Encode()); got != "{\"continue\":true}\n" {
		t.Errorf("FailOpen = %q", got)
	}
}
