//go:build !linux

package e2e

import "os"

// maxRSSKiB is known on Linux only (elsewhere ru_maxrss has other units):
// scripts that use peakrss begin with [!linux] skip.
func maxRSSKiB(ps *os.ProcessState) (int64, bool) { return 0, false }
