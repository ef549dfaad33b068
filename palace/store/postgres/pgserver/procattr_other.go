//go:build unix && !linux

package pgserver

import "syscall"

// credential is the user a server command runs as.
type credential = syscall.Credential

// procAttr runs a server command as cred. Only Linux can have the kernel
// kill a child when its parent dies (Pdeathsig); elsewhere a server whose
// starter was killed outlives it until Stop or the next boot, in its
// temporary directory.
func procAttr(cred *credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred}
}
