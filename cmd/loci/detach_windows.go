package main

import (
	"os/exec"
	"syscall"
)

// detach starts cmd without a console and in a process group of its own,
// so that it outlives the hook that started it and a Ctrl-C sent to the
// hook's console does not reach it.
func detach(cmd *exec.Cmd) {
	const detachedProcess = 0x00000008 // DETACHED_PROCESS; syscall names only the group flag
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: detachedProcess | syscall.CREATE_NEW_PROCESS_GROUP}
}
