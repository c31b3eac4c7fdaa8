package mix

import "testing"

// vectorModes returns, for each way the loops can run here, a function
// that sets it up and says whether the vector code is on: with it (where
// the CPU has AVX-512), then without. The CPU's own comes back at the end
// of the test.
func vectorModes(tb testing.TB) []func() bool {
	has := hasAVX512
	tb.Cleanup(func() { hasAVX512 = has })
	modes := []func() bool{func() bool { hasAVX512 = false; return false }}
	if has {
		modes = append([]func() bool{func() bool { hasAVX512 = true; return true }}, modes...)
	}
	return modes
}
