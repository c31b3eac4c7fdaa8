package verify

import (
	"sync/atomic"

	"github.com/neardup/neardup/internal/unionfind"
)

// bins groups the documents a segment's first pass leaves for later ones
// into bins of whole connected components of the pair graph, so that each
// later pass reads only the texts of one bin's documents (their frames of
// the scratch) and holds their shingle sets: a pair's two documents are in
// one component, so a bin's pairs are all scored from its own documents.
//
// A component is given a bin when its first document comes to the scratch
// (in the order the documents are read, in the sink: deterministic); the
// bin open takes components while their estimated shingle sets (their
// number of documents times the mean bytes of a set so far) fit in share,
// and then a new one opens. The texts of a bin are gathered in a buffer of
// their own and written as s2 blocks tagged with the bin.
type bins struct {
	// comp is each document's component, named by one of its documents;
	// size is, for such a document, the number of documents of its
	// component; bin its bin plus one (0: no document of it came yet).
	comp, size, bin []uint32
	// docs are the documents of each bin, in the order they came.
	docs [][]uint32
	// share is the bytes of shingle sets a bin is planned to hold; open
	// the estimate of the bin open.
	share, open int64
	// raw is each bin's texts not yet written, and last the rank of its
	// last document; rawBytes the memory of the buffers.
	raw      [][]byte
	last     []uint32
	rawBytes int64
}

// Per document in some pair, the bins hold comp, size, bin and its entry in
// docs.
const binDocBytes = 16

// binFrameBytes is the raw text a bin gathers before it writes a frame: a
// chunk of a later pass, whose shingle sets (up to 8 times the text) are
// within what a chunk in flight is given (inflightBytes).
const binFrameBytes = 384 << 10

// newBins finds the components of the pairs of t.
func newBins(t *pairTable) *bins {
	uf := unionfind.New(t.docs())
	for i, x := range t.a {
		// A pair scored (or under way) needs neither document again.
		if y := t.b[i]; isPair(x, y) && atomic.LoadUint32(&t.inter[i]) == unscored {
			uf.Union(x, y)
		}
	}
	for d := range uf.Parent {
		uf.Find(uint32(d))
	}
	return &bins{comp: uf.Parent, size: uf.Size, bin: make([]uint32, len(uf.Parent))}
}

// place returns the bin of document d, giving its component one when it
// is its first document to come; mean is the bytes of a shingle set so far.
func (b *bins) place(d uint32, mean int64) int {
	r := b.comp[d]
	if b.bin[r] == 0 {
		est := int64(b.size[r]) * mean
		if len(b.docs) == 0 || (b.open > 0 && b.open+est > b.share) {
			b.docs = append(b.docs, nil)
			b.raw = append(b.raw, nil)
			b.last = append(b.last, 0)
			b.open = 0
		}
		b.bin[r] = uint32(len(b.docs))
		b.open += est
	}
	k := int(b.bin[r]) - 1
	b.docs[k] = append(b.docs[k], d)
	return k
}

// add gathers the text of document d, of rank r, in bin k, whose buffer
// holds a frame of frameBytes (and a quarter more) before it grows.
func (b *bins) add(k int, d, r uint32, text []byte, frameBytes int) {
	if b.raw[k] == nil {
		b.raw[k] = make([]byte, 0, frameBytes+frameBytes/4)
	}
	n := cap(b.raw[k])
	b.raw[k] = appendScratch(b.raw[k], d, text)
	b.last[k] = r
	b.rawBytes += int64(cap(b.raw[k]) - n)
}

// take hands out the texts gathered in bin k (the buffer is the caller's),
// with the rank of the last.
func (b *bins) take(k int) ([]byte, uint32) {
	raw := b.raw[k]
	b.raw[k] = nil
	b.rawBytes -= int64(cap(raw))
	return raw, b.last[k]
}
