package band

import (
	"bytes"
	"fmt"
	"math/bits"
	"testing"
)

// copyDoc appends a document's records as shingle writes them under
// --collapse: its copy record (of the text hashes h1, h2) and two band
// records.
func copyDoc(b []byte, k *Keyer, id string, h1, h2 uint64) []byte {
	b = k.AppendCopy(b, []byte(id), 7, [2]uint64{h1, h2})
	for band := 0; band < 2; band++ {
		b = append(b, fmt.Sprintf("%04x%016x\t%s\n", band, h1, id)...)
	}
	return b
}

// The table is a slot for each first hash of a text, by its low
// copySlotBits bits, in pages written as texts come: a text met again
// writes its copy record alone; one whose slot a later text took writes
// its band records again, and takes the slot back.
func TestCopyTableFilter(t *testing.T) {
	var k Keyer
	const far = 1 << copyPageBits  // a slot in the next page
	const same = 1 << copySlotBits // the same slot, another text
	texts := []struct {
		id     string
		h1, h2 uint64
		copied bool
	}{
		{"a", 5, 1, false},
		{"b", 5 + far, 2, false},
		{"c", 5, 1, true},         // a's text
		{"d", 5 + far, 2, true},   // b's
		{"e", 5 + same, 3, false}, // a's slot, another text
		{"f", 5, 1, false},        // a's text, pushed out by e's
		{"g", 5, 1, true},         // f's
		{"h", 5, 9, false},        // a's first hash, another second
		{"k", 4, 6, false},        // the slot beside
		{"l", 5, 9, true},         // h's
		{"i", 1<<copySlotBits - 1, 4, false},
		{"j", 1<<copySlotBits - 1, 4, true}, // the last slot of the last page
	}
	tab := newCopyTable()
	var in, want []byte
	copies, keys := int64(0), int64(0)
	for _, x := range texts {
		doc := copyDoc(nil, &k, x.id, x.h1, x.h2)
		in = append(in, doc...)
		lines := bytes.SplitAfter(doc, []byte("\n"))
		copyLine := lines[0][:bytes.LastIndexByte(lines[0], '\t')]
		want = append(append(want, copyLine...), '\n')
		if x.copied {
			copies++
			keys += 2
		} else {
			want = append(append(want, lines[1]...), lines[2]...)
		}
	}
	if got := tab.filter(in); !bytes.Equal(got, want) {
		t.Errorf("filter:\n%s\nwant:\n%s", got, want)
	}
	if tab.copies != copies || tab.keys != keys {
		t.Errorf("counted %d copies, %d keys left out; want %d, %d", tab.copies, tab.keys, copies, keys)
	}
	touched := 0
	for _, w := range tab.touched {
		touched += bits.OnesCount64(w)
	}
	if touched != 3 {
		t.Errorf("%d pages written for slots in three, want 3", touched)
	}
}
