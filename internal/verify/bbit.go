package verify

import (
	"github.com/neardup/neardup/internal/bbit"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// verify --documents --bbit FILE: before a segment's documents are read,
// its candidate pairs whose sizes or b-bit signatures (band --bbit) put them
// far below the threshold are set aside as scored with nothing in common,
// so that neither their documents nor their components are read or held
// for them. Most candidates of a dedup are such pairs, and they join the
// documents of true pairs into components far larger than a bin.

// bbitDocBytes is the memory of a document's b-bit signature while a
// segment is filtered: 64 bytes for 128 values and its size.
const bbitDocBytes = 68

// openBBit opens the b-bit signature file name, checked against the
// headers of the pairs.
func openBBit(name string, pairs []stream.HeaderAt) (*bbit.File, error) {
	return bbit.Open(name, func(stage string) string {
		for _, h := range pairs {
			if h.Header.Stage == stage {
				return h.Header.String()
			}
		}
		return ""
	})
}

// filterBBit reads the b-bit signatures of t's documents from b and sets
// aside the pairs far below the threshold.
func filterBBit(b *bbit.File, t *pairTable, threshold float64, containment bool) (bbit.Counts, error) {
	var c bbit.Counts
	var w bbit.Width
	var sigs []byte
	has := make([]bool, t.docs())
	err := b.Each(func(s *record.Bits, pos record.Pos) error {
		if err := w.Check(s.Values, pos); err != nil {
			return err
		}
		if sigs == nil {
			sigs = make([]byte, t.docs()*int(w))
		}
		d, ok := t.lookup(s.ID)
		if !ok {
			return nil
		}
		if has[d] {
			return record.Errorf(pos, "document %s appears more than once", s.ID)
		}
		has[d] = true
		t.size[d] = uint32(min(s.Size, pending-1))
		copy(sigs[int(d)*int(w):], s.Values)
		return nil
	})
	if err != nil {
		return c, err
	}
	width := int(w)
	for i, x := range t.a {
		y := t.b[i]
		if !isPair(x, y) {
			continue
		}
		c.Pairs++
		if !has[x] || !has[y] {
			c.Unsigned++
			continue
		}
		if c.Judge(sigs[int(x)*width:int(x+1)*width], sigs[int(y)*width:int(y+1)*width], int(t.size[x]), int(t.size[y]), threshold, containment, b.Densified) {
			t.inter[i] = 0
		}
	}
	return c, nil
}
