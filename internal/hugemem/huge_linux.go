//go:build linux

package hugemem

import (
	"syscall"
	"unsafe"
)

// Slice returns n zeroed elements of T, which must hold no pointers (the
// memory is not Go's heap: the collector does not see it), and a function
// that gives them back (after which they are not used). On Linux they are
// mapped apart from Go's heap and the kernel is asked to back them with
// huge pages (transparent huge pages, set to madvise or always): a lookup
// at random in a table of a hundred megabytes then misses the translation
// cache far less, and filling it faults a page in every 2 MiB, not every 4
// KiB. Pages never written are never resident. Where the mapping fails, and
// for less than a huge page, the memory is Go's.
func Slice[T any](n int) ([]T, func()) {
	var zero T
	size := n * int(unsafe.Sizeof(zero))
	if size < hugePage {
		return make([]T, n), func() {}
	}
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]T, n), func() {}
	}
	// Without huge pages the mapping works with small ones.
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n), func() { syscall.Munmap(b) }
}

// hugePage is the size of a huge page on x86-64 and most arm64 kernels.
const hugePage = 2 << 20
