// Package crosstest runs a package's own tests built for another CPU under
// QEMU's user-mode emulator, so that the assembly kernels of a CPU this
// machine is not (arm64's NEON, on an amd64 host) are checked by the same
// tests as the native ones. Emulated code is checked for what it computes,
// not for how fast it runs. The tests that call it are behind the
// crosstest build tag, run by a step of `make test` of their own: an
// emulator keeps both cores busy for a minute, which the suite's timed
// tests must not share.
package crosstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Arm64 builds the tests of the package in the current directory for
// linux/arm64 and runs those that run matches (a -test.run pattern) under
// qemu-aarch64, failing with their output when one fails. On arm64 itself
// the tests run natively and this is skipped; without QEMU it fails under
// CI and is skipped elsewhere, saying what is missing.
func Arm64(t *testing.T, run string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the package for arm64 and runs it under QEMU: not a short test")
	}
	if runtime.GOARCH == "arm64" {
		t.Skip("this machine runs arm64's kernels natively")
	}
	qemu := need(t, "QEMU's arm64 user-mode emulator (Debian: apt-get install -y qemu-user-static)", "qemu-aarch64-static", "qemu-aarch64")
	goTool := need(t, "the go command", "go", filepath.Join(os.Getenv("GOROOT"), "bin", "go"))
	bin := filepath.Join(t.TempDir(), "pkg.test")
	build := exec.Command(goTool, "test", "-c", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the tests for linux/arm64: %v\n%s", err, out)
	}
	cmd := exec.Command(qemu, bin, "-test.run", run, "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), emulatedVar+"=1")
	out, err := cmd.CombinedOutput()
	var passed []string
	for _, line := range strings.Split(string(out), "\n") {
		if name, ok := strings.CutPrefix(line, "--- PASS: "); ok {
			passed = append(passed, strings.Fields(name)[0])
		}
	}
	if err != nil {
		t.Fatalf("the tests on arm64 (under %s): %v\n%s", filepath.Base(qemu), err, out)
	}
	if len(passed) == 0 {
		t.Fatalf("no test matching %q ran on arm64:\n%s", run, out)
	}
	t.Logf("passed on arm64 under %s: %s", filepath.Base(qemu), strings.Join(passed, ", "))
}

// emulatedVar is set in the environment of the tests Arm64 runs.
const emulatedVar = "LOCI_TEST_EMULATED"

// Emulated reports whether the running tests were started by Arm64, under
// an emulator: a test may do less of work it repeats only to be thorough.
func Emulated() bool { return os.Getenv(emulatedVar) == "1" }

// need is the path of the first of names found, or fails (under CI) or
// skips the test saying that what is missing.
func need(t *testing.T, what string, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal(what + " not found")
	}
	t.Skip(what + " not found")
	return ""
}
