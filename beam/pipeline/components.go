package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

// Connected components of the graph of verified pairs, each named by its
// smallest id (bytewise), as cluster --method components names them.
//
// A Beam pipeline is a graph fixed before it runs, so the components are
// found in a bounded number of rounds of min-label propagation: each round
// is a large-star then a small-star step (Kiveris, Lattanzi, Mirrokni,
// Rastogi, Vassilvitskii, "Connected Components in MapReduce and Beyond",
// SoCC 2014). Both steps keep the components of the edge set while
// hooking every node towards the smallest node it can see; together they
// turn each component into a star around its smallest node in O(log² n)
// rounds. After the last round every node takes the smallest of itself and
// its neighbours as its label. Where a component has not become a star,
// some edges join nodes of different labels: those label pairs are
// gathered on one worker and joined by union-find, so the result is exact
// whatever the number of rounds, and the count of such edges says whether
// more rounds would help (counter components-unsettled-edges).

func init() {
	register.Function2x0[string, func(string, string)](pairEdge)
	register.Function3x0[string, string, func(string, string)](bothWays)
	register.DoFn3x0[string, func(*string) bool, func(string, string)](&largeStarFn{})
	register.DoFn3x0[string, func(*string) bool, func(string, string)](&smallStarFn{})
	register.DoFn4x0[string, func(*string) bool, func(string, string), func(string, string)](&labelFn{})
	register.DoFn5x1[context.Context, string, func(*string) bool, func(*string) bool, func(string), error](&unsettledFn{})
	register.DoFn3x0[int, func(*string) bool, func(string, string)](&unionFindFn{})
	register.DoFn4x1[string, func(*string) bool, func(*string) bool, func(string), error](&nameFn{})
	register.Function2x2[string, string, string, string](swap)
}

// pairEdge makes a scored pair an edge.
func pairEdge(scored string, emit func(string, string)) {
	a, rest, _ := strings.Cut(scored, "\t")
	b, _, _ := strings.Cut(rest, "\t")
	emit(a, b)
}

// bothWays emits an edge from each end.
func bothWays(a, b string, emit func(string, string)) {
	emit(a, b)
	emit(b, a)
}

func swap(a, b string) (string, string) { return b, a }

// neighbours collects the distinct neighbours of a node, sorted.
func neighbours(iter func(*string) bool) []string {
	var ns []string
	var v string
	for iter(&v) {
		ns = append(ns, v)
	}
	slices.Sort(ns)
	return slices.Compact(ns)
}

// largeStarFn links every neighbour larger than u to the smallest node of
// u's closed neighbourhood.
type largeStarFn struct{}

func (*largeStarFn) ProcessElement(u string, iter func(*string) bool, emit func(string, string)) {
	ns := neighbours(iter)
	m := min(u, ns[0])
	for _, v := range ns {
		if v > u {
			emit(v, m)
		}
	}
}

// smallStarFn links u and its neighbours smaller than u to the smallest of
// them.
type smallStarFn struct{}

func (*smallStarFn) ProcessElement(u string, iter func(*string) bool, emit func(string, string)) {
	ns := neighbours(iter)
	m := min(u, ns[0])
	for _, v := range ns {
		if v < u && v != m {
			emit(v, m)
		}
	}
	if u != m {
		emit(u, m)
	}
}

// labelFn gives u its label, the smallest node of its closed
// neighbourhood, and tells each neighbour that label.
type labelFn struct{}

func (*labelFn) ProcessElement(u string, iter func(*string) bool, label, told func(string, string)) {
	ns := neighbours(iter)
	m := min(u, ns[0])
	label(u, m)
	for _, v := range ns {
		told(v, m)
	}
}

// unsettledFn emits, for a node whose neighbours' labels differ from its
// own, each such pair of labels: the edges a last union-find must join.
type unsettledFn struct{}

func (*unsettledFn) ProcessElement(ctx context.Context, u string, labels, told func(*string) bool, emit func(string)) error {
	var own string
	n := 0
	for labels(&own) {
		n++
	}
	if n != 1 {
		return fmt.Errorf("components: node %s has %d labels", u, n)
	}
	var l string
	unsettled := int64(0)
	for told(&l) {
		// Each such edge is seen from both ends; the end with the smaller
		// label emits it.
		if own < l {
			emit(own + "\t" + l)
			unsettled++
		}
	}
	if unsettled > 0 {
		beam.NewCounter("neardup", "components-unsettled-edges").Inc(ctx, unsettled)
	}
	return nil
}

// unionFindFn joins the unsettled label pairs, all under one key, and
// emits each label whose component's smallest label is another, with that
// label.
type unionFindFn struct{}

func (*unionFindFn) ProcessElement(_ int, iter func(*string) bool, emit func(string, string)) {
	parent := map[string]string{}
	find := func(x string) string {
		r := x
		for {
			p, ok := parent[r]
			if !ok || p == r {
				break
			}
			r = p
		}
		for x != r {
			next := parent[x]
			parent[x] = r
			x = next
		}
		return r
	}
	var e string
	for iter(&e) {
		a, b, _ := strings.Cut(e, "\t")
		for _, x := range []string{a, b} {
			if _, ok := parent[x]; !ok {
				parent[x] = x
			}
		}
		ra, rb := find(a), find(b)
		if ra == rb {
			continue
		}
		// The smaller root stays the root, so every root is the smallest
		// label of its set.
		if rb < ra {
			ra, rb = rb, ra
		}
		parent[rb] = ra
	}
	for x := range parent {
		if r := find(x); r != x {
			emit(x, r)
		}
	}
}

// nameFn writes the cluster records of the nodes of one label: the label's
// root from the union-find, or the label itself.
type nameFn struct{}

func (*nameFn) ProcessElement(label string, nodes, roots func(*string) bool, emit func(string)) error {
	name := label
	var r string
	n := 0
	for roots(&r) {
		name = r
		n++
	}
	if n > 1 {
		return fmt.Errorf("components: label %s has %d roots", label, n)
	}
	var u string
	for nodes(&u) {
		emit(name + "\t" + u)
	}
	return nil
}

// components returns the cluster records "cluster TAB id" of the graph of
// scored pairs (PCollection<string>), after rounds rounds.
func components(s beam.Scope, scored beam.PCollection, rounds int) beam.PCollection {
	s = s.Scope("components")
	edges := beam.ParDo(s, pairEdge, scored)
	for range rounds {
		edges = beam.ParDo(s, &largeStarFn{}, beam.GroupByKey(s, beam.ParDo(s, bothWays, edges)))
		edges = beam.ParDo(s, &smallStarFn{}, beam.GroupByKey(s, beam.ParDo(s, bothWays, edges)))
	}
	labels, told := beam.ParDo2(s, &labelFn{}, beam.GroupByKey(s, beam.ParDo(s, bothWays, edges)))
	unsettled := beam.ParDo(s, &unsettledFn{}, beam.CoGroupByKey(s, labels, told))
	roots := beam.ParDo(s, &unionFindFn{}, beam.GroupByKey(s, beam.AddFixedKey(s, unsettled)))
	byLabel := beam.ParDo(s, swap, labels)
	return beam.ParDo(s, &nameFn{}, beam.CoGroupByKey(s, byLabel, roots))
}
