package main

import (
	"os"

	"github.com/loci-mem/loci/dreamer"
	"github.com/rs/zerolog"
)

// dreamerConfig is the dreamer's configuration for this process: the
// defaults with the LOCI_DREAM*, LOCI_DECAY_* and LOCI_DEDUP_THRESHOLD
// environment variables applied (dreamer/README.md lists them).
func dreamerConfig(log zerolog.Logger) (dreamer.Config, error) {
	return dreamer.ConfigFromEnv(dreamer.Config{Logger: log}, os.Getenv)
}
