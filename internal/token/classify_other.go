//go:build !amd64

package token

// classify64: no vector classification here (ok false).
func classify64(block []byte) (alnum, high uint64, ok bool) { return 0, 0, false }
