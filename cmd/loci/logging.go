package main

import (
	"io"
	"os"
	"strings"

	"github.com/loci-mem/loci/palace/redact"
	"github.com/rs/zerolog"
)

// newLogger returns the process logger: stderr only, redacted, at the level
// named by LOCI_LOG (debug, info, warn, error; default warn).
func newLogger(stderr io.Writer) zerolog.Logger {
	level := zerolog.WarnLevel
	if v := strings.TrimSpace(os.Getenv("LOCI_LOG")); v != "" {
		if l, err := zerolog.ParseLevel(strings.ToLower(v)); err == nil && l != zerolog.NoLevel {
			level = l
		}
	}
	w := redact.Writer(stderr)
	if isTerminal(stderr) {
		w = zerolog.ConsoleWriter{Out: w, NoColor: true, TimeFormat: "15:04:05.000"}
	}
	return zerolog.New(w).Level(level).With().Timestamp().Logger()
}

// isTerminal reports whether a stream (stdin, stdout or stderr) is a
// terminal rather than a pipe or file.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
