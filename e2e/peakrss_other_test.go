//go:build !linux

package e2e

import "github.com/rogpeppe/go-internal/testscript"

// cmdPeakRSS needs wait4's ru_maxrss in KiB, as Linux gives it: scripts
// that use it begin with [!linux] skip.
func cmdPeakRSS(ts *testscript.TestScript, neg bool, args []string) {
	ts.Fatalf("peakrss measures resident memory on Linux only")
}
