package band

import (
	"bytes"
	"fmt"
	"io"

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

// AppendCopy appends the copy record of the document id whose set's
// hashes sum to sum: its key, its id, and for the writer's table alone
// (copyTable.filter takes it out) two hashes of its text.
func (k *Keyer) AppendCopy(out, id []byte, sum uint64, text []byte) []byte {
	if k.digest == nil {
		k.digest = xxhash.NewWithSeed(copySeeds[0])
	}
	k.key = AppendKey(k.key[:0], CopyBand, sum)
	out = record.AppendBand(out, k.key, id)
	out[len(out)-1] = '\t'
	for _, seed := range copySeeds {
		k.digest.ResetWithSeed(seed)
		k.digest.Write(text)
		out = record.AppendHex64(out, k.digest.Sum64())
	}
	return append(out, '\n')
}

// copyTable holds the hashes of the texts met, a slot each by the first
// hash; the writer consults it in arrival order, so what is collapsed is
// the same for any -j.
type copyTable struct {
	slots [][2]uint64
	// copies counts the documents collapsed, and keys the band records
	// they did not write.
	copies, keys int64
}

func newCopyTable() *copyTable {
	return &copyTable{slots: make([][2]uint64, 1<<copySlotBits)}
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
			slot := &t.slots[h1&(1<<copySlotBits-1)]
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
