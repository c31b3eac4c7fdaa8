// Package synthsketch makes synthetic MinHash signatures with planted groups of
// near-duplicates, for the tests and benchmarks of the clustering methods.
//
// Each document is an original, with n random values, or a copy of an
// earlier original (or, with Chain, of an earlier copy): a chosen number of its positions (the planted
// similarity times n, rounded) keep the original's values and the others get
// fresh random ones. The estimated similarity of a copy and its original
// (the fraction of equal positions) is thus exactly the planted one; two
// copies of one original agree where both kept the original's value.
package synthsketch

import (
	"bufio"
	"io"
	"math/rand/v2"
	"strconv"

	"github.com/neardup/neardup/internal/record"
)

// Options describe a synthetic stream.
type Options struct {
	Docs int
	// N is the signature length.
	N int
	// CopyFraction is the share of documents that are copies.
	CopyFraction float64
	// MinSimilarity and MaxSimilarity bound the planted similarity of a
	// copy to its original, drawn uniformly.
	MinSimilarity, MaxSimilarity float64
	// Chain is the share of copies that later documents may copy in turn,
	// which makes chains: A, a copy B of A, a copy C of B.
	Chain float64
	Seed  uint64
}

// Doc is one synthetic document.
type Doc struct {
	ID string
	// Original is the index of the document it copies, or -1.
	Original int
	// Similarity is the planted similarity to the original (1 for an
	// original).
	Similarity float64
	Values     []uint64
}

// ID returns the id of document i: "d" and i in 8 digits, so that ids sort
// in document order.
func ID(i int) string {
	s := strconv.Itoa(i)
	for len(s) < 8 {
		s = "0" + s
	}
	return "d" + s
}

// Generate calls fn with each document in order. The values slice is
// reused between calls.
func Generate(o Options, fn func(d *Doc)) {
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x6a09e667f3bcc909))
	var originals []int
	// The originals' values are kept to make copies: memory 8n bytes per
	// original.
	var kept [][]uint64
	d := &Doc{Values: make([]uint64, o.N)}
	perm := make([]int, o.N)
	for i := range o.Docs {
		d.ID = ID(i)
		if len(originals) > 0 && rng.Float64() < o.CopyFraction {
			k := rng.IntN(len(originals))
			d.Original = originals[k]
			d.Similarity = o.MinSimilarity + (o.MaxSimilarity-o.MinSimilarity)*rng.Float64()
			same := int(d.Similarity*float64(o.N) + 0.5)
			d.Similarity = float64(same) / float64(o.N)
			for j := range perm {
				perm[j] = j
			}
			rng.Shuffle(len(perm), func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
			for j, p := range perm {
				if j < same {
					d.Values[p] = kept[k][p]
				} else {
					d.Values[p] = rng.Uint64() &^ (1 << 63) // never the empty set's value
				}
			}
		} else {
			d.Original, d.Similarity = -1, 1
			for j := range d.Values {
				d.Values[j] = rng.Uint64() &^ (1 << 63)
			}
			originals = append(originals, i)
			kept = append(kept, append([]uint64(nil), d.Values...))
		}
		if d.Original >= 0 && o.Chain > 0 && rng.Float64() < o.Chain {
			originals = append(originals, i)
			kept = append(kept, append([]uint64(nil), d.Values...))
		}
		fn(d)
	}
}

// Write writes the documents as sketch records with a sketch header.
func Write(w io.Writer, o Options) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	h := record.NewHeader("sketch", "method", "minhash", "n", strconv.Itoa(o.N), "seed", strconv.FormatUint(o.Seed, 10), "family", "synthetic")
	bw.WriteString(h.String())
	bw.WriteByte('\n')
	var buf []byte
	var err error
	Generate(o, func(d *Doc) {
		if err != nil {
			return
		}
		buf = record.AppendSketch(buf[:0], []byte(d.ID), uint64(o.N), d.Values)
		_, err = bw.Write(buf)
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}
