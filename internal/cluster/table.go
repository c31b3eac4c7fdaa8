package cluster

// keyTable maps 64-bit keys (hashes) to non-zero 32-bit values by open
// addressing with linear probing, at most three quarters full. A slot holds
// the key and the value side by side (12 bytes), so a probe touches one
// place in memory: 16 to 32 bytes a key. The tables outgrow the caches, so
// a lookup is a miss to memory; prefetch lets many overlap.
type keyTable struct {
	slots []slot
	n     int
	shift uint
}

type slot struct {
	lo, hi uint32 // the key
	val    uint32 // 0: the slot is free
}

func newKeyTable() *keyTable {
	t := &keyTable{}
	t.alloc(10)
	return t
}

func (t *keyTable) alloc(logSize uint) {
	t.slots = make([]slot, 1<<logSize)
	t.shift = 64 - logSize
	t.n = 0
}

// home spreads a key over the table (Fibonacci hashing), so that keys that
// are not well mixed still spread.
func (t *keyTable) home(k uint64) uint64 { return (k * 0x9e3779b97f4a7c15) >> t.shift }

// get returns the value of k, or 0.
func (t *keyTable) get(k uint64) uint32 {
	mask := uint64(len(t.slots) - 1)
	lo, hi := uint32(k), uint32(k>>32)
	for s := t.home(k); ; s = (s + 1) & mask {
		e := &t.slots[s]
		if e.val == 0 || e.lo == lo && e.hi == hi {
			return e.val
		}
	}
}

// prefetch loads the home slots of keys, independently of one another, so
// that the memory system fetches them in parallel; it returns their sum
// so that the loads are not optimised away.
func (t *keyTable) prefetch(keys []uint64) uint32 {
	var sum uint32
	for _, k := range keys {
		sum += t.slots[t.home(k)].val
	}
	return sum
}

// set sets the value of k; v must not be 0.
func (t *keyTable) set(k uint64, v uint32) {
	mask := uint64(len(t.slots) - 1)
	lo, hi := uint32(k), uint32(k>>32)
	s := t.home(k)
	for t.slots[s].val != 0 && (t.slots[s].lo != lo || t.slots[s].hi != hi) {
		s = (s + 1) & mask
	}
	if t.slots[s].val == 0 {
		t.n++
	}
	t.slots[s] = slot{lo, hi, v}
	if 4*t.n > 3*len(t.slots) {
		t.grow()
	}
}

func (t *keyTable) grow() {
	old := t.slots
	t.alloc(64 - t.shift + 1)
	for _, e := range old {
		if e.val != 0 {
			t.set(uint64(e.hi)<<32|uint64(e.lo), e.val)
		}
	}
}

// bytes returns the memory the table holds.
func (t *keyTable) bytes() int64 { return 12 * int64(len(t.slots)) }

// del removes k, if present, shifting back the keys after it in its run of
// occupied slots that would no longer be found past the freed slot.
func (t *keyTable) del(k uint64) {
	mask := uint64(len(t.slots) - 1)
	lo, hi := uint32(k), uint32(k>>32)
	s := t.home(k)
	for {
		e := &t.slots[s]
		if e.val == 0 {
			return
		}
		if e.lo == lo && e.hi == hi {
			break
		}
		s = (s + 1) & mask
	}
	t.n--
	for {
		t.slots[s] = slot{}
		j := s
		for {
			j = (j + 1) & mask
			e := t.slots[j]
			if e.val == 0 {
				return
			}
			// e may fill the hole at s unless its home lies cyclically
			// in (s, j]: then it would be found no earlier than j.
			h := t.home(uint64(e.hi)<<32 | uint64(e.lo))
			if s <= j && (h <= s || h > j) || s > j && h <= s && h > j {
				t.slots[s] = e
				s = j
				break
			}
		}
	}
}
