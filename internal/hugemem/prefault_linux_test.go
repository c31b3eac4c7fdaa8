//go:build linux

package hugemem

import (
	"syscall"
	"testing"
)

// faults returns the process's minor page faults so far.
func faults(t *testing.T) int64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		t.Fatal(err)
	}
	return u.Minflt
}

// readThenWrite reads a slot of each page of a, then writes it, as a hash
// table's probes do.
func readThenWrite(a []uint64) {
	for i := 0; i < len(a); i += 512 {
		if a[i] == 0 {
			a[i] = 1
		}
	}
}

// TestPrefault: a table of new memory read and then written page by page
// faults about twice a page (the zero page, then the page); prefaulted, it
// no longer faults then.
func TestPrefault(t *testing.T) {
	const n = 64 << 20 / 8 // 16,384 pages
	pages := int64(n / 512)
	a := make([]uint64, n)
	before := faults(t)
	readThenWrite(a)
	if got := faults(t) - before; got < pages {
		t.Skipf("%d faults for %d pages read then written: the memory was not new", got, pages)
	}
	b := Prefault(make([]uint64, n))
	before = faults(t)
	readThenWrite(b)
	if got := faults(t) - before; got > pages/8 {
		t.Fatalf("%d faults for %d pages read then written after Prefault; want few", got, pages)
	}
}
