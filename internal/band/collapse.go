package band

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/record"
)

// Copies (shingle --sketch --band T --collapse): every document writes,
// before its band records, a copy record: the key of band CopyBand whose
// hash is the sum of its set's shingle hashes, so that the documents of
// one set share it, and pairs pairs them with the first (smallest id)
// only. A document whose text an earlier one had (both in a table of
// recent texts, 128 bits of hash each) writes its copy record alone:
// 100,000 copies of a page make 99,999 pairs, not their band keys'
// buckets. Its other pairs are those of that earlier document, which has
// its set and its band keys: the arrival rule of keep drops the same
// documents from them, and names the same ones in its report (a copy's
// most similar earlier partner, the smallest at similarity 1, is the
// first of its set; a document near a copy is as near the copy's original,
// which came earlier and shares its band keys).
const (
	// CopyBand is the band number of copy records, beyond any banding's.
	CopyBand = 0xffff
	// CollapseKey is the band header's parameter that says copies were
	// collapsed, and CollapseText its value: by their text.
	CollapseKey  = "collapse"
	CollapseText = "text"
	// copySlots is the size of the table of texts met: 2^20 of 16 bytes,
	// 16 MiB. A copy whose original has been pushed out of its slot (by
	// a later text of the same slot) writes its band records as any
	// document does, and takes the slot back.
	copySlotBits = 20
)

// copyPrefix starts a copy record.
var copyPrefix = []byte("ffff")

// copySeeds seed the two hashes of a text.
var copySeeds = [2]uint64{0x452821e638d01377, 0xbe5466cf34e90c6c}

// TextHash returns the two hashes of a document's text by which a copy
// is known (AppendCopy, textCache).
func (k *Keyer) TextHash(text []byte) [2]uint64 {
	if k.digest == nil {
		k.digest = xxhash.NewWithSeed(copySeeds[0])
	}
	var h [2]uint64
	for i, seed := range copySeeds {
		k.digest.ResetWithSeed(seed)
		k.digest.Write(text)
		h[i] = k.digest.Sum64()
	}
	return h
}

// AppendCopy appends the copy record of the document id whose set's
// hashes sum to sum: its key, its id, and for the writer's table alone
// (copyTable.filter takes it out) the hashes of its text.
func (k *Keyer) AppendCopy(out, id []byte, sum uint64, text [2]uint64) []byte {
	k.key = AppendKey(k.key[:0], CopyBand, sum)
	out = record.AppendBand(out, k.key, id)
	out[len(out)-1] = '\t'
	out = record.AppendHex64(out, text[0])
	out = record.AppendHex64(out, text[1])
	return append(out, '\n')
}

// textCache holds what the workers made of recent texts, so that a copy
// met again is not shingled again: 2^14 slots by the text's first hash,
// each the set's sum and size, its band hashes and b-bit digits (about
// 300 bytes at 18 bands and 128 values: 5 MiB). What a text makes depends
// on the text alone, so what the cache holds when changes nothing in the
// output. A slot whose text was met again is kept from the next text that
// would take it, once.
type textCache struct {
	slots []cacheSlot
}

const cacheSlotBits = 14

type cacheSlot struct {
	mu   sync.Mutex
	text [2]uint64
	full bool
	kept bool // met again since it came: the next text passes it by
	cached
}

// cached is what a text makes: its set's sum and size, its band hashes,
// its b-bit digits (with --bbit).
type cached struct {
	sum, size uint64
	keys      []uint64
	bits      []byte
}

func newTextCache() *textCache {
	return &textCache{slots: make([]cacheSlot, 1<<cacheSlotBits)}
}

// get copies into e what text made, and says whether the cache had it.
func (c *textCache) get(text [2]uint64, e *cached) bool {
	s := &c.slots[text[0]&(1<<cacheSlotBits-1)]
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.full || s.text != text {
		return false
	}
	s.kept = true
	e.sum, e.size = s.sum, s.size
	e.keys = append(e.keys[:0], s.keys...)
	e.bits = append(e.bits[:0], s.bits...)
	return true
}

// put records what text made: the sum and size of its set, its band
// hashes and b-bit digits.
func (c *textCache) put(text [2]uint64, sum, size uint64, keys []uint64, bits []byte) {
	s := &c.slots[text[0]&(1<<cacheSlotBits-1)]
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.full && s.kept && s.text != text {
		s.kept = false
		return
	}
	s.text, s.full = text, true
	s.sum, s.size = sum, size
	s.keys = append(s.keys[:0], keys...)
	s.bits = append(s.bits[:0], bits...)
}

// copyTable holds the hashes of the texts met, a slot each by the first
// hash; the writer consults it in arrival order, so what is collapsed is
// the same for any -j.
type copyTable struct {
	slots [][2]uint64
	// touched has a bit for each page of slots (copyPageBits) written
	// since the table was made.
	touched [1 << (copySlotBits - copyPageBits) / 64]uint64
	// copies counts the documents collapsed, and keys the band records
	// they did not write.
	copies, keys int64
}

// copyPageBits: the slots are written a page of 4 KiB (2^8 slots) at a
// time, as texts first come to it. Made whole and written at once, the 16
// MiB of slots were 4,100 page faults in every run, 9 ms of shingle's 20
// on a hundred documents; a run now touches the pages its texts come to,
// and one of a million documents all of them, as before. (Pages made one
// by one, each behind a pointer, cost a second cache miss a lookup: 30 %
// more of filter's time at a million documents.)
const copyPageBits = 8

// newCopyTable returns an empty table. Its slots are new memory, not
// written: a page of it is all zeros.
func newCopyTable() *copyTable {
	return &copyTable{slots: make([][2]uint64, 1<<copySlotBits)}
}

// slot returns the slot of the texts of first hash h.
func (t *copyTable) slot(h uint64) *[2]uint64 {
	i := h & (1<<copySlotBits - 1)
	if pg := i >> copyPageBits; t.touched[pg/64]&(1<<(pg%64)) == 0 {
		// Written before it is read: a page of new memory first read
		// faults twice (hugemem.Prefault). Its slots are all 0.
		t.slots[i] = [2]uint64{}
		t.touched[pg/64] |= 1 << (pg % 64)
	}
	return &t.slots[i]
}

// filter rewrites in place a run of whole documents' records: each copy
// record loses its second hash, and the band records after it are left out
// when its text is in the table (otherwise the text takes its slot).
func (t *copyTable) filter(b []byte) []byte {
	w, skip := 0, false
	for r := 0; r < len(b); {
		e := r + bytes.IndexByte(b[r:], '\n')
		line := b[r:e]
		r = e + 1
		if bytes.HasPrefix(line, copyPrefix) {
			tab := bytes.LastIndexByte(line, '\t')
			h1, _ := record.ParseLowerHex64(line[tab+1 : tab+17])
			h2, _ := record.ParseLowerHex64(line[tab+17:])
			slot := t.slot(h1)
			skip = *slot == [2]uint64{h1, h2}
			*slot = [2]uint64{h1, h2}
			if skip {
				t.copies++
			}
			line = line[:tab]
		} else if skip {
			t.keys++
			continue
		}
		w += copy(b[w:], line)
		b[w] = '\n'
		w++
	}
	return b[:w]
}

// report says what was collapsed.
func (t *copyTable) report(stderr io.Writer, stage string) {
	fmt.Fprintf(stderr, "%s: --collapse: %d document(s) had the text of an earlier one: each wrote its copy key alone, %d band record(s) not written\n", stage, t.copies, t.keys)
}
