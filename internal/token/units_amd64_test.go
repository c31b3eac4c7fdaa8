package token

import "testing"

// unitsModes returns, for each way Units can run here, a function that
// sets it up and says whether the vector code is on: with it (where the
// CPU has it), then without. The CPU's own comes back at the end of the
// test.
func unitsModes(t *testing.T) []func() bool {
	has := hasUnitsVector
	t.Cleanup(func() { hasUnitsVector = has })
	modes := []func() bool{func() bool { hasUnitsVector = false; return false }}
	if has {
		modes = append([]func() bool{func() bool { hasUnitsVector = true; return true }}, modes...)
	}
	return modes
}
