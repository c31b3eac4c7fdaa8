package minhash

import (
	"math/bits"
	"slices"

	"github.com/neardup/neardup/internal/hashsort"
	"github.com/neardup/neardup/internal/mix"
)

// Mix64 is the bijective finaliser each shingle hash goes through.
func Mix64(x uint64) uint64 { return mix.Murmur(x) }

// Empty is the value of a signature position of the empty set.
const Empty = ^uint64(0)

// Family is n hash functions h_i(x) = a_i·Mix64(x) + b_i mod 2^64.
type Family struct {
	A, B []uint64
}

// NewFamily draws n functions from seed.
func NewFamily(n int, seed uint64) *Family {
	g := mix.SplitMix64(seed ^ 0x5851f42d4c957f2d)
	f := &Family{A: make([]uint64, n), B: make([]uint64, n)}
	for i := range n {
		f.A[i] = g.Next() | 1
		f.B[i] = g.Next()
	}
	return f
}

// Len returns n.
func (f *Family) Len() int { return len(f.A) }

// mixBatch is how many mixed set values Signature holds at a time (on the
// stack).
const mixBatch = 256

// Signature writes into sig (length n) the minimum of each function over
// the set: sig[i] = min over x in set of a_i·Mix64(x) + b_i. Mixing each
// value once first makes the signature as good for inputs that are not
// uniform hashes (consecutive numbers, say) as for those that are. An empty
// set gives Empty everywhere.
func (f *Family) Signature(sig []uint64, set []uint64) { f.signature(sig, set, true) }

// Begin starts in sig the signature of a set given in parts: Add each
// part, which may repeat values, and sig is Signature's of the set of
// them all.
func (f *Family) Begin(sig []uint64) {
	for i := range sig[:len(f.A)] {
		sig[i] = Empty
	}
}

// Add lowers the signature begun in sig (Begin) by the values of part.
func (f *Family) Add(sig []uint64, part []uint64) { f.lower(sig, part, true) }

// signature is Signature, with the vector path allowed or not.
func (f *Family) signature(sig []uint64, set []uint64, vector bool) {
	f.Begin(sig)
	f.lower(sig, set, vector)
}

// lower lowers sig to the minima over set, with the vector path allowed or
// not.
func (f *Family) lower(sig []uint64, set []uint64, vector bool) {
	sig = sig[:len(f.A)]
	var mixed [mixBatch]uint64
	for len(set) > 0 {
		m := min(len(set), mixBatch)
		// Mixed eight at a time where the CPU has AVX-512 (Murmur of
		// x ^ 0 is Mix64(x)): one at a time it was a fifth of the
		// signature's time.
		mix.MurmurXor(mixed[:m], set[:m], 0)
		if !vector || !f.signatureVector(sig, mixed[:m]) {
			f.signatureScalar(sig, mixed[:m])
		}
		set = set[m:]
	}
}

// signatureScalar lowers sig to the minima over set, in Go: four running
// minima per function hide the latency of the comparison.
func (f *Family) signatureScalar(sig []uint64, set []uint64) {
	a, b := f.A, f.B[:len(f.A)]
	sig = sig[:len(a)]
	for i := range a {
		ai, bi := a[i], b[i]
		m0, m1, m2, m3 := Empty, Empty, Empty, Empty
		j := 0
		for ; j+4 <= len(set); j += 4 {
			m0 = min(m0, ai*set[j]+bi)
			m1 = min(m1, ai*set[j+1]+bi)
			m2 = min(m2, ai*set[j+2]+bi)
			m3 = min(m3, ai*set[j+3]+bi)
		}
		for ; j < len(set); j++ {
			m0 = min(m0, ai*set[j]+bi)
		}
		sig[i] = min(sig[i], min(m0, m1), min(m2, m3))
	}
}

// OPH is one-permutation hashing with optimal densification into n bins.
type OPH struct {
	n      int
	key    uint64
	seed   uint64
	filled []bool   // scratch: which bins a set fills
	coarse []bool   // scratch: which bins a set fills, of a fine signature's
	table  []uint64 // scratch: SignatureCount's table
	mixed  []uint64 // scratch: the hashes of a block of values (mix)
	// buckets: scratch, the AVX-512 table of SignatureCount (bucketTable)
	buckets []uint64
	// tries and fineTries: the first bins densify tries for each bin of
	// n and of FineFactor·n (densifyTries); first and fineFirst, when
	// each bin is first tried (firstTries)
	tries, fineTries, first, fineFirst []uint16
	srcs                               []int // scratch: the filled bins (densifySparse)
}

// NewOPH returns an OPH sketcher with n bins.
func NewOPH(n int, seed uint64) *OPH {
	g := mix.SplitMix64(seed ^ 0x2545f4914f6cdd1d)
	return &OPH{n: n, key: g.Next(), seed: g.Next()}
}

// Len returns n.
func (o *OPH) Len() int { return o.n }

// Signature writes the densified one-permutation signature of set into sig.
func (o *OPH) Signature(sig []uint64, set []uint64) {
	o.Begin(sig)
	o.Add(sig, set)
	o.Finish(sig, len(set))
}

// Begin starts in sig the signature of a set given in parts: Add each
// part, which may repeat values, then Finish, and sig is Signature's of
// the parts' values, repeats and all, in one set.
func (o *OPH) Begin(sig []uint64) {
	n := o.n
	for i := range sig[:n] {
		sig[i] = Empty
	}
	if cap(o.filled) < n {
		o.filled = make([]bool, n)
	}
	clear(o.filled[:n])
}

// Add bins the values of part into the signature begun in sig (Begin).
func (o *OPH) Add(sig []uint64, part []uint64) {
	n := o.n
	sig, filled := sig[:n], o.filled[:n]
	for len(part) > 0 {
		hs := o.mix(part)
		for _, h := range hs {
			bin, _ := bits.Mul64(h, uint64(n))
			sig[bin] = min(sig[bin], h)
			filled[bin] = true
		}
		part = part[len(hs):]
	}
}

// Finish densifies the signature in sig of values values in all (Add's
// parts, repeats too): its empty bins are filled from others, unless no
// value came.
func (o *OPH) Finish(sig []uint64, values int) {
	if values == 0 {
		return
	}
	o.densify(sig[:o.n], o.filled[:o.n], values)
}

// mixBlock is how many values OPH mixes at a time (OPH.mix): its scratch
// stays in the first-level cache.
const mixBlock = 512

// mix returns the hashes Mix64(x ^ key) of the first values of xs, up to
// mixBlock of them, in the OPH's scratch: many at a time
// (mix.MurmurXor), then taken one by one into their bins.
func (o *OPH) mix(xs []uint64) []uint64 {
	if o.mixed == nil {
		o.mixed = make([]uint64, mixBlock)
	}
	hs := o.mixed[:min(len(xs), mixBlock)]
	mix.MurmurXor(hs, xs[:len(hs)], o.key)
	return hs
}

// SignatureCount writes into sig the signature of the set of the values of
// hashes, which may repeat, and returns the set's size: Signature and the
// number of distinct values, without the list of them. A value's hash,
// Mix64(x ^ key), is a bijection of it, so the distinct hashes are counted
// in a table keyed by them while each goes into its bin (a repeat lowers
// no minimum). hashes may be reordered.
func (o *OPH) SignatureCount(sig []uint64, hashes []uint64) int {
	n, _ := o.SignatureCountSum(sig, hashes)
	return n
}

// SignatureCountSum is SignatureCount that also returns the sum of the
// distinct values' hashes: equal sets have equal sums, and different ones
// rarely (shingle --collapse groups documents by it and verifies them).
func (o *OPH) SignatureCountSum(sig []uint64, hashes []uint64) (int, uint64) {
	return o.countSum(sig, nil, hashes)
}

// FineFactor is how many times the bins of its signature a fine one has
// (SignatureCountSumFine).
const FineFactor = 2

// SignatureCountSumFine is SignatureCountSum that also writes into fine
// (FineFactor·n values) the densified signature of FineFactor·n bins of
// the same hashes, of which the signature is the minima of each
// FineFactor bins in turn (a value's bin is the top bits of its hash):
// twice the positions for a b-bit signature, in one pass.
func (o *OPH) SignatureCountSumFine(sig, fine []uint64, hashes []uint64) (int, uint64) {
	return o.countSum(sig, fine[:FineFactor*o.n], hashes)
}

// countSum is SignatureCountSum, into the fine bins and then the
// signature's when fine is not nil.
func (o *OPH) countSum(sig, fine []uint64, hashes []uint64) (int, uint64) {
	n := o.n
	sig = sig[:n]
	bins := sig
	if fine != nil {
		bins = fine
	}
	m := len(bins)
	for i := range bins {
		bins[i] = Empty
	}
	if fine != nil {
		for i := range sig {
			sig[i] = Empty
		}
	}
	if len(hashes) == 0 {
		return 0, 0
	}
	if cap(o.filled) < m {
		o.filled = make([]bool, m)
	}
	filled := o.filled[:m]
	clear(filled)
	if t, ok := o.bucketTable(len(hashes)); ok {
		return o.countBuckets(&t, sig, fine, bins, filled, hashes)
	}
	b := bits.Len(uint(2*len(hashes) - 1)) // a table of 2 to 4 slots a value
	if cap(o.table) < 1<<b {
		o.table = make([]uint64, 1<<b)
	}
	table := o.table[:1<<b]
	clear(table)
	mask, shift := uint64(len(table)-1), 64-b
	// 0 marks an empty slot: the hash 0 is counted apart.
	distinct, zero := 0, 0
	var sum uint64
	budget := hashsort.MaxProbes * len(hashes)
	for start := 0; start < len(hashes); {
		hs := o.mix(hashes[start:])
		for j, h := range hs {
			bin, _ := bits.Mul64(h, uint64(m))
			bins[bin] = min(bins[bin], h)
			filled[bin] = true
			if h == 0 {
				zero = 1
				continue
			}
			for i := h >> shift; ; i = (i + 1) & mask {
				v := table[i]
				if v == h {
					break
				}
				if v == 0 {
					table[i] = h
					distinct++
					sum += h
					break
				}
				if budget--; budget < 0 {
					return o.crowded(sig, fine, bins, filled, hashes, start+j+1)
				}
			}
		}
		start += len(hs)
	}
	o.finish(sig, fine, filled, len(hashes))
	return distinct + zero, sum
}

// countBuckets is countSum's loop in t, a bucket table (AVX-512): the same
// signatures, count and sum, in about half the time at 16,000 uniform
// values (BenchmarkOPHSignatureCountSum).
func (o *OPH) countBuckets(t *bucketTable, sig, fine, bins []uint64, filled []bool, hashes []uint64) (int, uint64) {
	for start := 0; start < len(hashes); {
		hs := o.mix(hashes[start:])
		done := t.add(hs, bins, filled)
		if t.st.crowded != 0 {
			clear(t.slots)
			return o.crowded(sig, fine, bins, filled, hashes, start+done)
		}
		start += len(hs)
	}
	o.finish(sig, fine, filled, len(hashes))
	count, sum := t.tally()
	return int(count + t.st.zero), sum
}

// crowded ends countSum when its values crowd the table (more probes than
// its budget, hashsort.NoteCrowded): the values from hashes[from:] go into
// their bins, and the count and sum are those of the values sorted.
func (o *OPH) crowded(sig, fine, bins []uint64, filled []bool, hashes []uint64, from int) (int, uint64) {
	hashsort.NoteCrowded()
	o.binRest(bins, filled, hashes[from:])
	o.finish(sig, fine, filled, len(hashes))
	slices.Sort(hashes)
	set := slices.Compact(hashes)
	var sum uint64
	for _, x := range set {
		sum += Mix64(x ^ o.key)
	}
	return len(set), sum
}

// finish densifies the bins the values went into (filled says which),
// sig's, or fine's and then sig's as the minima of fine's bins.
func (o *OPH) finish(sig, fine []uint64, filled []bool, values int) {
	if fine == nil {
		o.densify(sig, filled, values)
		return
	}
	if cap(o.coarse) < len(sig) {
		o.coarse = make([]bool, len(sig))
	}
	coarse := o.coarse[:len(sig)]
	clear(coarse)
	for i, v := range fine {
		j := i / FineFactor
		sig[j] = min(sig[j], v)
		coarse[j] = coarse[j] || filled[i]
	}
	o.densify(fine, filled, values)
	o.densify(sig, coarse, values)
}

// binRest puts the hashes of the values of set into their bins, of
// len(bins).
func (o *OPH) binRest(bins []uint64, filled []bool, set []uint64) {
	for _, x := range set {
		h := Mix64(x ^ o.key)
		bin, _ := bits.Mul64(h, uint64(len(bins)))
		bins[bin] = min(bins[bin], h)
		filled[bin] = true
	}
}

// densify fills each bin of sig no value went into from another, as
// Signature does (the bins tried are those of len(sig) bins); values, the
// number of values binned (repeats too), bounds the bins filled.
func (o *OPH) densify(sig []uint64, filled []bool, values int) {
	m := len(sig)
	if values <= m && 4*values*values <= m {
		if first := o.firstTries(m); first != nil {
			o.densifySparse(sig, filled, first)
			return
		}
	}
	tries := o.densifyTries(m)
	// The empty bins are found from a word of them for each 64 bins: a
	// branch on each bin was mispredicted where about half are filled.
	for base := 0; base < m; base += 64 {
		var empty uint64
		for i, f := range filled[base:min(base+64, m)] {
			empty |= uint64(bit(!f)) << i
		}
		for ; empty != 0; empty &= empty - 1 {
			j := base + bits.TrailingZeros64(empty)
			// Optimal densification: the attempt-th bin tried for bin j
			// is a hash of (j, attempt), the same for every set, so two
			// sets that both lack bin j copy from the same bin whenever
			// they agree on which bins are filled. The first tries of
			// each bin are in the table.
			attempt := uint64(1)
			if tries != nil {
				row := tries[j*denseTries:][:denseTries]
				if k := firstFilled(row, filled); k >= 0 {
					sig[j] = sig[row[k]]
					continue
				}
				attempt = denseTries + 1
			}
			for ; ; attempt++ {
				if src := o.densifyTry(m, j, attempt); filled[src] {
					sig[j] = sig[src]
					break
				}
			}
		}
	}
}

// firstFilled returns the place in row of its first filled bin, -1 when
// none is. The bins are looked up eight at a time, with one branch for the
// eight: a branch on each bin was mispredicted about once an empty bin,
// where its first filled one came at a try that varies from set to set.
// len(row) is a multiple of eight.
func firstFilled(row []uint16, filled []bool) int {
	for i := 0; i+8 <= len(row); i += 8 {
		r := row[i : i+8 : i+8]
		m := bit(filled[r[0]]) | bit(filled[r[1]])<<1 | bit(filled[r[2]])<<2 | bit(filled[r[3]])<<3 |
			bit(filled[r[4]])<<4 | bit(filled[r[5]])<<5 | bit(filled[r[6]])<<6 | bit(filled[r[7]])<<7
		if m != 0 {
			return i + bits.TrailingZeros(m)
		}
	}
	return -1
}

// bit is 1 for true, 0 for false.
func bit(b bool) uint {
	if b {
		return 1
	}
	return 0
}

// densifyTry returns the bin of m that densification tries for bin j at
// attempt (from 1).
func (o *OPH) densifyTry(m, j int, attempt uint64) uint64 {
	h := Mix64(o.seed ^ uint64(j)<<32 ^ attempt)
	src, _ := bits.Mul64(h, uint64(m))
	return src
}

// denseTries is the tries of a bin densify's table holds: a set that fills
// a few bins of 128 finds one in about 128/few tries, each a hash, where
// the table has it in a load.
const denseTries = 128

// denseBins is the most bins densify's table is made for (256 KiB).
const denseBins = 1024

// densifyTries returns the first denseTries bins densification tries for
// each bin of m (densifyTry): nil for more than denseBins bins (binTable).
func (o *OPH) densifyTries(m int) []uint16 {
	return o.binTable(m, denseBins, denseTries, &o.tries, &o.fineTries, func(t []uint16) {
		for j := range m {
			for a := range denseTries {
				t[j*denseTries+a] = uint16(o.densifyTry(m, j, uint64(a+1)))
			}
		}
	})
}

// binTable returns the table of m bins, of per entries a bin, that fill
// writes: *tab for n bins, *fine for a fine signature's FineFactor·n,
// made when first asked for; nil for more than most bins, or another m.
func (o *OPH) binTable(m, most, per int, tab, fine *[]uint16, fill func([]uint16)) []uint16 {
	t := tab
	switch {
	case m > most:
		return nil
	case m == FineFactor*o.n:
		t = fine
	case m != o.n:
		return nil
	}
	if *t == nil {
		*t = make([]uint16, m*per)
		fill(*t)
	}
	return *t
}

// densifySparse is densify of a set that fills few of the m bins (o.srcs):
// the bin an empty bin copies is the filled one it tries first, the one of
// the least first try in its row of first (firstTries), few reads where
// the tries until one is filled are about m over few.
func (o *OPH) densifySparse(sig []uint64, filled []bool, first []uint16) {
	m := len(sig)
	o.srcs = o.srcs[:0]
	for j, f := range filled {
		if f {
			o.srcs = append(o.srcs, j)
		}
	}
	for j := range sig {
		if filled[j] {
			continue
		}
		// The least of (try, bin): bins are below 256.
		row := first[j*m:][:m]
		best := uint32(noFirstTry)<<8 | 0xff
		for _, s := range o.srcs {
			best = min(best, uint32(row[s])<<8|uint32(s))
		}
		src := int(best & 0xff)
		if best>>8 == noFirstTry { // none tried within the row's tries: by hash
			for attempt := uint64(1); ; attempt++ {
				if s := o.densifyTry(m, j, attempt); filled[s] {
					src = int(s)
					break
				}
			}
		}
		sig[j] = sig[src]
	}
}

// noFirstTry marks a bin not tried in the first noFirstTry-1 tries.
const noFirstTry = 1<<16 - 1

// sparseBins is the most bins firstTries makes a table for (128 KiB).
const sparseBins = 256

// firstTries returns, for each bin j of m and each bin s, the try (from 1)
// at which densification first tries s for j (densifyTry), or noFirstTry
// when that is later than noFirstTry-1 tries (about e^-254 for a bin of
// 256): made once for n bins and once for a fine signature's; nil for more
// than sparseBins bins.
func (o *OPH) firstTries(m int) []uint16 {
	return o.binTable(m, sparseBins, m, &o.first, &o.fineFirst, func(t []uint16) {
		for j := range m {
			row := t[j*m:][:m]
			for s := range row {
				row[s] = noFirstTry
			}
			for attempt, left := 1, m; left > 0 && attempt < noFirstTry; attempt++ {
				if s := o.densifyTry(m, j, uint64(attempt)); row[s] == noFirstTry {
					row[s] = uint16(attempt)
					left--
				}
			}
		}
	})
}

// Similarity returns the fraction of positions where two signatures agree:
// the estimate of their sets' Jaccard similarity.
func Similarity(a, b []uint64) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	eq := 0
	for i := range a {
		if a[i] == b[i] {
			eq++
		}
	}
	return float64(eq) / float64(len(a))
}

// Prefix returns the family of the first m of f's functions (m ≤ Len):
// its signature is the first m values of f's.
func (f *Family) Prefix(m int) *Family { return &Family{A: f.A[:m:m], B: f.B[:m:m]} }
