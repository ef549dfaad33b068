package palace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// ProjectName derives the palace name of the project that contains dir: the
// root of its git repository (the main working tree, so every worktree and
// subdirectory of one repository maps to the same palace). The name is the
// root's base name made safe, a dash, and six hex digits of a hash of the
// root's absolute path, so same-named projects elsewhere stay apart:
// /home/a/src/api becomes e.g. "api-3f2a9c".
func ProjectName(dir string) (string, error) {
	root, err := ProjectRoot(dir)
	if err != nil {
		return "", err
	}
	return projectNameFor(root), nil
}

func projectNameFor(root string) string {
	base := sanitizeName(filepath.Base(root))
	sum := sha256.Sum256([]byte(root))
	return base + "-" + hex.EncodeToString(sum[:3])
}

// ProjectRoot finds the main working tree of the git repository containing
// dir, following a worktree's .git file back to its repository.
func ProjectRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	for d := abs; ; d = filepath.Dir(d) {
		gitPath := filepath.Join(d, ".git")
		st, err := os.Stat(gitPath)
		if err == nil {
			if st.IsDir() {
				return d, nil
			}
			return worktreeMain(d, gitPath)
		}
		if parent := filepath.Dir(d); parent == d {
			return "", errors.New("not inside a git repository")
		}
	}
}

// worktreeMain reads a worktree's .git file ("gitdir: <repo>/.git/worktrees/x")
// and returns the main working tree (the parent of the common .git dir).
func worktreeMain(dir, gitFile string) (string, error) {
	b, err := os.ReadFile(gitFile)
	if err != nil {
		return "", err
	}
	line := strings.TrimSpace(string(b))
	gitdir, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return dir, nil
	}
	gitdir = strings.TrimSpace(gitdir)
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(dir, gitdir)
	}
	common := gitdir
	if c, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil {
		cd := strings.TrimSpace(string(c))
		if !filepath.IsAbs(cd) {
			cd = filepath.Join(gitdir, cd)
		}
		common = filepath.Clean(cd)
	}
	if filepath.Base(common) == ".git" {
		return filepath.Dir(common), nil
	}
	return dir, nil // a bare repository or a submodule: the checkout itself
}

// sanitizeName maps any string to a valid palace name fragment.
func sanitizeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := strings.TrimLeft(b.String(), ".-")
	if out == "" {
		out = "project"
	}
	if len(out) > 64 {
		out = out[:64]
	}
	return out
}
