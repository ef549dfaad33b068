package main

import (
	"errors"
	"os"
	"strings"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
	_ "github.com/loci-mem/loci/palace/embed/builtin" // links USE-lite, GloVe and their hybrid
	"github.com/loci-mem/loci/palace/extract"
	"github.com/rs/zerolog"
)

// openRegistry opens the data dir with the configured embedder, for a
// short-lived command.
func openRegistry(dataDir string, log zerolog.Logger, onOpen func(*palace.Palace)) (*palace.Registry, error) {
	cfg, err := registryConfig(dataDir, log, onOpen)
	if err != nil {
		return nil, err
	}
	return palace.OpenRegistry(cfg)
}

// registryConfig is the palace configuration of the environment: the
// embedder (LOCI_EMBEDDER), the extractor (LOCI_LLM_*), LOCI_SYNC.
func registryConfig(dataDir string, log zerolog.Logger, onOpen func(*palace.Palace)) (palace.Config, error) {
	emb, err := configuredEmbedder()
	if err != nil {
		return palace.Config{}, err
	}
	ext, err := extract.FromEnv() // LOCI_LLM_*; the heuristic extractor when unset
	if err != nil {
		return palace.Config{}, err
	}
	return palace.Config{
		DataDir:   dataDir,
		Embedder:  emb,
		Logger:    log,
		Sync:      os.Getenv("LOCI_SYNC"),
		OnOpen:    onOpen,
		Extractor: ext,
	}, nil
}

// configuredEmbedder returns the embedder named by LOCI_EMBEDDER, or the
// built-in default.
func configuredEmbedder() (embed.Embedder, error) {
	return embedderNamed(os.Getenv("LOCI_EMBEDDER"))
}

// embedderNamed returns the named embedder ("" means the built-in default,
// embed.DefaultName).
func embedderNamed(name string) (embed.Embedder, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return embed.Default(), nil
	}
	e, err := embed.Lookup(name)
	if err != nil {
		if errors.Is(err, embed.ErrUnknown) {
			return nil, invalidArgs(err.Error(), "Set LOCI_EMBEDDER (or --embedder) to one of: "+strings.Join(embed.Names(), ", "))
		}
		return nil, &cliError{Type: "invalid_args", Message: err.Error(), Hint: "Check the LOCI_EMBED_* settings"}
	}
	return e, nil
}

// resolvePalace returns the palace a CLI command targets, by the one rule
// every face shares (hookPalace): --palace, else $LOCI_PALACE, else the
// project palace of the git repository around the working directory, else
// "default". --palace auto skips $LOCI_PALACE.
func resolvePalace(flagValue string) (string, error) {
	return hookPalace(flagValue, "")
}
