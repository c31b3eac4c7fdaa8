package index

import "math/bits"

// nearGo returns the index of the first value of vals within k bits of p,
// or len(vals): four values a step, one test for the four. near is nearGo
// or, on amd64, the same with POPCNT or AVX-512.
func nearGo(vals []uint64, p uint64, k int) int {
	k1 := k + 1
	j := 0
	for ; j+4 <= len(vals); j += 4 {
		r := (*[4]uint64)(vals[j:])
		if (bits.OnesCount64(r[0]^p)-k1)|(bits.OnesCount64(r[1]^p)-k1)|
			(bits.OnesCount64(r[2]^p)-k1)|(bits.OnesCount64(r[3]^p)-k1) < 0 {
			break
		}
	}
	for ; j < len(vals); j++ {
		if bits.OnesCount64(vals[j]^p) <= k {
			return j
		}
	}
	return len(vals)
}

// nearAnyGo returns the first query ps[i] with a value of vals within k
// bits and the first such value vals[j]: (i, j); or (len(ps), 0).
// nearAny is nearAnyGo or, on amd64, the same with AVX-512.
func nearAnyGo(vals, ps []uint64, k int) (int, int) {
	for i, p := range ps {
		if j := near(vals, p, k); j < len(vals) {
			return i, j
		}
	}
	return len(ps), 0
}
