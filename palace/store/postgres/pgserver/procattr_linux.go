package pgserver

import "syscall"

// procAttr runs a server command as cred; the server dies with the
// process that started it.
func procAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
}
