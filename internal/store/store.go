// Package store holds, in memory, a list of 64-bit values per document id
// (shingle sets, signatures).
//
// Values are packed in blocks of BlockValues (8 MiB), a document's values
// in one block, so that the store grows without copying what it holds and
// wastes at most the tail of one block: a slice grown by append would copy
// everything at each doubling and hold up to twice what it needs.
//
// Memory: 8 bytes per value, plus about 60 bytes and the id's length per
// document (the map entry, its place and its size). A MinHash signature of
// 128 values thus costs about 1.1 KB.
package store

// BlockValues is the number of values of a block.
const BlockValues = 1 << 20

// Store maps ids to value lists and sizes.
type Store struct {
	index  map[string]uint32
	ids    []string
	blocks [][]uint64
	// Document i's values are blocks[block[i]][off[i]:off[i]+n[i]].
	block, off, n []uint32
	sizes         []uint64
}

// New returns an empty store.
func New() *Store {
	return &Store{index: map[string]uint32{}}
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
	last := len(s.blocks) - 1
	if last < 0 || cap(s.blocks[last])-len(s.blocks[last]) < len(values) {
		s.blocks = append(s.blocks, make([]uint64, 0, max(BlockValues, len(values))))
		last++
	}
	b := s.blocks[last]
	s.block = append(s.block, uint32(last))
	s.off = append(s.off, uint32(len(b)))
	s.n = append(s.n, uint32(len(values)))
	s.blocks[last] = append(b, values...)
	s.sizes = append(s.sizes, size)
	return true
}

// Lookup returns the index of id.
func (s *Store) Lookup(id []byte) (int, bool) {
	i, ok := s.index[string(id)]
	return int(i), ok
}

// Values returns the values of document i; the slice must not be changed.
func (s *Store) Values(i int) []uint64 {
	off, end := s.off[i], s.off[i]+s.n[i]
	return s.blocks[s.block[i]][off:end:end]
}

// Size returns the size recorded for document i.
func (s *Store) Size(i int) uint64 { return s.sizes[i] }

// ID returns the id of document i.
func (s *Store) ID(i int) string { return s.ids[i] }

// Len returns the number of documents.
func (s *Store) Len() int { return len(s.ids) }
