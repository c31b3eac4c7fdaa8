// Package intern numbers document ids: each distinct id gets a dense number
// from 0, in the order first seen, and the ids are kept in one byte arena.
//
// Memory: the id's bytes, 8 bytes for its offset in the arena and 4 to 8
// bytes of hash table (4-byte slots kept between a quarter and a half full,
// doubling when half full): about 20 bytes plus the id's length per id,
// against some 60 bytes plus the id for a Go map[string]uint32 and a slice of
// the strings.
package intern

import (
	"bytes"

	"github.com/cespare/xxhash/v2"
)

// Table maps ids to dense numbers.
type Table struct {
	arena []byte
	ends  []uint64 // ends[i] is the end of id i in arena; it starts at ends[i-1]
	slots []uint32 // number+1 of the id in the slot, 0 when empty
	mask  uint64
}

// New returns an empty table.
func New() *Table {
	t := &Table{}
	t.slots = make([]uint32, 1024)
	t.mask = uint64(len(t.slots) - 1)
	return t
}

// Len returns the number of ids.
func (t *Table) Len() int { return len(t.ends) }

// ID returns id number i. The slice aliases the table and must not be
// changed.
func (t *Table) ID(i uint32) []byte {
	var start uint64
	if i > 0 {
		start = t.ends[i-1]
	}
	end := t.ends[i]
	return t.arena[start:end:end]
}

// Lookup returns the number of id, if it is held.
func (t *Table) Lookup(id []byte) (uint32, bool) {
	for s := xxhash.Sum64(id) & t.mask; ; s = (s + 1) & t.mask {
		v := t.slots[s]
		if v == 0 {
			return 0, false
		}
		if bytes.Equal(t.ID(v-1), id) {
			return v - 1, true
		}
	}
}

// Add returns the number of id, adding it if it is new; added says which.
func (t *Table) Add(id []byte) (n uint32, added bool) {
	s := xxhash.Sum64(id) & t.mask
	for ; ; s = (s + 1) & t.mask {
		v := t.slots[s]
		if v == 0 {
			break
		}
		if bytes.Equal(t.ID(v-1), id) {
			return v - 1, false
		}
	}
	if len(t.ends) == 1<<32-2 {
		panic("intern: more than 2^32-2 ids")
	}
	n = uint32(len(t.ends))
	t.arena = append(t.arena, id...)
	t.ends = append(t.ends, uint64(len(t.arena)))
	t.slots[s] = n + 1
	if 2*len(t.ends) > len(t.slots) {
		t.grow()
	}
	return n, true
}

func (t *Table) grow() {
	t.slots = make([]uint32, 2*len(t.slots))
	t.mask = uint64(len(t.slots) - 1)
	for i := range t.ends {
		s := xxhash.Sum64(t.ID(uint32(i))) & t.mask
		for t.slots[s] != 0 {
			s = (s + 1) & t.mask
		}
		t.slots[s] = uint32(i) + 1
	}
}

// Compare compares ids i and j bytewise.
func (t *Table) Compare(i, j uint32) int { return bytes.Compare(t.ID(i), t.ID(j)) }

// Bytes returns the memory the table holds, in bytes.
func (t *Table) Bytes() int64 {
	return int64(cap(t.arena)) + 8*int64(cap(t.ends)) + 4*int64(len(t.slots))
}
