package bandindex

import (
	"bytes"
	"slices"
)

// Entries holds band records (key, id) in one arena, to be sorted by key,
// then id, bytewise. Memory: the bytes of the keys and ids and 16 bytes
// per record.
type Entries struct {
	arena []byte
	items []item
}

type item struct {
	off        int
	klen, ilen uint32
}

// Add copies a record in.
func (e *Entries) Add(key, id []byte) {
	e.items = append(e.items, item{len(e.arena), uint32(len(key)), uint32(len(id))})
	e.arena = append(e.arena, key...)
	e.arena = append(e.arena, id...)
}

// Len returns the number of records held.
func (e *Entries) Len() int { return len(e.items) }

// Bytes returns the memory the records take.
func (e *Entries) Bytes() int64 { return int64(len(e.arena) + 16*len(e.items)) }

// At returns record i; the slices alias the arena.
func (e *Entries) At(i int) (key, id []byte) {
	it := e.items[i]
	k := it.off + int(it.klen)
	return e.arena[it.off:k:k], e.arena[k : k+int(it.ilen) : k+int(it.ilen)]
}

// Sort sorts the records by key, then id, and drops repeated ones; it
// returns how many it dropped.
func (e *Entries) Sort() int {
	slices.SortFunc(e.items, func(x, y item) int {
		kx := e.arena[x.off : x.off+int(x.klen)]
		ky := e.arena[y.off : y.off+int(y.klen)]
		if c := bytes.Compare(kx, ky); c != 0 {
			return c
		}
		ix := e.arena[x.off+int(x.klen) : x.off+int(x.klen)+int(x.ilen)]
		iy := e.arena[y.off+int(y.klen) : y.off+int(y.klen)+int(y.ilen)]
		return bytes.Compare(ix, iy)
	})
	n := len(e.items)
	e.items = slices.CompactFunc(e.items, func(x, y item) bool {
		return bytes.Equal(e.arena[x.off:x.off+int(x.klen+x.ilen)], e.arena[y.off:y.off+int(y.klen+y.ilen)]) && x.klen == y.klen
	})
	return n - len(e.items)
}

// Reset empties the records, keeping the memory.
func (e *Entries) Reset() {
	e.arena, e.items = e.arena[:0], e.items[:0]
}
