//go:build !linux

package hugemem

// Slice returns n zeroed elements of T, which must hold no pointers, and a
// function that gives them back.
func Slice[T any](n int) ([]T, func()) { return make([]T, n), func() {} }
