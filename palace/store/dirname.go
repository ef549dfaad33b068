package store

import "strings"

// A palace name is a directory name on the machine that holds the palace
// (SQLite) or caches its indexes (a PostgreSQL node). Names are told apart
// exactly, but file systems may not tell them apart: macOS's and Windows's
// ignore case by default, Windows drops a trailing dot and reads a few
// names as devices.

// PortableDirName reports whether name means one directory, and no other
// name's, on every file system loci runs on: no upper-case letter, no
// trailing dot, and not a device name of Windows.
func PortableDirName(name string) bool {
	return name == strings.ToLower(name) && !strings.HasSuffix(name, ".") && !WindowsDevice(name)
}

// WindowsDevice reports whether Windows reads name as a device rather than
// a file or directory: CON, PRN, AUX, NUL, COM0–COM9 and LPT0–LPT9, in any
// case, alone or before a dot ("nul.txt").
func WindowsDevice(name string) bool {
	base, _, _ := strings.Cut(name, ".")
	b := strings.ToLower(base)
	switch {
	case b == "con" || b == "prn" || b == "aux" || b == "nul":
		return true
	case len(b) == 4 && (strings.HasPrefix(b, "com") || strings.HasPrefix(b, "lpt")):
		return b[3] >= '0' && b[3] <= '9'
	}
	return false
}
