package band

import (
	"math/bits"

	"github.com/neardup/neardup/internal/docfreq"
)

// dfMap is a document-frequency table in an open-addressing hash table:
// one probe into memory a lookup where the table's binary search takes
// about log2(n) (band looks up every shingle of every document). A slot
// holds the hash and its count side by side, so that a lookup that finds
// its hash misses the cache once, not twice: 16 bytes per slot, 32 to 64
// per hash at a load of a quarter to a half.
//
// Shingle hashes are uniform (tok64 and xxh64 end in a mixer), so a hash's
// slot is its own top bits, and the table, sorted by hash, goes in in the
// order of the slots: one sweep through memory, not a cache miss per hash.
// Hashes that are not uniform would crowd some slots: when a hash lands
// more than maxRun slots past its own, the table is made again with the
// hashes scrambled (multiplied by an odd constant) first.
type dfMap struct {
	slots []dfSlot
	shift uint
	// mul scrambles a hash before its top bits are taken: 1, or an odd
	// constant.
	mul uint64
}

// dfSlot is a hash and its count; count 0 is an empty slot.
type dfSlot struct {
	hash  uint64
	count uint32
}

// maxRun is the farthest past its own slot a hash may land before the
// table is made again with the hashes scrambled: uniform hashes at a load
// of at most a half land a few slots away (the longest run of a few million
// is about 30).
const maxRun = 256

func newDFMap(t *docfreq.Table) *dfMap {
	b := max(bits.Len(uint(2*t.Len())), 4)
	m := &dfMap{slots: make([]dfSlot, 1<<b), shift: uint(64 - b), mul: 1}
	if !m.fill(t, maxRun) {
		clear(m.slots)
		m.mul = 0x9e3779b97f4a7c15
		m.fill(t, len(m.slots))
	}
	return m
}

// fill puts the table's hashes in their slots; it gives up, returning
// false, when one lands more than run slots past its own.
func (m *dfMap) fill(t *docfreq.Table, run int) bool {
	mask := uint64(len(m.slots) - 1)
	ok := true
	t.Each(func(h uint64, c uint32) {
		if c == 0 || !ok {
			return // a table never holds 0; 0 is DF's answer for it anyway
		}
		home := m.slot(h)
		for i := home; ; i = (i + 1) & mask {
			if m.slots[i].count == 0 {
				m.slots[i] = dfSlot{h, c}
				ok = (i-home)&mask <= uint64(run)
				return
			}
		}
	})
	return ok
}

func (m *dfMap) slot(h uint64) uint64 { return (h * m.mul) >> m.shift }

// DF returns the count of h, 0 when the table does not hold it.
func (m *dfMap) DF(h uint64) uint64 {
	mask := uint64(len(m.slots) - 1)
	for i := m.slot(h); m.slots[i].count != 0; i = (i + 1) & mask {
		if m.slots[i].hash == h {
			return uint64(m.slots[i].count)
		}
	}
	return 0
}

// touch reads the first slot of each hash, without a branch on what it
// finds: the loads are independent, so the processor has many cache misses
// under way at once, where DF's loop, branching on each slot, waits for
// one after another. DF then finds the slots in the cache (the table is
// far larger than it; a document's slots are not). The caller keeps the
// sum returned, so that the loads are not left out.
func (m *dfMap) touch(hashes []uint64) (sum uint64) {
	for _, h := range hashes {
		sum += m.slots[m.slot(h)].hash
	}
	return sum
}
