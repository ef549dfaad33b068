package main

import (
	"errors"
	"flag"
	"os"
	"strings"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
	_ "github.com/loci-mem/loci/palace/embed/builtin" // links USE-lite, GloVe and their hybrid
	"github.com/loci-mem/loci/palace/extract"
	"github.com/rs/zerolog"
)

// homeFlags is where a command finds its palaces: the data dir (--data-dir,
// else $LOCI_HOME …) and the store (--store, else $LOCI_STORE): empty for
// SQLite files in the data dir, or a postgres:// URL for a team palace
// server, with the data dir holding this machine's index caches.
type homeFlags struct {
	dataDir string
	store   string
}

func (h *homeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&h.dataDir, "data-dir", "", "data directory (default $LOCI_HOME or ~/.local/share/loci)")
	fs.StringVar(&h.store, "store", "", "where palaces are kept: empty for SQLite files in the data dir, or a postgres:// URL (default $LOCI_STORE)")
}

// openRegistry opens the palaces with the configured embedder, for a
// short-lived command.
func openRegistry(h homeFlags, log zerolog.Logger, onOpen func(*palace.Palace)) (*palace.Registry, error) {
	cfg, err := registryConfig(h, log, onOpen)
	if err != nil {
		return nil, err
	}
	return palace.OpenRegistry(cfg)
}

// registryConfig is the palace configuration of the environment: the
// store (LOCI_STORE), the embedder (LOCI_EMBEDDER), the extractor
// (LOCI_LLM_*), LOCI_SYNC.
func registryConfig(h homeFlags, log zerolog.Logger, onOpen func(*palace.Palace)) (palace.Config, error) {
	emb, err := configuredEmbedder()
	if err != nil {
		return palace.Config{}, err
	}
	ext, err := extract.FromEnv() // LOCI_LLM_*; the heuristic extractor when unset
	if err != nil {
		return palace.Config{}, err
	}
	if h.store == "" {
		h.store = os.Getenv("LOCI_STORE")
	}
	return palace.Config{
		DataDir:   h.dataDir,
		Store:     h.store,
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
