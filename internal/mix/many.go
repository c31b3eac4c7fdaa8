package mix

// MurmurXor sets dst[i] to Murmur(src[i] ^ key) for each value of src
// (dst may be src itself; it must be as long). It is the loop OPH's bins
// and the last step of tok64 run on every shingle: with AVX-512 eight
// values at a time, a third of the time of the loop in Go on this
// machine's Xeon (BenchmarkMurmurXor).
func MurmurXor(dst, src []uint64, key uint64) {
	dst = dst[:len(src)]
	n := murmurXorVector(dst, src, key)
	for i := n; i < len(src); i++ {
		dst[i] = Murmur(src[i] ^ key)
	}
}

// MaxWindow is the most units of a window Window's vector code sums.
const MaxWindow = 32

// Window sets dst[i], for each i from 0 to len(units)-k, to
// Murmur((p + add) ^ key), p = units[i]·base^(k-1) + units[i+1]·base^(k-2)
// + … + units[i+k-1] (mod 2^64): the tok64 hash of each full window of k
// units. dst must hold len(units)-k+1 values. With AVX-512 (k at most
// MaxWindow) sixteen windows are taken at a time, each sum in full, about
// five times as fast for k = 5 (BenchmarkWindow); the rest roll the sum on
// by one unit at a time.
func Window(dst, units []uint64, k int, base, add, key uint64) {
	if k < 1 || len(units) < k {
		return
	}
	n := len(units) - k + 1
	dst = dst[:n]
	done := 0
	if k <= MaxWindow {
		done = windowVector(dst, units, k, base, add, key)
	}
	if done == n {
		return
	}
	var p uint64
	for _, u := range units[done : done+k] {
		p = p*base + u
	}
	dst[done] = Murmur((p + add) ^ key)
	top := uint64(1) // base^(k-1)
	for range k - 1 {
		top *= base
	}
	for i := done + 1; i < n; i++ {
		p = (p-units[i-1]*top)*base + units[i+k-1]
		dst[i] = Murmur((p + add) ^ key)
	}
}
