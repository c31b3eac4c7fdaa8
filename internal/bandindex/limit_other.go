//go:build !unix

package bandindex

// fileLimit returns the open-file limit where there is no RLIMIT_NOFILE:
// that of the C runtime's files on Windows.
func fileLimit() int { return 8192 }
