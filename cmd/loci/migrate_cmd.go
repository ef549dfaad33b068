package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash"
	"io"
	"slices"
	"strings"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/archive"
	"github.com/loci-mem/loci/palace/store"
	"github.com/loci-mem/loci/palace/store/sqlstore"
)

func init() {
	commands["migrate"] = command{"copy palaces between stores (SQLite data dirs and PostgreSQL), losslessly and verified", cli(migrateCmd)}
}

// migrateCmd is `loci migrate --from PATH_OR_URL --to PATH_OR_URL
// [--palace NAME[,NAME…]]`. Each palace is copied row for row (every
// table, every column: ids, seqs, vector keys, fact numbers, the change
// log, review queues, session buffers, the dreamer's journal) in one
// transaction of the destination, then both ends are exported as JSONL
// and compared: a palace is reported migrated only when the two exports
// are equal. A destination palace that exists must be empty.
func migrateCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	var h homeFlags
	h.register(fs)
	fs.String("format", "auto", "output format: auto, text, json or yaml")
	only := fs.String("palace", "", "the palaces to migrate, comma-separated (default: every palace)")
	from := fs.String("from", "", "where the palaces are: a SQLite data dir or a postgres:// URL")
	to := fs.String("to", "", "where to copy them: a SQLite data dir or a postgres:// URL")
	pos, err := parseFlags(env, fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) > 0 {
		return nil, invalidArgs("migrate takes no arguments", "Use `loci migrate --from DIR --to postgres://…`")
	}
	if *from == "" || *to == "" {
		return nil, invalidArgs("migrate needs --from and --to", "Use `loci migrate --from ~/.local/share/loci --to postgres://user@host/db`")
	}
	if *from == *to {
		return nil, invalidArgs("--from and --to name the same store", "")
	}
	dataDir := h.dataDir
	if dataDir == "" {
		if dataDir, err = palace.DefaultDataDir(); err != nil {
			return nil, err
		}
	}
	src, err := palace.OpenBackend(*from, dataDir)
	if err != nil {
		return nil, migrateOpenErr("--from", err)
	}
	defer src.Close()
	dst, err := palace.OpenBackend(*to, dataDir)
	if err != nil {
		return nil, migrateOpenErr("--to", err)
	}
	defer dst.Close()
	names, err := src.Names(ctx)
	if err != nil {
		return nil, palace.StoreError("list palaces", err)
	}
	if *only != "" {
		want := strings.Split(*only, ",")
		for _, n := range want {
			if !slices.Contains(names, n) {
				return nil, palace.NotFoundf("palace %q is not in %s", n, src.Location())
			}
		}
		names = want
	}
	if len(names) == 0 {
		return nil, palace.NotFoundf("there are no palaces in %s", src.Location())
	}
	// The exports that verify a copy read through the palace API, on
	// registries over each end.
	emb, err := configuredEmbedder()
	if err != nil {
		return nil, err
	}
	srcReg, err := palace.OpenRegistry(palace.Config{DataDir: dataDir, Backend: src, Embedder: emb})
	if err != nil {
		return nil, err
	}
	defer srcReg.Close()
	dstReg, err := palace.OpenRegistry(palace.Config{DataDir: dataDir, Backend: dst, Embedder: emb})
	if err != nil {
		return nil, err
	}
	defer dstReg.Close()

	var done []map[string]any
	for _, name := range names {
		rows, err := migrateOne(ctx, env, src, dst, name)
		if err != nil {
			return nil, err
		}
		a, err := exportDigest(ctx, srcReg, name)
		if err != nil {
			return nil, err
		}
		b, err := exportDigest(ctx, dstReg, name)
		if err != nil {
			return nil, err
		}
		if a != b {
			return nil, &cliError{Type: "internal", Message: fmt.Sprintf("palace %q: the export of the copy differs from the original's", name),
				Hint: "The copy is in place but not verified; report this with both exports (`loci export`)"}
		}
		done = append(done, map[string]any{"palace": name, "rows": rows, "verified": true, "export_sha256": a})
	}
	data := map[string]any{"from": src.Location(), "to": dst.Location(), "palaces": done}
	return &result{data: data, count: countOf(len(done)), text: func(w io.Writer) {
		for _, d := range done {
			var total int64
			for _, n := range d["rows"].(sqlstore.CopyStats) {
				total += n
			}
			fmt.Fprintf(w, "migrated %s: %d rows, exports equal (sha256 %.12s…)\n", d["palace"], total, d["export_sha256"])
		}
	}}, nil
}

func migrateOpenErr(flagName string, err error) error {
	if errors.Is(err, store.ErrUnavailable) {
		return &cliError{Type: "network", Message: flagName + ": " + err.Error(), Hint: "Check that the PostgreSQL server is running and the URL is right"}
	}
	return &cliError{Type: "invalid_args", Message: flagName + ": " + err.Error(), Detail: map[string]any{"flag": strings.TrimPrefix(flagName, "--")}}
}

// migrateOne copies palace name from src to dst.
func migrateOne(ctx context.Context, env *cliEnv, src, dst store.Backend, name string) (sqlstore.CopyStats, error) {
	from, err := src.Open(ctx, name)
	if err != nil {
		return nil, palace.StoreError("open palace "+name, err)
	}
	defer from.Close()
	ok, err := dst.Exists(ctx, name)
	if err != nil {
		return nil, palace.StoreError("look up palace "+name, err)
	}
	var to store.Store
	if ok {
		to, err = dst.Open(ctx, name)
	} else {
		to, err = dst.Create(ctx, name)
	}
	if err != nil {
		return nil, palace.StoreError("open the destination palace "+name, err)
	}
	defer to.Close()
	bar := newProgress(env, "migrate "+name, "rows")
	copied := map[string]int64{}
	stats, err := sqlstore.Copy(ctx, to, from, func(t string, n int64) {
		copied[t] = n
		var sum int64
		for _, k := range copied {
			sum += k
		}
		bar.Set(int(sum), 0, t)
	})
	bar.Done()
	if errors.Is(err, store.ErrConflict) {
		return nil, &cliError{Type: "conflict", Message: fmt.Sprintf("palace %q: %v", name, err),
			Hint: "Migrate into a store without that palace, or pick others with --palace"}
	}
	if err != nil {
		return nil, palace.StoreError("migrate palace "+name, err)
	}
	return stats, nil
}

// exportDigest is the SHA-256 of palace name's JSONL export with the
// header's export time left out (it is the only field that differs
// between two exports of one palace).
func exportDigest(ctx context.Context, reg *palace.Registry, name string) (string, error) {
	p, err := reg.Open(ctx, name)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	w := &headerless{h: h}
	bw := bufio.NewWriterSize(w, 1<<16)
	if _, err := archive.ExportJSONL(ctx, p, bw); err != nil {
		return "", err
	}
	if err := bw.Flush(); err != nil {
		return "", err
	}
	if err := w.finish(); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// headerless hashes an export, first line with exported_at removed.
type headerless struct {
	h      hash.Hash
	first  []byte
	passed bool
}

func (w *headerless) Write(b []byte) (int, error) {
	if w.passed {
		return w.h.Write(b)
	}
	n := len(b)
	if i := strings.IndexByte(string(b), '\n'); i >= 0 {
		w.first = append(w.first, b[:i+1]...)
		if err := w.finish(); err != nil {
			return 0, err
		}
		w.h.Write(b[i+1:])
		return n, nil
	}
	w.first = append(w.first, b...)
	return n, nil
}

func (w *headerless) finish() error {
	if w.passed {
		return nil
	}
	w.passed = true
	var head map[string]any
	if err := json.Unmarshal(w.first, &head); err != nil {
		return fmt.Errorf("export header: %w", err)
	}
	delete(head, "exported_at")
	b, _ := json.Marshal(head)
	w.h.Write(b)
	return nil
}
