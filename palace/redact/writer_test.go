package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

func TestWriterZerolog(t *testing.T) {
	var buf bytes.Buffer
	log := zerolog.New(Writer(&buf)).With().Timestamp().Logger()
	log.Info().Str("key", fakeEMK).Str("url", presignedV4()).Msg("upload with " + fakeGHP)
	log.Warn().Str("auth", "Bearer "+fakeJWT).Msg("clean message")
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %q", buf.String())
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("invalid JSON line %s", l)
		}
	}
	out := buf.String()
	for _, secret := range []string{fakeEMK, fakeGHP, fakeJWT, fakeHex64, fakeAWSID} {
		if strings.Contains(out, secret) {
			t.Errorf("secret %q leaked into log: %s", secret, out)
		}
	}
	for _, want := range []string{"emk_a1b2_REDACTED", "ghp_[REDACTED]", "X-Amz-Signature=[REDACTED]", "Bearer eyJ[REDACTED]"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q: %s", want, out)
		}
	}
}

func TestWriterConsole(t *testing.T) {
	var buf bytes.Buffer
	log := zerolog.New(zerolog.ConsoleWriter{Out: Writer(&buf), NoColor: true})
	log.Error().Str("token", fakeXoxb).Msg("boom")
	if out := buf.String(); strings.Contains(out, fakeXoxb) || !strings.Contains(out, "xoxb-[REDACTED]") {
		t.Errorf("console output %q", out)
	}
}

func TestWriterPlain(t *testing.T) {
	var buf bytes.Buffer
	w := Writer(&buf)
	in := []byte("key " + fakeEVT + "\n")
	n, err := w.Write(in)
	if err != nil || n != len(in) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(in))
	}
	if buf.String() != "key evt_a1b2_REDACTED\n" {
		t.Errorf("got %q", buf.String())
	}
	if string(in) != "key "+fakeEVT+"\n" {
		t.Error("Write modified its input")
	}
}

type failWriter struct{ short bool }

func (f failWriter) Write(p []byte) (int, error) {
	if f.short {
		return len(p) / 2, nil
	}
	return 0, errors.New("disk full")
}

func TestWriterErrors(t *testing.T) {
	if _, err := Writer(failWriter{}).Write([]byte("x")); err == nil || err.Error() != "disk full" {
		t.Errorf("err = %v", err)
	}
	if _, err := Writer(failWriter{short: true}).Write([]byte("hello")); err == nil {
		t.Error("short write not reported")
	}
}
