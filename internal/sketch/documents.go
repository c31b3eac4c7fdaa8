package sketch

import (
	"context"
	"io"
	"sync/atomic"

	"github.com/neardup/neardup/internal/band"
	"github.com/neardup/neardup/internal/document"
	"github.com/neardup/neardup/internal/hashsort"
	"github.com/neardup/neardup/internal/minhash"
	"github.com/neardup/neardup/internal/pairs"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/shingle"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
)

// RunDocuments is shingle --sketch: it reads documents as the shingle
// stage does and writes their sketch records, the records and both header
// lines byte for byte what shingle | sketch writes, without the shingle
// records between them (17 bytes a shingle, written, piped and parsed
// again). With bandOpt (shingle --sketch --band) it writes their band
// records instead, and the b-bit file of bandOpt.BBit: what shingle |
// sketch | band writes.
func RunDocuments(ctx context.Context, shOpt shingle.StageOptions, opt Options, bandOpt *band.Options, inputs []string, stdout, stderr io.Writer) error {
	return runDocuments(ctx, shOpt, opt, bandOpt, nil, inputs, stdout, stderr)
}

// RunPairs is shingle --sketch --band --pairs: RunDocuments with bandOpt,
// and the band records handed to pairs in the same process
// (pairs.Collector), with pairsOpt, not written: it writes the candidate
// pairs, what shingle --sketch --band | pairs writes.
func RunPairs(ctx context.Context, shOpt shingle.StageOptions, opt Options, bandOpt *band.Options, pairsOpt pairs.Options, inputs []string, stdout, stderr io.Writer) error {
	if bandOpt == nil {
		return status.Usagef("--pairs pairs the band records of --band T")
	}
	return runDocuments(ctx, shOpt, opt, bandOpt, &pairsOpt, inputs, stdout, stderr)
}

func runDocuments(ctx context.Context, shOpt shingle.StageOptions, opt Options, bandOpt *band.Options, pairsOpt *pairs.Options, inputs []string, stdout, stderr io.Writer) error {
	if err := shOpt.Resolve(); err != nil {
		return err
	}
	if opt.Method == Hyperplane {
		return status.Usagef("--sketch hyperplane: hyperplane sketches the vectors of documents, not shingles: sketch --method hyperplane --vector-field NAME FILE")
	}
	if err := opt.Resolve(); err != nil {
		return err
	}
	switch {
	case opt.Method == SimHash:
		return status.Usagef("--sketch simhash: SimHash weighs the shingles by their counts (or document frequencies): shingle --counts | sketch --method simhash")
	case shOpt.Counts:
		return status.Usagef("--counts and --sketch exclude each other: the sketch is of the set of shingles")
	case bandOpt != nil && opt.Method != MinHash && opt.Method != OPH:
		return status.Usagef("--band keys MinHash signatures: --sketch minhash or oph, not %s", opt.Method)
	}
	shOpt.Bind(inputs)
	heads := []record.Header{shOpt.Header(), opt.Header()}
	var bands *band.Sketches
	if bandOpt != nil {
		bo := *bandOpt
		bo.Common = shOpt.Common
		if opt.Method == OPH {
			bo.BBitValues = minhash.FineFactor * opt.N
		}
		var err error
		if bands, err = band.NewSketches(bo, opt.N, "shingle", stderr); err != nil {
			return err
		}
	}
	src, unit := document.Source(shOpt.Reading, inputs, shOpt.SkipBad)
	defer src.Close()
	all := heads
	if bands != nil {
		all = append(heads[:len(heads):len(heads)], bands.Header())
	}
	records := all
	if pairsOpt != nil {
		pairsOpt.BBit = bandOpt.BBit
		pairsOpt.Jobs = shOpt.Jobs
		all = append(all[:len(all):len(all)], pairsOpt.Header())
	}
	out := stream.NewOutput("shingle", shOpt.Common, stdout, stderr, all...)
	out.Unit = unit
	out.Summary = func(stderr io.Writer) { document.Report(src, stderr, "shingle") }
	if pairsOpt != nil {
		c, err := pairs.NewCollector(ctx, *pairsOpt, records, out)
		if err != nil {
			return err
		}
		defer c.Remove()
		bands.Into(c.Feed, c.End, c.Report)
	}
	end, err := shOpt.WriteOffsets(inputs, out, stderr)
	if err != nil {
		return err
	}
	shOpt.NoID = new(atomic.Int64)
	crowded := hashsort.Crowded()
	family := newFamily(&opt)
	// A MinHash sketch is a minimum over the set, the same in any order:
	// its set need not be sorted (OPH's sketcher makes its set itself).
	unordered := opt.Method == MinHash
	workers := func() stream.Worker {
		return newDocWorker(shingle.NewWorker(&shOpt), opt.newSketcher(family), unordered, bands)
	}
	if bands != nil {
		err = end(bands.Run(ctx, src, out, workers, heads...))
	} else {
		err = end(out.RunPool(ctx, src, workers))
	}
	document.ReportNoID(stderr, "shingle", shOpt.IDField, shOpt.NoID)
	shingle.ReportCrowded(stderr, "shingle", crowded)
	return err
}

// setSum is the sum of the hashes of the distinct values of set: equal
// sets have equal sums (shingle --collapse groups documents by it).
func setSum(set []uint64) uint64 {
	var sum uint64
	for _, x := range set {
		sum += minhash.Mix64(x)
	}
	return sum
}

// docWorker shingles each document of a chunk and writes its sketch.
type docWorker struct {
	sh *shingle.Worker
	sk sketcher
	// unordered: the sketch does not depend on the order of the set.
	unordered bool
	set       []uint64
	vals      []uint64
	// fine is the fine OPH signature of the b-bit record (--bbit).
	fine []uint64
	// bands, with --band, takes the signatures: their band records are
	// the output, their b-bit records the result's Value.
	bands *band.Sketches
	keyer band.Keyer
	// parts is sk when it takes the shingles in parts, addPart adds one
	// to vals, and added counts the shingles added.
	parts   partSketcher
	addPart func([]uint64)
	added   int
}

func newDocWorker(sh *shingle.Worker, sk sketcher, unordered bool, bands *band.Sketches) *docWorker {
	w := &docWorker{sh: sh, sk: sk, unordered: unordered, bands: bands}
	if p, ok := sk.(partSketcher); ok {
		// The parts are taken for band records alone (Process), which
		// read the first b·r values of a MinHash signature: only those
		// are computed.
		if f, ok := sk.(familySketcher); ok && bands != nil {
			p = f.prefix(bands.Rows())
		}
		w.parts = p
		w.addPart = func(part []uint64) {
			p.add(w.vals, part)
			w.added += len(part)
		}
	}
	return w
}

func (w *docWorker) Process(c *stream.Chunk, r *stream.Result) {
	var side []byte
	if w.bands != nil {
		defer func() { r.Value = side }()
	}
	multiset, _ := w.sk.(multisetSketcher)
	collapse := w.bands != nil && w.bands.Collapse()
	// Band records without the b-bit file or copy records need neither
	// the set's size nor its sum: the signature of the shingles as they
	// come, repeats and all, is that of their set, without the table or
	// the sort that finds the distinct ones.
	uncounted := w.bands != nil && !w.bands.Sized()
	// An OPH signature's b-bit record is of its fine signature: twice the
	// positions, made in the same pass (pairs --bbit sets aside more of
	// the candidates far below the threshold by them).
	oph, _ := w.sk.(ophSketcher)
	fine := w.bands != nil && w.bands.FineBits()
	w.sh.Documents(c, r, func(id, text []byte) error {
		var th [2]uint64 // the text's hashes, with --collapse
		if collapse {
			th = w.keyer.TextHash(text)
			var ok bool
			if r.Out, side, ok = w.bands.AppendCached(&w.keyer, r.Out, side, id, th); ok {
				_ = r.Flush()
				return nil
			}
		}
		var size int
		var sum uint64 // of the set's hashes, with --collapse
		switch {
		case fine:
			w.set = w.sh.Hashes(w.set[:0], text)
			w.vals, w.fine, size, sum = oph.valuesCountFine(w.vals, w.fine, w.set)
		case uncounted:
			// The shingles in parts as they come: the sketch's input
			// is bounded, not 8 bytes a shingle of the document.
			// (Band records are of MinHash or OPH signatures, whose
			// sketchers take parts.)
			w.vals, w.added = w.parts.begin(w.vals), 0
			w.set = w.sh.Stream(w.set, text, w.addPart)
			w.parts.end(w.vals, w.added)
			size = w.added
		case multiset != nil:
			// OPH: the distinct shingles counted (and summed) as they
			// are signed.
			w.set = w.sh.Hashes(w.set[:0], text)
			w.vals, size, sum = multiset.valuesCount(w.vals, w.set)
		case w.unordered:
			w.set = w.sh.Distinct(w.set[:0], text)
			w.vals, size = w.sk.values(w.vals, w.set), len(w.set)
			if collapse {
				sum = setSum(w.set)
			}
		default:
			w.set = w.sh.Set(w.set[:0], text)
			w.vals, size = w.sk.values(w.vals, w.set), len(w.set)
			if collapse {
				sum = setSum(w.set)
			}
		}
		if w.bands != nil {
			bits := w.vals
			if fine {
				bits = w.fine
			}
			r.Out, side = w.bands.Append(&w.keyer, r.Out, side, id, th, sum, uint64(size), w.vals, bits)
		} else {
			r.Out = record.AppendSketch(r.Out, id, uint64(size), w.vals)
		}
		// Many short documents make output several times the chunk: pass
		// it on as it grows (an error is the run being stopped, which the
		// pool reports).
		_ = r.Flush()
		return nil
	})
}
