//go:build !amd64

package band

// hasDFVector is false where there is no vector code.
var hasDFVector = false

// dfsVector leaves appendDFs to DF where there is no vector code.
func (m *dfMap) dfsVector(hs, out []uint64) bool { return false }

// prefetch leaves the buckets to touch where there is no vector code.
func (m *dfMap) prefetch(hs []uint64) bool { return false }
