package use

import "syscall"

// requestAMX asks Linux for the AMX tile data state (arch_prctl
// ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA; Linux 5.16 and later), which a
// process must hold before its first tile instruction. It reports whether
// the kernel granted it.
func requestAMX() bool {
	const archReqXcompPerm, xfeatureXtiledata = 0x1023, 18
	_, _, errno := syscall.RawSyscall(syscall.SYS_ARCH_PRCTL, archReqXcompPerm, xfeatureXtiledata, 0)
	return errno == 0
}
