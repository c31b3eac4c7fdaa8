//go:build unix

package bandindex

import "syscall"

// fileLimit returns the process's open-file limit: the soft RLIMIT_NOFILE,
// which Go's runtime has already raised to the hard limit at start.
func fileLimit() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 1024
	}
	return int(min(lim.Cur, 1<<30))
}
