package shingle

import (
	"slices"

	"github.com/neardup/neardup/internal/mix"
)

// Polynomial base of the tok64 combination: an odd constant, so that every
// power of it is odd and a change in any one unit changes the sum.
const polyBase = 0x9e3779b97f4a7c15

// lengthMul times the number of units in a shingle is added to their
// combination before the final mix (finish).
const lengthMul = 0x3c6ef372fe94f82b

// Mix64 is the bijective finaliser of tok64 (MurmurHash3's).
func Mix64(x uint64) uint64 { return mix.Murmur(x) }

// seedKey turns a seed into the key that the final mix of tok64 uses.
func seedKey(seed uint64) uint64 { return Mix64(seed ^ 0x6a09e667f3bcc909) }

// window keeps the last k unit hashes and their polynomial combination
//
//	poly = u[1]·B^(m-1) + u[2]·B^(m-2) + … + u[m]   (mod 2^64)
//
// for the m ≤ k units it holds, so that sliding by one unit costs one
// multiplication and one subtraction.
type window struct {
	k    int
	ring []uint64 // unit i is in ring[i mod k]
	n    int      // units added so far
	poly uint64
	top  uint64 // B^(k-1)
}

func (w *window) reset(k int) {
	w.k = k
	if cap(w.ring) < k {
		w.ring = make([]uint64, k)
	}
	w.ring = w.ring[:k]
	w.n = 0
	w.poly = 0
	w.top = 1
	for i := 1; i < k; i++ {
		w.top *= polyBase
	}
}

// add slides the window over units and appends the shingle hash of each
// full window to dst. Callers hand units over in batches: the state is in
// locals while a batch goes through, not loaded and stored for each unit.
func (w *window) add(dst, units []uint64, key uint64) []uint64 {
	k, ring, top := w.k, w.ring, w.top
	poly, n := w.poly, w.n
	// The first k units of the batch push out units of the ring.
	head := min(k, len(units))
	slot := n % k
	for _, u := range units[:head] {
		if n >= k {
			poly -= ring[slot] * top
		}
		poly = poly*polyBase + u
		ring[slot] = u
		if slot++; slot == k {
			slot = 0
		}
		if n++; n >= k {
			dst = append(dst, finish(poly, k, key))
		}
	}
	if head == len(units) {
		w.poly, w.n = poly, n
		return dst
	}
	// The others push out units of the batch, and every window is full:
	// the one that ends at units[k+i] starts at units[i+1] (mix.Window
	// takes them sixteen at a time where the CPU has the vectors).
	m := len(units) - k
	start := len(dst)
	dst = slices.Grow(dst, m)[:start+m]
	mix.Window(dst[start:], units[1:], k, polyBase, uint64(k)*lengthMul, key)
	n += m
	// The ring takes the batch's last k units, unit i in ring[i mod k],
	// and the sum is theirs.
	poly = 0
	for i, u := range units[len(units)-k:] {
		ring[(n-k+i)%k] = u
		poly = poly*polyBase + u
	}
	w.poly, w.n = poly, n
	return dst
}

// short appends the hash of a text of fewer than k units (but some): its
// one shingle is all of them.
func (w *window) short(dst []uint64, key uint64) []uint64 {
	if w.n > 0 && w.n < w.k {
		dst = append(dst, finish(w.poly, w.n, key))
	}
	return dst
}

// finish mixes a combination of m units with the seed key into the shingle
// hash.
func finish(poly uint64, m int, key uint64) uint64 {
	return Mix64((poly + uint64(m)*lengthMul) ^ key)
}

// combine hashes a short sequence of unit hashes the way a window does.
func combine(units []uint64, key uint64) uint64 {
	var poly uint64
	for _, u := range units {
		poly = poly*polyBase + u
	}
	return finish(poly, len(units), key)
}
