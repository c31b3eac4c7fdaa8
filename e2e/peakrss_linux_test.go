package e2e

import (
	"os"
	"syscall"
)

// maxRSSKiB returns the ru_maxrss of a finished process, in KiB on Linux.
func maxRSSKiB(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	return ru.Maxrss, true
}
