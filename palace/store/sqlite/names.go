package sqlite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/loci-mem/loci/palace/store"
)

// A palace is a directory named as the palace is (store.PortableDirName
// says why names and directories can differ). Opened by a name its file
// system confuses with another's, one palace would read and write the
// other's database, and an access token scoped to one name would reach the
// other's memories. checkName refuses such a name with a reason, before
// anything is created or opened; the directories of palaces that exist
// are never renamed.

// checkName reports why the palace name cannot be this data dir's
// directory name for it (nil when it can): a name Windows cannot hold as
// written, or one under which the file system finds the directory of a
// palace spelt otherwise.
func (b *Backend) checkName(name string) error {
	if err := windowsName(name, runtime.GOOS); err != nil {
		return err
	}
	return b.sameSpelling(name)
}

// windowsName refuses, on Windows, the names its file system changes or
// reserves.
func windowsName(name, goos string) error {
	if goos != "windows" {
		return nil
	}
	if strings.HasSuffix(name, ".") {
		return store.Invalidf("palace name %q ends in a dot, which Windows drops from a directory name (it would be palace %q); choose another name", name, strings.TrimRight(name, "."))
	}
	if store.WindowsDevice(name) {
		base, _, _ := strings.Cut(name, ".")
		return store.Invalidf("palace name %q is a device name on Windows (%s), not a directory; choose another name", name, strings.ToUpper(base))
	}
	return nil
}

// sameSpelling reports an error when the directory the file system finds
// for name is not listed under name itself: it belongs to a palace spelt
// otherwise ("Notes" for "notes" where case is ignored). A directory found
// listed under its name once is remembered, so that later checks cost the
// one Stat they always did; a palace removed and made again under another
// spelling is a new directory and is listed again.
func (b *Backend) sameSpelling(name string) error {
	found, err := os.Stat(b.CacheDir(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil // nothing there under any spelling
	}
	if err != nil {
		return fmt.Errorf("palace %q: %w", name, err)
	}
	if seen, ok := b.spelt.Load(name); ok && os.SameFile(seen.(fs.FileInfo), found) {
		return nil
	}
	entries, err := os.ReadDir(b.root)
	if err != nil {
		return fmt.Errorf("list palaces: %w", err)
	}
	for _, e := range entries {
		if e.Name() == name {
			b.spelt.Store(name, found)
			return nil
		}
	}
	for _, e := range entries {
		if st, err := os.Stat(filepath.Join(b.root, e.Name())); err == nil && os.SameFile(st, found) {
			return store.Invalidf("palace name %q is palace %q's directory on this file system, which does not tell the two names apart (it ignores case, or drops a trailing dot); use %q or another name", name, e.Name(), e.Name())
		}
	}
	return store.Invalidf("palace name %q names no directory of its own on this file system; choose another name", name)
}
