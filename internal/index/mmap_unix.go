//go:build unix

package index

import (
	"os"
	"syscall"
)

// mapFile maps size bytes of f read-only. The operating system pages the
// mapping in on demand, so an index larger than memory can be read.
func mapFile(f *os.File, size int64) ([]byte, func() error, error) {
	if size == 0 {
		return nil, func() error { return nil }, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return b, func() error { return syscall.Munmap(b) }, nil
}
