//go:build !amd64

package input

// plainEndVector: no vector scan here.
func plainEndVector(b []byte, i int) int { return i }
