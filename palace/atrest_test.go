package palace_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

// Secrets never reach disk (issue 13.4): a token in a knowledge-graph
// triple (every field), a drawer, its room and its tags, the palace's
// description and the user name of an access token is absent from every
// file of the data dir, read back byte for byte after the registry is
// closed.
func TestSecretsAbsentAtRest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	reg := palacetest.MustOpenRegistry(t, palace.Config{DataDir: dir})
	token := "ghp_" + strings.Repeat("Zq7", 12) // fake, 36 characters
	p, err := reg.Create(ctx, "p", "deploys with "+token)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := reg.CreateToken(ctx, "ann "+token, palace.AccessRead, []string{"p"}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.KG().Assert(ctx, kg.Assertion{Subject: "svc " + token, Predicate: "uses " + token,
		Object: "key " + token, Provenance: "pasted " + token}); err != nil {
		t.Fatal(err)
	}
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "deploy with " + token, Room: "Ops-" + token, Tags: []string{"t-" + token}})
	// Rules added after an attack list (fake values, assembled here).
	do := "dop" + "_v1_" + strings.Repeat("9f8e", 16)
	netrc := "Zq7" + "Wx4" + "Pk9" + "Lm2"
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "droplets use " + do + "; machine h login ann password " + netrc})
	// A password a person chose, which no entropy test catches.
	weak := "marmalade"
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "environment:\n  POSTGRES_PASSWORD: " + weak + "\n"})
	if err := reg.Close(); err != nil {
		t.Fatal(err)
	}
	found, stored := 0, false
	err = filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		found++
		stored = stored || bytes.Contains(b, []byte("deploy with ghp_[REDACTED]"))
		for _, secret := range []string{token[4:], do[7:], netrc, weak} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds a secret (%.8s…)", path, secret)
			}
		}
		return nil
	})
	if err != nil || found == 0 || !stored {
		t.Fatalf("walked %d files (the redacted drawer found: %v): %v", found, stored, err)
	}
}
