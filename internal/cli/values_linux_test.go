package cli_test

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// limitAddressSpace lets the process map at most extra bytes more than it
// has mapped, until the test ends: an allocation beyond fails at once
// (the runtime's "out of memory") instead of making the machine swap.
func limitAddressSpace(t *testing.T, extra uint64) {
	statm, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Logf("no address space limit: %v", err)
		return
	}
	pages, err := strconv.ParseUint(strings.Fields(string(statm))[0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	var saved syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &saved); err != nil {
		t.Fatal(err)
	}
	limit := syscall.Rlimit{Cur: min(pages*uint64(os.Getpagesize())+extra, saved.Max), Max: saved.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &limit); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_AS, &saved) })
}
