// Package store holds, in memory, a list of 64-bit values per document id
// (shingle sets, signatures), packed in one array.
//
// Memory: 8 bytes per value, plus about 56 bytes and the id's length per
// document (the map entry, an offset and a size). A MinHash signature of 128
// values thus costs about 1.1 KB.
package store

import "slices"

// Store maps ids to value lists and sizes.
type Store struct {
	index map[string]uint32
	ids   []string
	offs  []uint64 // offs[i]..offs[i+1] are the values of document i
	sizes []uint64
	vals  []uint64
}

// New returns an empty store.
func New() *Store {
	return &Store{index: map[string]uint32{}, offs: []uint64{0}}
}

// Add stores the values and size of id. It returns false, storing nothing,
// when id is already present.
func (s *Store) Add(id []byte, size uint64, values []uint64) bool {
	if _, ok := s.index[string(id)]; ok {
		return false
	}
	k := string(id)
	s.index[k] = uint32(len(s.ids))
	s.ids = append(s.ids, k)
	s.vals = append(s.vals, values...)
	s.offs = append(s.offs, uint64(len(s.vals)))
	s.sizes = append(s.sizes, size)
	return true
}

// Lookup returns the index of id.
func (s *Store) Lookup(id []byte) (int, bool) {
	i, ok := s.index[string(id)]
	return int(i), ok
}

// Values returns the values of document i; the slice must not be changed.
func (s *Store) Values(i int) []uint64 { return s.vals[s.offs[i]:s.offs[i+1]:s.offs[i+1]] }

// Size returns the size recorded for document i.
func (s *Store) Size(i int) uint64 { return s.sizes[i] }

// ID returns the id of document i.
func (s *Store) ID(i int) string { return s.ids[i] }

// Len returns the number of documents.
func (s *Store) Len() int { return len(s.ids) }

// Compact trims the arrays' spare capacity.
func (s *Store) Compact() {
	s.vals = slices.Clip(s.vals)
	s.offs = slices.Clip(s.offs)
	s.sizes = slices.Clip(s.sizes)
	s.ids = slices.Clip(s.ids)
}
