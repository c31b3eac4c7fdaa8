package cluster

import (
	"encoding/binary"
	"io"
	"math/bits"
	"slices"

	"github.com/neardup/neardup/internal/lsh"
	"github.com/neardup/neardup/internal/simhash"
)

// HammingIndex indexes SimHash fingerprints of f bits (64 or 128; one or two
// values) by the Hamming table scheme of lsh: a leader within k bits of a
// fingerprint shares the key of at least one table with it, so every such
// leader is a candidate. Its similarity to a fingerprint at distance d is
// 1 - d/f, so a document joins a leader within k bits when the threshold is
// 1 - k/f.
//
// Memory per leader: f/8 bytes of fingerprint and, per table, 4 bytes of
// chain and 16 to 32 of table.
type HammingIndex struct {
	scheme *lsh.Hamming
	words  int // 64-bit words per fingerprint
	fps    []uint64
	table  *keyTable
	// next[l*T+t] is 1 + the leader after l in the bucket of table t, or 0.
	next []uint32
	keys []uint64
	// moved holds a moving leader's old keys.
	moved []uint64
	buf   []byte
}

// NewHammingIndex returns an empty index for the scheme.
func NewHammingIndex(scheme *lsh.Hamming) *HammingIndex {
	return &HammingIndex{scheme: scheme, words: scheme.F / 64, table: newKeyTable()}
}

// Len returns the number of leaders.
func (x *HammingIndex) Len() int { return len(x.fps) / x.words }

func (x *HammingIndex) fingerprint(values []uint64) simhash.Fingerprint {
	if x.words == 2 {
		return simhash.Fingerprint{Hi: values[0], Lo: values[1]}
	}
	return simhash.Fingerprint{Hi: values[0]}
}

// tableKeys computes the key of each table for a fingerprint, hashed with
// the table number into one 64-bit word (two keys that collide there only
// add a candidate, which the distance then rules out).
func (x *HammingIndex) tableKeys(values []uint64) []uint64 {
	fp := x.fingerprint(values)
	x.keys = x.keys[:0]
	for t := range x.scheme.Tables {
		k := x.scheme.Key(t, fp)
		x.keys = append(x.keys, simhash.Mix(k.Hi^simhash.Mix(k.Lo^uint64(t)+0x9e3779b97f4a7c15)))
	}
	return x.keys
}

// Add makes values the fingerprint of leader Len().
func (x *HammingIndex) Add(values []uint64) {
	l := uint32(x.Len())
	x.fps = append(x.fps, values[:x.words]...)
	keys := x.tableKeys(values)
	x.table.prefetch(keys)
	for _, k := range keys {
		x.next = append(x.next, x.table.get(k))
		x.table.set(k, l+1)
	}
}

// Move makes values the fingerprint of leader i, which was another: for
// each table whose key changes, i leaves the chain of its old key (walked
// from its head to i) and heads the chain of the new one.
func (x *HammingIndex) Move(i uint32, values []uint64) {
	t := uint32(len(x.scheme.Tables))
	old := append(x.moved[:0], x.tableKeys(x.fps[int(i)*x.words:(int(i)+1)*x.words])...)
	x.moved = old
	keys := x.tableKeys(values)
	for j, k := range keys {
		if k == old[j] {
			continue
		}
		slot := i*t + uint32(j)
		h := x.table.get(old[j])
		if h == i+1 {
			if next := x.next[slot]; next != 0 {
				x.table.set(old[j], next)
			} else {
				x.table.del(old[j])
			}
		} else {
			for x.next[(h-1)*t+uint32(j)] != i+1 {
				h = x.next[(h-1)*t+uint32(j)]
			}
			x.next[(h-1)*t+uint32(j)] = x.next[slot]
		}
		x.next[slot] = x.table.get(k)
		x.table.set(k, i+1)
	}
	copy(x.fps[int(i)*x.words:], values[:x.words])
}

// Candidates appends the leaders that share a table key with values.
func (x *HammingIndex) Candidates(dst []uint32, values []uint64) []uint32 {
	start := len(dst)
	t := uint32(len(x.scheme.Tables))
	keys := x.tableKeys(values)
	x.table.prefetch(keys)
	for i, k := range keys {
		for h := x.table.get(k); h != 0; h = x.next[(h-1)*t+uint32(i)] {
			dst = append(dst, h-1)
		}
	}
	found := dst[start:]
	slices.Sort(found)
	return append(dst[:start], slices.Compact(found)...)
}

// Similarity is 1 - (Hamming distance)/f.
func (x *HammingIndex) Similarity(i uint32, values []uint64) float64 {
	leader := x.fps[int(i)*x.words : (int(i)+1)*x.words]
	d := 0
	for j, v := range values[:x.words] {
		d += bits.OnesCount64(v ^ leader[j])
	}
	return 1 - float64(d)/float64(x.scheme.F)
}

// Save writes leader i's fingerprint, little-endian words.
func (x *HammingIndex) Save(w io.Writer, i uint32) error {
	x.buf = x.buf[:0]
	for _, v := range x.fps[int(i)*x.words : (int(i)+1)*x.words] {
		x.buf = binary.LittleEndian.AppendUint64(x.buf, v)
	}
	_, err := w.Write(x.buf)
	return err
}

// Load reads a fingerprint written by Save and adds it as a leader.
func (x *HammingIndex) Load(r io.Reader) error {
	buf := make([]byte, 8*x.words)
	if _, err := io.ReadFull(r, buf); err != nil {
		return err
	}
	values := make([]uint64, x.words)
	for j := range values {
		values[j] = binary.LittleEndian.Uint64(buf[8*j:])
	}
	x.Add(values)
	return nil
}

// Bytes returns the memory held.
func (x *HammingIndex) Bytes() int64 {
	return 8*int64(cap(x.fps)) + 4*int64(cap(x.next)) + x.table.bytes()
}
