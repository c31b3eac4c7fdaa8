package keep

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"strconv"

	"github.com/neardup/neardup/internal/band"
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

	// numbered: the ids are arrival numbers and from is the input's
	// first: a partner below it came before, without a first pass.
	numbered bool
	from     uint64
	// keptOnly applies the kept rule (keptrule.go): only a kept partner
	// drops a document.
	keptOnly bool

	// With the containment rule (containment.go) the edges are directed,
	// from a document to those that contain it at threshold or more, and
	// sim holds the containment; length is each member's text length in
	// bytes, from the first pass; via and viaSim are the decisions made
	// ahead.
	threshold float64
	length    []int64
	via       []uint32
	viaSim    []float32

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

// pairLoader takes the pairs of the pairs file, one by one, for a rule.
type pairLoader interface {
	// add takes a pair read at pos, and returns the loader of the pairs
	// after it: itself, or another that takes over (the arrival rule's
	// spilled form when the pairs pass --memory). Its *record.LineError
	// is a bad line.
	add(s *record.Scored, pos record.Pos) (pairLoader, error)
	// rule ends the pairs, once the documents' reading is resolved, and
	// returns the rule they make.
	rule(ctx context.Context) (rule, error)
}

// loadPairs reads the scored pairs of verify from o.Pairs into a rule. At
// the first pair (the headers come first) it chooses the rule's loader
// (pairLoader); at the end it resolves how the documents are read.
func loadPairs(ctx context.Context, o *Options, stderr io.Writer) (rule, error) {
	var headers record.HeaderSet
	th := &containmentThreshold{value: o.Threshold, given: o.Threshold > 0}
	sc := stream.NewScanner(stream.NewLines([]string{o.Pairs}))
	defer sc.Close()
	sc.OnHeader = func(h record.Header, pos record.Pos) error {
		if m, _ := h.Get("measure"); h.Stage == "verify" && m == "hamming" {
			return record.Errorf(pos, "--pairs reads scored pairs with similarities; these are Hamming distances (verify --hamming)")
		}
		if o.Containment {
			if err := th.header(h, pos); err != nil {
				return err
			}
		}
		_, err := headers.Add(h, pos)
		return err
	}
	out := stream.NewOutput("keep", o.Common, nil, stderr)
	var load pairLoader
	var s record.Scored
	var buf []byte
	for n := 1; sc.Scan(); n++ {
		if load == nil {
			var err error
			if load, err = o.pairLoader(&headers, th); err != nil {
				return nil, err
			}
		}
		err := record.ParseScored(&s, sc.Line())
		if err == nil && bytesEqualCanonical(&buf, s.A, s.B) {
			err = record.Bad("a pair of %s with itself", s.A)
		}
		if err == nil {
			var next pairLoader
			if next, err = load.add(&s, sc.Pos()); err == nil {
				load = next
			}
		}
		if err != nil {
			if err := out.Bad(err, sc.Pos(), o.SkipBad); err != nil {
				return nil, err
			}
			continue
		}
		if n%(1<<16) == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	out.Finish()
	if load == nil {
		var err error
		if load, err = o.pairLoader(&headers, th); err != nil {
			return nil, err
		}
	}
	if err := o.resolveReading(&headers, stderr); err != nil {
		return nil, err
	}
	return load.rule(ctx)
}

// pairLoader chooses the rule the pairs go to, from the headers before the
// first pair (resolveReading decides at the end, from them all): the
// containment rule with Containment, the numbered rule (numbered.go) when
// the ids are arrival numbers, else the arrival rule in memory.
func (o *Options) pairLoader(headers *record.HeaderSet, th *containmentThreshold) (pairLoader, error) {
	early := input.ReadingOf(o.Format, o.IDField, o.TextField)
	if o.Given != (input.ReadingFlags{}) {
		var err error
		if early, _, err = o.Given.FromHeaders(headers); err != nil {
			return nil, status.Usage(err)
		}
	}
	if h, ok := headers.Get("band"); ok && o.Rule == RuleKept {
		if v, _ := h.Get(band.CollapseKey); v == band.CollapseText {
			return nil, status.Usagef("--rule kept: the pairs are of documents whose copies were collapsed (shingle --collapse: a copy is paired with its first only), and the kept rule needs a copy's own pairs when its first was dropped; make them without --collapse")
		}
	}
	switch {
	case o.Containment:
		return &containmentLoader{o: o, threshold: th, pairLists: newPairLists()}, nil
	case early.Number && !o.generalRule:
		return &numberedLoader{o: o, from: early.NumberFrom, n: newNumbered(uint64(early.NumberFrom), o.MemoryBytes, o.TempDir)}, nil
	}
	return &arrivalLoader{o: o, pairLists: newPairLists()}, nil
}

// pairLists are the pairs held while they are read, their ids interned,
// to make a graph of.
type pairLists struct {
	ids    *intern.Table
	as, bs []uint32
	sims   []float32
	buf    []byte
}

func newPairLists() pairLists { return pairLists{ids: intern.New()} }

// intern returns the members of ids a and b, canonically escaped.
func (l *pairLists) intern(a, b []byte) (uint32, uint32) {
	l.buf = record.CanonicalID(l.buf[:0], a)
	ma, _ := l.ids.Add(l.buf)
	l.buf = record.CanonicalID(l.buf[:0], b)
	mb, _ := l.ids.Add(l.buf)
	return ma, mb
}

// edge holds the pair from member a to b.
func (l *pairLists) edge(a, b uint32, sim float32) {
	l.as, l.bs, l.sims = append(l.as, a), append(l.bs, b), append(l.sims, sim)
}

// graph makes the graph of the pairs held, each pair an edge both ways
// unless directed.
func (l *pairLists) graph(directed bool) *graph {
	g := &graph{ids: l.ids}
	n := g.ids.Len()
	g.start = make([]uint32, n+1)
	for i := range l.as {
		g.start[l.as[i]+1]++
		if !directed {
			g.start[l.bs[i]+1]++
		}
	}
	for m := range n {
		g.start[m+1] += g.start[m]
	}
	g.adj = make([]uint32, g.start[n])
	g.sim = make([]float32, g.start[n])
	fill := append([]uint32(nil), g.start[:n]...)
	for i := range l.as {
		a, b := l.as[i], l.bs[i]
		g.adj[fill[a]], g.sim[fill[a]] = b, l.sims[i]
		fill[a]++
		if !directed {
			g.adj[fill[b]], g.sim[fill[b]] = a, l.sims[i]
			fill[b]++
		}
	}
	g.state = make([]uint8, n)
	g.seq = make([]uint32, n)
	g.root = make([]uint32, n)
	return g
}

// arrivalLoader holds the pairs of the arrival rule in memory, and hands
// them over to the ranked rule when they pass half of --memory.
type arrivalLoader struct {
	o *Options
	pairLists
}

func (l *arrivalLoader) add(s *record.Scored, pos record.Pos) (pairLoader, error) {
	if l.o.ranked || l.ids.Bytes()+pairBytes*int64(cap(l.as)) > l.o.MemoryBytes/2 {
		return l.handOver(s, pos)
	}
	a, b := l.intern(s.A, s.B)
	l.edge(a, b, float32(s.J))
	return l, nil
}

// handOver gives the pairs held and s, beyond half --memory (the graph
// built from them is as large again), to the ranked rule, which sorts them
// on disk (ranked.go) and takes the pairs after.
func (l *arrivalLoader) handOver(s *record.Scored, pos record.Pos) (pairLoader, error) {
	if l.o.Rule == RuleKept && len(l.o.Dropped) > 0 {
		return nil, errKeptSpilled(l.o.MemoryBytes)
	}
	rk := newRanked(l.o.MemoryBytes, l.o.TempDir, l.o.Pairs)
	rk.keptOnly = l.o.Rule == RuleKept
	for i := range l.as {
		if err := rk.addPair(l.ids.ID(l.as[i]), l.ids.ID(l.bs[i]), l.sims[i]); err != nil {
			return nil, err
		}
	}
	l.pairLists = pairLists{}
	debug.FreeOSMemory()
	return rk.add(s, pos)
}

func (l *arrivalLoader) rule(ctx context.Context) (rule, error) {
	g := l.graph(false)
	g.numbered, g.from = l.o.reading.Number, uint64(l.o.reading.NumberFrom)
	g.keptOnly = l.o.Rule == RuleKept
	if err := g.markDropped(ctx, l.o); err != nil {
		return nil, err
	}
	return &arrivalRule{graphRule: newGraphRule(g, l.o.Pairs)}, nil
}

// graphRule is what the rules that hold the pairs' graph in memory share:
// the arrival rule (arrivalRule) and the containment rule.
type graphRule struct {
	ruleDefaults
	g    *graph
	file string
	// seen[m]: member m is among the documents.
	seen []bool
}

func newGraphRule(g *graph, file string) graphRule {
	return graphRule{g: g, file: file, seen: make([]bool, g.ids.Len())}
}

func (r *graphRule) find(id []byte) (int64, uint32, uint64) {
	if m, ok := r.g.ids.Lookup(id); ok {
		return 0, m, 0
	}
	return notInCluster, 0, 0
}

// verdict is the decision for member m: whether it stays, and when it
// does not, the partner it is dropped for and their similarity.
func (r *graphRule) verdict(m uint32, stays bool, via uint32, sim float64) verdict {
	ids := r.g.ids
	return verdict{in: true, stays: stays, name: ids.ID(r.g.root[m]),
		dropped: record.Dropped{Dropped: ids.ID(m), Via: ids.ID(via), Similarity: sim}}
}

func (r *graphRule) idsMet() idCount {
	return idCount{file: r.file, total: len(r.seen), missing: missing(r.seen), first: func() []byte { return r.g.ids.ID(0) }}
}

func (r *graphRule) repeats() int64 { return r.g.repeated }

func (r *graphRule) summary(stderr io.Writer, t *tally, stats bool) {
	r.g.report(stderr)
	t.pairStats(stderr, int64(len(r.g.adj)/2), stats)
}

// arrivalRule is the arrival-order rule with the pairs in memory.
type arrivalRule struct {
	graphRule
}

// twoPass: a first pass tells the partners not in the input, earlier,
// from those that come later, unless arrival numbers tell.
func (r *arrivalRule) twoPass() bool { return !r.g.numbered }

func (r *arrivalRule) note(d doc, _ int64, _ []byte) error {
	if d.cluster >= 0 {
		r.seen[d.member] = true
		r.g.state[d.member] |= inInput
	}
	return nil
}

func (r *arrivalRule) decide(d doc, _ int64, _ []byte) (verdict, error) {
	if d.cluster < 0 {
		return verdict{}, nil
	}
	r.seen[d.member] = true
	stays, via, sim := r.g.decide(d.member)
	return r.verdict(d.member, stays, via, sim), nil
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
		return g.again(m)
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
		if g.keptOnly && !g.keptPartner(n, ext) {
			continue
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

// again is the decision for member m met again (a repeated id): the same
// as its first time.
func (g *graph) again(m uint32) (stays bool, via uint32, sim float64) {
	g.repeated++
	return g.state[m]&kept != 0, g.root[m], math.NaN()
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
	reportArrival(stderr, g.external)
	if g.unused > 0 {
		fmt.Fprintf(stderr, "keep: %d pair(s) with neither containment at %g (kept by verify for their similarity): not used by --containment\n", g.unused, g.threshold)
	}
	if g.within > 0 {
		fmt.Fprintf(stderr, "keep: %d kept document(s) contained in a kept document that is not longer: kept, as a longer document never goes for a shorter one\n", g.within)
	}
}

// reportArrival says on standard error how many pairs with a document
// before the input the arrival-order rule counted.
func reportArrival(stderr io.Writer, external int64) {
	if external > 0 {
		fmt.Fprintf(stderr, "keep: %d pair(s) with documents not in the input, taken as seen before\n", external)
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
