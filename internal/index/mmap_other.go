//go:build !unix

package index

import "os"

// mapFile does not map where mmap is not available: blocks are then read
// with positioned reads (Index.block).
func mapFile(f *os.File, size int64) ([]byte, func() error, error) {
	return nil, func() error { return nil }, nil
}
