package minhash

import "testing"

// countModes returns, for each table OPH.countSum can use here, a function
// that sets it up and names it: the buckets of AVX-512 (where the CPU has
// it), then linear probing. The CPU's own comes back at the end of the
// test.
func countModes(t *testing.T) []func() string {
	has := hasAVX512
	t.Cleanup(func() { hasAVX512 = has })
	modes := []func() string{func() string { hasAVX512 = false; return "probing" }}
	if has {
		modes = append([]func() string{func() string { hasAVX512 = true; return "buckets" }}, modes...)
	}
	return modes
}
