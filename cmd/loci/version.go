package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime"
)

func versionCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	var c commonFlags
	c.register(fs)
	if _, err := parseFlags(env, fs, args); err != nil {
		return nil, err
	}
	data := map[string]any{"version": version, "go": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH}
	return &result{data: data, text: func(w io.Writer) {
		fmt.Fprintf(w, "loci %s (%s %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	}}, nil
}
