package keep

import (
	"context"
	"math"
	"slices"
	"strconv"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
)

// The containment rule (--pairs with --containment): a document is dropped
// only when it is contained, c(D,K) = |D∩K|/|D| at the threshold or more
// (verified: the containments of verify --containment), in a document K
// that is kept. The documents are decided longest first (text length in
// bytes; ties in arrival order), so a shorter near-copy inside a longer
// document goes, and a longer document never goes for a shorter one. A
// dropped document is dropped via the kept document that contains it most
// (ties to the one decided first), which is also the kept document it
// belongs to. A document not in the input (an older batch's) counts as
// kept: a new document contained in it is dropped, and it is never dropped.
//
// One case keeps a contained document: D longer in bytes than K but
// contained in it (K repeats less of its text: fewer bytes, more distinct
// shingles) is decided first and kept, and K, not contained in D, is kept
// too. keep counts these on standard error.

// containmentThreshold is the rule's threshold: --threshold, or verify's.
type containmentThreshold struct {
	value float64
	given bool
}

// header takes the threshold from verify's header when no --threshold was
// given, and refuses pairs scored without containment or a --threshold
// below verify's (the pairs between them were not written).
func (t *containmentThreshold) header(h record.Header, pos record.Pos) error {
	if h.Stage != "verify" {
		return nil
	}
	if c, ok := h.Get("containment"); ok && c != "yes" {
		return record.Errorf(pos, "--containment reads pairs scored with their containments: these were scored without (verify --containment)")
	}
	v, ok := h.Get("threshold")
	if !ok {
		return nil
	}
	t2, err := strconv.ParseFloat(v, 64)
	if err != nil || t2 < 0 || t2 > 1 {
		return record.Errorf(pos, "verify's header has threshold=%s: want a similarity between 0 and 1", v)
	}
	switch {
	case !t.given:
		t.value = t2
	case t.value < t2:
		return record.Errorf(pos, "--threshold %g is below the threshold of verify, %g: the pairs between them were not written; score again with verify --threshold %g", t.value, t2, t.value)
	}
	return nil
}

// containmentLoader holds the pairs of the containment rule: an edge from
// a document to each that contains it at the threshold or more.
type containmentLoader struct {
	o         *Options
	threshold *containmentThreshold
	pairLists
	unused int64
}

func (l *containmentLoader) add(s *record.Scored, pos record.Pos) (pairLoader, error) {
	if !s.Containment {
		return nil, record.Errorf(pos, "--containment reads pairs scored with their containments (verify --containment): this pair has only a similarity")
	}
	threshold := l.threshold.value
	if threshold == 0 {
		return nil, status.Usagef("%s has no verify header to give the containment threshold: give --threshold T", l.o.Pairs)
	}
	a, b := l.intern(s.A, s.B)
	if s.AB >= threshold {
		l.edge(a, b, float32(s.AB))
	}
	if s.BA >= threshold {
		l.edge(b, a, float32(s.BA))
	}
	if s.AB < threshold && s.BA < threshold {
		l.unused++
	}
	return l, nil
}

func (l *containmentLoader) rule(context.Context) (rule, error) {
	g := l.graph(true)
	g.numbered, g.from = l.o.reading.Number, uint64(l.o.reading.NumberFrom)
	g.threshold, g.unused = l.threshold.value, l.unused
	n := g.ids.Len()
	g.length = make([]int64, n)
	g.via = make([]uint32, n)
	g.viaSim = make([]float32, n)
	return &containmentRule{graphRule: newGraphRule(g, l.o.Pairs)}, nil
}

// containmentRule decides longest first: it needs every document's length
// before the first is written, from a first pass.
type containmentRule struct {
	graphRule
}

func (r *containmentRule) twoPass() bool { return true }

func (r *containmentRule) note(d doc, _ int64, _ []byte) error {
	if d.cluster >= 0 {
		r.seen[d.member] = true
		r.g.noteDocument(d.member, d.length)
	}
	return nil
}

func (r *containmentRule) counted(context.Context) error {
	r.g.decideContainment()
	return nil
}

// decide gives the decision made ahead, after the first pass.
func (r *containmentRule) decide(d doc, _ int64, _ []byte) (verdict, error) {
	if d.cluster < 0 {
		return verdict{}, nil
	}
	r.seen[d.member] = true
	g, m := r.g, d.member
	if g.state[m]&seen != 0 {
		stays, via, sim := g.again(m)
		return r.verdict(m, stays, via, sim), nil
	}
	g.state[m] |= seen
	if g.state[m]&kept != 0 {
		return r.verdict(m, true, m, math.NaN()), nil
	}
	return r.verdict(m, false, g.via[m], float64(g.viaSim[m])), nil
}

// noteDocument records, in the first pass, the length and arrival of
// member m, met in the input.
func (g *graph) noteDocument(m uint32, length int64) {
	if g.state[m]&inInput != 0 {
		return // a repeated id: its first length
	}
	g.state[m] |= inInput
	g.met++
	g.seq[m] = g.met
	g.length[m] = length
}

// decideContainment applies the rule to every member in the input, once
// the first pass has given their lengths: longest first, each kept unless
// a kept document (or one not in the input) contains it.
func (g *graph) decideContainment() {
	var order []uint32
	for m := range g.state {
		if g.state[m]&inInput != 0 {
			order = append(order, uint32(m))
		}
	}
	slices.SortFunc(order, func(a, b uint32) int {
		if g.length[a] != g.length[b] {
			if g.length[a] > g.length[b] {
				return -1
			}
			return 1
		}
		return int(g.seq[a]) - int(g.seq[b])
	})
	rank := make([]uint32, len(g.state)) // 1 + the place in order
	for i, m := range order {
		rank[m] = uint32(i + 1)
	}
	for _, d := range order {
		best, bestSim, found := uint32(0), float32(0), false
		for i := g.start[d]; i < g.start[d+1]; i++ {
			k, s := g.adj[i], g.sim[i]
			if rank[k] == 0 {
				g.external++ // not in the input: seen before, kept
			} else if rank[k] > rank[d] || g.state[k]&kept == 0 {
				continue
			}
			if !found || s > bestSim || s == bestSim && g.decidedBefore(k, best, rank) {
				best, bestSim, found = k, s, true
			}
		}
		if !found {
			g.state[d] |= kept
			g.root[d] = d
			continue
		}
		g.root[d], g.via[d], g.viaSim[d] = best, best, bestSim
	}
	for _, d := range order {
		if g.state[d]&kept == 0 {
			continue
		}
		for i := g.start[d]; i < g.start[d+1]; i++ {
			if k := g.adj[i]; rank[k] != 0 && g.state[k]&kept != 0 {
				g.within++
				break
			}
		}
	}
}

// decidedBefore orders two containers of a document: those not in the
// input first, by id, then by their place in the order of decision.
func (g *graph) decidedBefore(k, o uint32, rank []uint32) bool {
	switch {
	case (rank[k] == 0) != (rank[o] == 0):
		return rank[k] == 0
	case rank[k] == 0:
		return g.ids.Compare(k, o) < 0
	}
	return rank[k] < rank[o]
}
