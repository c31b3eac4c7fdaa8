package keep

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"strconv"

	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/intern"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
)

// The arrival-order rule (--pairs): the documents are read in input order,
// and a document is dropped when it has a verified pair with a document
// that arrived before it, kept or dropped. A pair whose other document is
// not in the input counts as earlier: it came in an older batch. So no two
// kept documents are near-duplicates, and a batch decided against what came
// before drops exactly what a one-shot run over all batches drops.
//
// A dropped document is dropped for ("via") its most similar earlier
// partner, ties to the earliest, and belongs to the kept document that
// partner's chain ends at: A~B and B~C, arriving A, B, C, drop B (via A)
// and C (via B), both in A's cluster.

// graph holds the verified pairs for the rule: the ids that appear in a
// pair, interned, and each one's partners with their similarities (about
// 20 bytes plus the id per document and 16 bytes per pair), and, per
// document, what the rule decided.
type graph struct {
	ids   *intern.Table
	start []uint32 // the partners of m are adj[start[m]:start[m+1]]
	adj   []uint32
	sim   []float32

	state []uint8  // seen, kept, in the input (the first pass)
	seq   []uint32 // 1 + the document's place among the members met
	root  []uint32 // the kept document its chain ends at
	met   uint32

	// headers are the pairs file's header lines, the shingle header among
	// them saying how the documents were read.
	headers record.HeaderSet
	// numbered: the ids are arrival numbers and from is the input's
	// first: a partner below it came before, without a first pass.
	numbered bool
	from     uint64

	// contain applies the containment rule (containment.go): the edges are
	// then directed, from a document to those that contain it at threshold
	// or more, and sim holds the containment.
	contain        bool
	threshold      float64
	givenThreshold bool
	// length is each member's text length in bytes, from the first pass
	// (with contain).
	length []int64
	// via and viaSim are the decisions made ahead by the containment rule.
	via    []uint32
	viaSim []float32

	// rk has the pairs instead when they did not fit in --memory
	// (ranked.go): the graph then holds only the headers.
	rk *ranked

	external, repeated int64
	// unused counts pairs with neither containment at the threshold;
	// within, kept documents contained in a kept document that is not
	// longer (containment.go).
	unused, within int64
}

// pairBytes is what the general rule holds per pair while the pairs are
// read (the two members and the similarity) and after (the partners and
// their similarities, 16 bytes), with the decisions per member.
const pairBytes = 12 + 16 + 2*13

const (
	seen    uint8 = 1
	kept    uint8 = 2
	inInput uint8 = 4
)

// loadPairs reads the scored pairs of verify from o.Pairs. At the first
// pair (the headers come first) it resolves how the documents are read:
// when their ids are arrival numbers the numbered rule takes the pairs
// (numbered.go), returned with the graph that holds only the headers.
func loadPairs(ctx context.Context, o *Options, stderr io.Writer) (*graph, *numbered, error) {
	name, opt, contain, threshold := o.Pairs, o.Common, o.Containment, o.Threshold
	g := &graph{ids: intern.New(), contain: contain, threshold: threshold, givenThreshold: threshold > 0}
	var nr *numbered
	resolved := false
	var early input.Reading
	resolve := func() error {
		// Whether the ids are arrival numbers, from the headers before the
		// first pair; resolveReading decides at the end, from them all.
		resolved = true
		var err error
		if o.Given == (input.ReadingFlags{}) {
			early = input.ReadingOf(o.Format, o.IDField, o.TextField)
		} else if early, _, err = o.Given.FromHeaders(&g.headers); err != nil {
			return status.Usage(err)
		}
		if early.Number && !contain && !o.generalRule {
			nr = newNumbered(uint64(early.NumberFrom), o.MemoryBytes, o.TempDir)
		}
		return nil
	}
	sc := stream.NewScanner(stream.NewLines([]string{name}))
	defer sc.Close()
	sc.OnHeader = func(h record.Header, pos record.Pos) error {
		if m, _ := h.Get("measure"); h.Stage == "verify" && m == "hamming" {
			return record.Errorf(pos, "--pairs reads scored pairs with similarities; these are Hamming distances (verify --hamming)")
		}
		if err := g.containmentHeader(h, pos); err != nil {
			return err
		}
		_, err := g.headers.Add(h, pos)
		return err
	}
	out := stream.NewOutput("keep", opt, nil, stderr)
	var as, bs []uint32
	var sims []float32
	var s record.Scored
	var buf []byte
	for sc.Scan() {
		if !resolved {
			if err := resolve(); err != nil {
				return nil, nil, err
			}
		}
		err := record.ParseScored(&s, sc.Line())
		if err == nil && bytesEqualCanonical(&buf, s.A, s.B) {
			err = record.Bad("a pair of %s with itself", s.A)
		}
		var va, vb uint64
		if err == nil && nr != nil {
			var okA, okB bool
			va, okA = input.ParseNumber(s.A)
			vb, okB = input.ParseNumber(s.B)
			if !okA || !okB {
				err = record.Bad("the ids are arrival numbers (ids=number in the shingle header, or --number-from): %s is not one (%d digits)", s.A, input.NumberDigits)
				if okA {
					err = record.Bad("the ids are arrival numbers (ids=number in the shingle header, or --number-from): %s is not one (%d digits)", s.B, input.NumberDigits)
				}
			}
		}
		if err != nil {
			if err := out.Bad(err, sc.Pos(), opt.SkipBad); err != nil {
				return nil, nil, err
			}
			continue
		}
		if nr != nil {
			if err := nr.add(va, vb, float32(s.J)); err != nil {
				return nil, nil, err
			}
			if nr.pairs%(1<<16) == 0 && ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			continue
		}
		if contain && !s.Containment {
			return nil, nil, record.Errorf(sc.Pos(), "--containment reads pairs scored with their containments (verify --containment): this pair has only a similarity")
		}
		if contain && g.threshold == 0 {
			return nil, nil, status.Usagef("%s has no verify header to give the containment threshold: give --threshold T", name)
		}
		threshold := g.threshold
		if g.rk == nil && !contain && (o.ranked || g.ids.Bytes()+pairBytes*int64(cap(as)) > o.MemoryBytes/2) {
			// Beyond half --memory (the graph built from them is
			// as large again): the pairs held go to the ranked rule,
			// which sorts them on disk (ranked.go).
			g.rk = newRanked(o.MemoryBytes, o.TempDir)
			for i := range as {
				if err := g.rk.addPair(g.ids.ID(as[i]), g.ids.ID(bs[i]), sims[i]); err != nil {
					return nil, nil, err
				}
			}
			g.ids, as, bs, sims = intern.New(), nil, nil, nil
			debug.FreeOSMemory()
		}
		if g.rk != nil {
			buf = record.CanonicalID(buf[:0], s.A)
			n := len(buf)
			buf = record.CanonicalID(buf, s.B)
			if err := g.rk.addPair(buf[:n], buf[n:], float32(s.J)); err != nil {
				return nil, nil, err
			}
			if g.rk.pairs%(1<<16) == 0 && ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			continue
		}
		buf = record.CanonicalID(buf[:0], s.A)
		a, _ := g.ids.Add(buf)
		buf = record.CanonicalID(buf[:0], s.B)
		b, _ := g.ids.Add(buf)
		if !contain {
			as, bs, sims = append(as, a), append(bs, b), append(sims, float32(s.J))
		} else {
			// Directed: from the contained document to its container.
			if s.AB >= threshold {
				as, bs, sims = append(as, a), append(bs, b), append(sims, float32(s.AB))
			}
			if s.BA >= threshold {
				as, bs, sims = append(as, b), append(bs, a), append(sims, float32(s.BA))
			}
			if s.AB < threshold && s.BA < threshold {
				g.unused++
			}
		}
		if len(as)%(1<<16) == 0 && ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	out.Finish()
	if !resolved {
		if err := resolve(); err != nil {
			return nil, nil, err
		}
	}
	if err := o.resolveReading(&g.headers, stderr); err != nil {
		return nil, nil, err
	}
	if nr != nil {
		if !o.reading.Number || o.reading.NumberFrom != early.NumberFrom {
			return nil, nil, status.Usagef("%s: a shingle header after the first pair reads the documents in another way than those before it (arrival numbers from %d): put the header lines first", name, early.NumberFrom)
		}
		return g, nr, nr.decide()
	}
	if g.rk != nil {
		return g, nil, g.rk.endPairs()
	}
	n := g.ids.Len()
	g.start = make([]uint32, n+1)
	for i := range as {
		g.start[as[i]+1]++
		if !contain {
			g.start[bs[i]+1]++
		}
	}
	for m := range n {
		g.start[m+1] += g.start[m]
	}
	g.adj = make([]uint32, g.start[n])
	g.sim = make([]float32, g.start[n])
	fill := append([]uint32(nil), g.start[:n]...)
	for i := range as {
		a, b := as[i], bs[i]
		g.adj[fill[a]], g.sim[fill[a]] = b, sims[i]
		fill[a]++
		if !contain {
			g.adj[fill[b]], g.sim[fill[b]] = a, sims[i]
			fill[b]++
		}
	}
	if contain {
		g.length = make([]int64, n)
		g.via = make([]uint32, n)
		g.viaSim = make([]float32, n)
	}
	g.state = make([]uint8, n)
	g.seq = make([]uint32, n)
	g.root = make([]uint32, n)
	return g, nil, nil
}

// bytesEqualCanonical says whether a and b are the same id once escaped
// canonically.
func bytesEqualCanonical(buf *[]byte, a, b []byte) bool {
	ca := record.CanonicalID((*buf)[:0], a)
	n := len(ca)
	all := record.CanonicalID(ca, b)
	*buf = all
	return string(all[:n]) == string(all[n:])
}

// earlierThanInput says whether member n came before the input: it is not
// in it (a first pass found it missing), or its arrival number is below the
// input's first.
func (g *graph) earlierThanInput(n uint32) bool {
	if g.numbered {
		v, err := strconv.ParseUint(string(g.ids.ID(n)), 10, 64)
		return err == nil && v < g.from
	}
	return g.state[n]&inInput == 0
}

// decide applies the rule to member m, the next document in input order,
// and returns whether it stays, and when it does not, the partner it is
// dropped for and their similarity.
func (g *graph) decide(m uint32) (stays bool, via uint32, sim float64) {
	if g.state[m]&seen != 0 {
		// A repeated id: the same decision as its first time.
		g.repeated++
		return g.state[m]&kept != 0, g.root[m], math.NaN()
	}
	if g.contain {
		// Decided ahead, after the first pass (containment.go).
		g.state[m] |= seen
		if g.state[m]&kept != 0 {
			return true, m, math.NaN()
		}
		return false, g.via[m], float64(g.viaSim[m])
	}
	g.met++
	g.state[m] |= seen
	g.seq[m] = g.met
	best, bestSim, bestExt := uint32(0), float32(-1), false
	for i := g.start[m]; i < g.start[m+1]; i++ {
		n, s := g.adj[i], g.sim[i]
		ext := g.state[n]&seen == 0 && g.earlierThanInput(n)
		if ext {
			g.external++
		} else if g.state[n]&seen == 0 {
			continue // comes later
		}
		if bestSim < 0 || s > bestSim || s == bestSim && g.arrivedBefore(n, ext, best, bestExt) {
			best, bestSim, bestExt = n, s, ext
		}
	}
	if bestSim < 0 {
		g.state[m] |= kept
		g.root[m] = m
		return true, m, math.NaN()
	}
	if bestExt {
		g.root[m] = best // the chain leaves the input: it ends there
	} else {
		g.root[m] = g.root[best]
	}
	return false, best, float64(bestSim)
}

// arrivedBefore says whether partner n (ext: before the input) arrived
// before partner o: those before the input first, by id, then by place.
func (g *graph) arrivedBefore(n uint32, ext bool, o uint32, oExt bool) bool {
	switch {
	case ext != oExt:
		return ext
	case ext:
		return g.ids.Compare(n, o) < 0
	}
	return g.seq[n] < g.seq[o]
}

// report writes what the rule counted on standard error.
func (g *graph) report(stderr io.Writer) {
	if g.external > 0 {
		fmt.Fprintf(stderr, "keep: %d pair(s) with documents not in the input, taken as seen before\n", g.external)
	}
	if g.repeated > 0 {
		fmt.Fprintf(stderr, "keep: %d document(s) repeat an id met before: each decided as its first\n", g.repeated)
	}
	if g.unused > 0 {
		fmt.Fprintf(stderr, "keep: %d pair(s) with neither containment at %g (kept by verify for their similarity): not used by --containment\n", g.unused, g.threshold)
	}
	if g.within > 0 {
		fmt.Fprintf(stderr, "keep: %d kept document(s) contained in a kept document that is not longer: kept, as a longer document never goes for a shorter one\n", g.within)
	}
}

// dropReport writes the --report file: a line per document dropped,
// "dropped TAB kept TAB via TAB similarity", replaced atomically at the end.
type dropReport struct {
	f   *disk.File
	w   *bufio.Writer
	buf []byte
}

func newReport(name string) (*dropReport, error) {
	f, err := disk.Create(disk.OS{}, disk.Target{Name: name, Mode: 0o644, InPlace: true})
	if err != nil {
		return nil, err
	}
	return &dropReport{f: f, w: bufio.NewWriterSize(f, 1<<16)}, nil
}

func (r *dropReport) add(d record.Dropped) error {
	r.buf = record.AppendDropped(r.buf[:0], d)
	_, err := r.w.Write(r.buf)
	return err
}

func (r *dropReport) commit() error {
	if err := r.w.Flush(); err != nil {
		return err
	}
	return r.f.Commit()
}

func (r *dropReport) abort() { r.f.Abort() }
