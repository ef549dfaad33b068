package pgserver

import "syscall"

// credential is the user a server command runs as.
type credential = syscall.Credential

// procAttr runs a server command as cred; the server dies with the
// process that started it.
func procAttr(cred *credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
}
