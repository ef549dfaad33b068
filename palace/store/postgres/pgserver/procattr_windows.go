package pgserver

import "syscall"

// credential is the user a server command would run as. Windows has no
// root to step down from (os.Geteuid is -1 there), so Start never sets one.
type credential struct{ Uid, Gid uint32 }

// procAttr runs a server command as the current user: a server whose
// starter was killed outlives it until Stop or the next boot, in its
// temporary directory.
func procAttr(*credential) *syscall.SysProcAttr { return nil }
