package keep

import (
	"slices"
	"strconv"

	"github.com/neardup/neardup/internal/record"
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

// containmentHeader takes the threshold from verify's header when no
// --threshold was given, and refuses pairs scored without containment or a
// --threshold below verify's (the pairs between them were not written).
func (g *graph) containmentHeader(h record.Header, pos record.Pos) error {
	if !g.contain || h.Stage != "verify" {
		return nil
	}
	if c, ok := h.Get("containment"); ok && c != "yes" {
		return record.Errorf(pos, "--containment reads pairs scored with their containments: these were scored without (verify --containment)")
	}
	v, ok := h.Get("threshold")
	if !ok {
		return nil
	}
	t, err := strconv.ParseFloat(v, 64)
	if err != nil || t < 0 || t > 1 {
		return record.Errorf(pos, "verify's header has threshold=%s: want a similarity between 0 and 1", v)
	}
	switch {
	case !g.givenThreshold:
		g.threshold = t
	case g.threshold < t:
		return record.Errorf(pos, "--threshold %g is below the threshold of verify, %g: the pairs between them were not written; score again with verify --threshold %g", g.threshold, t, g.threshold)
	}
	return nil
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
