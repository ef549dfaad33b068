package embed

import (
	"fmt"
	"sort"
	"sync"
)

// Factory makes an embedder. It should be cheap: heavy work (decoding
// weights) belongs in the embedder's first use.
type Factory func() (Embedder, error)

var (
	regMu    sync.RWMutex
	registry = map[string]Factory{}
)

// Register makes an embedder available to Lookup under name. The built-in
// model packages (palace/embed/use, palace/embed/glove) register
// themselves from init; palace/embed/builtin links them all. Register
// panics on a duplicate name, as that is a programming error.
func Register(name string, f Factory) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[name]; dup {
		panic(fmt.Sprintf("embed: Register called twice for %q", name))
	}
	registry[name] = f
}

// Lookup returns the embedder registered under name: "hash" and "openai"
// always; "use-lite", "glove" and "hybrid" when palace/embed/builtin is
// linked into the program. An unregistered name gives an error wrapping
// ErrUnknown.
func Lookup(name string) (Embedder, error) {
	regMu.RLock()
	f, ok := registry[name]
	regMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w %q (known: %v)", ErrUnknown, name, Names())
	}
	e, err := f()
	if err != nil {
		return nil, fmt.Errorf("embedder %q: %w", name, err)
	}
	return e, nil
}

// Names lists the registered names, sorted.
func Names() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	ns := make([]string, 0, len(registry))
	for n := range registry {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// DefaultName is the embedder Default returns when it is registered. It
// was chosen by measuring retrieval on LoCoMo (see README.md).
const DefaultName = "hybrid"

// Default returns the default embedder, DefaultName, or the hash embedder
// when the program does not link palace/embed/builtin. Vectors record
// their embedder's ID, so a palace written with the fallback is
// re-embedded once the default is available.
func Default() Embedder {
	if e, err := Lookup(DefaultName); err == nil {
		return e
	}
	return NewHash(HashDim)
}

func init() {
	Register("hash", func() (Embedder, error) { return NewHash(HashDim), nil })
	Register("openai", func() (Embedder, error) { return NewOpenAIFromEnv() })
}

// A Lexicon reports whether a lower-case word is a known word of the
// language: the spelling dictionary palace/typos.go corrects against. It
// takes the word's bytes, so that looking up many candidates copies none.
type Lexicon func(word []byte) bool

var lexicon Lexicon

// RegisterLexicon sets the lexicon DefaultLexicon returns.
// palace/embed/builtin registers GloVe's vocabulary (90,000 words, from
// English Wikipedia and news text).
func RegisterLexicon(l Lexicon) {
	regMu.Lock()
	defer regMu.Unlock()
	lexicon = l
}

// DefaultLexicon returns the registered lexicon, or nil when no program
// linked one (then nothing is corrected).
func DefaultLexicon() Lexicon {
	regMu.RLock()
	defer regMu.RUnlock()
	return lexicon
}
