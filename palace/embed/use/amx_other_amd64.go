//go:build !linux

package use

// requestAMX reports false: the tiles are asked for on Linux only.
func requestAMX() bool { return false }
