package sqlite

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace/store"
)

// On Windows the names its file system changes or reserves are refused
// with a reason; elsewhere they are ordinary names.
func TestWindowsNames(t *testing.T) {
	for name, want := range map[string]string{
		"notes.": "ends in a dot", "v2..": "ends in a dot",
		"nul": "device name on Windows (NUL)", "Con": "device name on Windows (CON)", "com1.db": "device name on Windows (COM1)",
		"notes": "", "console": "", "com10": "", "Notes": "",
	} {
		err := windowsName(name, "windows")
		var inv *store.InvalidError
		switch {
		case want == "" && err != nil:
			t.Errorf("%q refused on Windows: %v", name, err)
		case want != "" && (!errors.As(err, &inv) || !strings.Contains(err.Error(), want)):
			t.Errorf("%q on Windows: %v, want an invalid-name error saying %q", name, err, want)
		}
		if err := windowsName(name, "linux"); err != nil {
			t.Errorf("%q refused on Linux: %v", name, err)
		}
	}
}

// Where the file system tells case apart (Linux), names that differ only
// in case are two palaces, each with its own database. (Where it does not,
// cmd/loci/windows_test.go shows the second name refused, under Wine.)
func TestNamesThatDifferInCaseOnACaseSensitiveDisk(t *testing.T) {
	ctx := context.Background()
	b, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, n := range []string{"notes", "Notes"} {
		st, err := b.Create(ctx, n)
		if err != nil {
			t.Fatalf("create %q: %v", n, err)
		}
		st.Close()
	}
	names, err := b.Names(ctx)
	if err != nil || len(names) != 2 {
		t.Fatalf("palaces %v (%v), want Notes and notes", names, err)
	}
	for _, n := range names {
		if ok, err := b.Exists(ctx, n); !ok || err != nil {
			t.Errorf("%q: exists %v, %v", n, ok, err)
		}
	}
}
