//go:build !amd64

package mix

func murmurXorVector(dst, src []uint64, key uint64) int { return 0 }

func windowVector(dst, units []uint64, k int, base, add, key uint64) int { return 0 }
