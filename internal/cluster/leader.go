package cluster

import (
	"bytes"
	"encoding/binary"
	"io"
	"slices"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/lsh"
)

// LeaderIndex holds the sketches of the leaders, numbered from 0 in the
// order they were added, and proposes for a new sketch the leaders it may be
// similar enough to join. MinHash and OPH signatures are indexed by LSH
// banding (BandingIndex), SimHash fingerprints by Hamming tables
// (HammingIndex); the names are those of the state header's index=banding
// and index=hamming.
type LeaderIndex interface {
	// Len returns the number of leaders.
	Len() int
	// Add makes values the sketch of leader Len().
	Add(values []uint64)
	// Candidates appends to dst, each once and ascending, the leaders that
	// may be similar enough to values; the others are not.
	Candidates(dst []uint32, values []uint64) []uint32
	// Similarity estimates the similarity of values and leader i, between
	// 0 and 1.
	Similarity(i uint32, values []uint64) float64
	// Save writes leader i's sketch for the state file; Load reads one
	// sketch written by Save and adds it as the next leader.
	Save(w io.Writer, i uint32) error
	Load(r io.Reader) error
	// Bytes returns the memory held, in bytes.
	Bytes() int64
}

// BandingIndex indexes MinHash signatures of n values by LSH banding: b bands
// of r rows, each band's rows hashed to a key, and a table from each key to
// the leaders that have it. A document and a leader of Jaccard similarity s
// share a key, and so the leader is a candidate, with probability
// 1-(1-s^r)^b.
//
// It keeps the low 32 bits of each value: two different 64-bit values agree
// there with probability 2^-32, which moves an estimate by less than 1e-9.
// Memory per leader: 4n bytes of signature, and per band 4 bytes of chain
// and 16 to 32 of table.
type BandingIndex struct {
	n       int
	banding lsh.Banding
	sigs    []uint32
	table   *keyTable
	// next[l*b+i] is 1 + the leader after l in the bucket of band i, or 0.
	next []uint32
	buf  []byte
	sig  []uint32
	keys []uint64
}

// NewBandingIndex returns an empty index for signatures of n values.
func NewBandingIndex(n int, banding lsh.Banding) *BandingIndex {
	return &BandingIndex{n: n, banding: banding, table: newKeyTable()}
}

// Len returns the number of leaders.
func (x *BandingIndex) Len() int { return len(x.sigs) / max(x.n, 1) }

// low keeps the low 32 bits of each value in x.sig.
func (x *BandingIndex) low(values []uint64) []uint32 {
	x.sig = x.sig[:0]
	for _, v := range values {
		x.sig = append(x.sig, uint32(v))
	}
	return x.sig
}

// key returns the bucket key of band i of a signature.
func (x *BandingIndex) key(sig []uint32, i int) uint64 {
	r := x.banding.R
	x.buf = binary.LittleEndian.AppendUint16(x.buf[:0], uint16(i))
	for _, v := range sig[i*r : (i+1)*r] {
		x.buf = binary.LittleEndian.AppendUint32(x.buf, v)
	}
	return xxhash.Sum64(x.buf)
}

// Add makes values the sketch of leader Len().
func (x *BandingIndex) Add(values []uint64) { x.add(x.low(values)) }

func (x *BandingIndex) add(sig []uint32) {
	l := uint32(x.Len())
	x.sigs = append(x.sigs, sig...)
	x.keys = x.keys[:0]
	for i := 0; i < x.banding.B; i++ {
		x.keys = append(x.keys, x.key(sig, i))
	}
	x.table.prefetch(x.keys)
	for _, k := range x.keys {
		x.next = append(x.next, x.table.get(k))
		x.table.set(k, l+1)
	}
}

// Candidates appends the leaders that share a band key with values.
func (x *BandingIndex) Candidates(dst []uint32, values []uint64) []uint32 {
	sig := x.low(values)
	start := len(dst)
	b := uint32(x.banding.B)
	// The keys first, then the lookups, which then miss the cache
	// together rather than one after another.
	x.keys = x.keys[:0]
	for i := 0; i < x.banding.B; i++ {
		x.keys = append(x.keys, x.key(sig, i))
	}
	x.table.prefetch(x.keys)
	for i, k := range x.keys {
		for h := x.table.get(k); h != 0; h = x.next[(h-1)*b+uint32(i)] {
			dst = append(dst, h-1)
		}
	}
	found := dst[start:]
	slices.Sort(found)
	return append(dst[:start], slices.Compact(found)...)
}

// Similarity is the fraction of positions where the signatures agree.
func (x *BandingIndex) Similarity(i uint32, values []uint64) float64 {
	leader := x.sigs[int(i)*x.n : (int(i)+1)*x.n]
	eq := 0
	for j, v := range values[:x.n] {
		if uint32(v) == leader[j] {
			eq++
		}
	}
	return float64(eq) / float64(x.n)
}

// Save writes leader i's n 32-bit values, little-endian.
func (x *BandingIndex) Save(w io.Writer, i uint32) error {
	x.buf = x.buf[:0]
	for _, v := range x.sigs[int(i)*x.n : (int(i)+1)*x.n] {
		x.buf = binary.LittleEndian.AppendUint32(x.buf, v)
	}
	_, err := w.Write(x.buf)
	return err
}

// Load reads n 32-bit values and adds them as a leader.
func (x *BandingIndex) Load(r io.Reader) error {
	buf := make([]byte, 4*x.n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return err
	}
	sig := make([]uint32, x.n)
	for j := range sig {
		sig[j] = binary.LittleEndian.Uint32(buf[4*j:])
	}
	x.add(sig)
	return nil
}

// Bytes returns the memory held.
func (x *BandingIndex) Bytes() int64 {
	return 4*int64(cap(x.sigs)) + 4*int64(cap(x.next)) + x.table.bytes()
}

// leaders is the leader-follower method: each sketch joins the most similar
// leader the index proposes, if its similarity reaches the threshold, or
// becomes a leader.
type leaders struct {
	index     LeaderIndex
	threshold float64
	// names holds the leaders' ids one after another; nameEnds[i] ends
	// leader i's.
	names    []byte
	nameEnds []uint64
	sizes    []uint64
	// empty counts documents without shingles: each is a cluster of its
	// own, not a leader.
	empty int64
	cands []uint32
	// centres, with --update-centre, moves each cluster's centre with its
	// members; err is set when it refuses one.
	centres movingCentres
	err     error
}

func (l *leaders) name(i uint32) []byte {
	var start uint64
	if i > 0 {
		start = l.nameEnds[i-1]
	}
	return l.names[start:l.nameEnds[i]]
}

// assign returns the name of the cluster the sketch joins: a leader's id, or
// its own when it leads a new cluster. Ties in similarity go to the leader
// with the smallest id. With centres the leader stands for its cluster's
// centre, which the member then moves.
func (l *leaders) assign(id []byte, size uint64, values []uint64) []byte {
	if size == 0 {
		l.empty++
		return id
	}
	l.cands = l.index.Candidates(l.cands[:0], values)
	best, bestSim := -1, 0.0
	for _, c := range l.cands {
		s := l.index.Similarity(c, values)
		if s < l.threshold {
			continue
		}
		if best < 0 || s > bestSim || s == bestSim && bytes.Compare(l.name(c), l.name(uint32(best))) < 0 {
			best, bestSim = int(c), s
		}
	}
	if best >= 0 {
		if l.centres != nil {
			if err := l.centres.join(uint32(best), l.sizes[best], values, l.name(uint32(best))); err != nil {
				l.err = err
			}
		}
		l.sizes[best]++
		return l.name(uint32(best))
	}
	l.addLeader(id, 1)
	l.index.Add(values)
	if l.centres != nil {
		l.centres.add(values)
	}
	return id
}

func (l *leaders) addLeader(id []byte, size uint64) {
	l.names = append(l.names, id...)
	l.nameEnds = append(l.nameEnds, uint64(len(l.names)))
	l.sizes = append(l.sizes, size)
}

func (l *leaders) stats(s *sizeStats) {
	for i, n := range l.sizes {
		s.addSize(l.name(uint32(i)), int(n))
	}
	for range l.empty {
		s.addSize(nil, 1)
	}
}

// held returns the bytes the leaders' structures hold and their number.
func (l *leaders) held() (int64, int64, string) {
	total := l.index.Bytes() + int64(cap(l.names)) + 8*int64(cap(l.nameEnds)) + 8*int64(cap(l.sizes))
	if l.centres != nil {
		total += l.centres.bytes()
	}
	return total, int64(len(l.sizes)), "leaders"
}
