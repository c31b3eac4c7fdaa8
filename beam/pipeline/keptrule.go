package pipeline

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

// The kept rule (Options.Rule keep.RuleKept: keep --pairs --rule kept,
// internal/keep/keptrule.go): in arrival order a document is dropped only
// when it has a verified pair with an earlier document that was kept, for
// ("via") the most similar such document, ties to the earliest, which is
// also its kept document. The kept documents are the lexicographically
// first maximal independent set of the graph of verified pairs in arrival
// order, a problem known to be P-complete: no bounded number of rounds
// settles every graph (a chain of near-copies each of the one before,
// arriving in its order, is settled one document a round). So it is
// settled in rounds, as far as -component-rounds rounds go, and finished
// on one worker:
//
//   - A document with no earlier partner is kept.
//   - Each round, every pair whose later document is undecided is told what
//     is decided of its earlier one (a CoGroupByKey of the pairs left with
//     the states of their earlier documents) and grouped by its later one
//     (a GroupByKey): a document with a kept earlier partner is dropped,
//     one whose earlier partners are all dropped is kept, and the pairs of
//     the others between two undecided documents are left for the next
//     round. A round settles at least the earliest undecided document of
//     every component and those it drops; the pairs left shrink.
//   - What is left after the rounds (counter dedup-unsettled-documents, the
//     documents it decides) goes to one worker, which decides it in
//     arrival order holding its pairs (some 70 bytes a pair: two ids and a
//     state, in a map by later document).
//
// The via of each document dropped is then found by one more join: the
// pairs whose earlier document was kept, grouped by the later one (viaOf).
// The cost: two shuffles of the undecided pairs a round, the states of the
// undecided documents, and one shuffle of all pairs for the vias. On the
// tests' real documents with planted copies and chains (782 documents,
// 364 dropped) one round left 9 documents to the last worker, two left 1,
// three none.

// Kept-rule states of a document.
const (
	undecided = iota
	keptDoc
	droppedDoc
)

// told is a verified pair, from its earlier document From to its later
// To, with the state of From.
type told struct {
	From, To string
	State    int
}

func init() {
	beam.RegisterType(reflect.TypeOf((*told)(nil)).Elem())
	register.Function2x2[string, dropEntry, string, string](pairEnds)
	register.Function4x1[string, func(*string) bool, func(*dropEntry) bool, func(string, int), error](firstState)
	register.Function4x1[string, func(*string) bool, func(*int) bool, func(string, told), error](tellState)
	register.Function4x0[string, func(*told) bool, func(string, int), func(string, string)](keptStep)
	register.DoFn4x1[context.Context, int, func(*told) bool, func(string, int), error](&keptResidualFn{})
	register.Function3x0[string, int, func(string, bool)](keptOnly)
	register.Function4x0[string, func(*dropEntry) bool, func(*bool) bool, func(string, dropEntry)](keptPartner)
	register.Emitter1[told]()
	register.Emitter2[string, int]()
	register.Emitter2[string, told]()
	register.Emitter2[string, bool]()
	register.Iter1[told]()
	register.Iter1[int]()
	register.Iter1[bool]()
}

// pairEnds keys a pair (an entry of laterOfPair) by its earlier document,
// with its later one.
func pairEnds(b string, e dropEntry) (string, string) { return e.Via, b }

// firstState decides the documents with no earlier partner: kept; the
// others are undecided.
func firstState(id string, _ func(*string) bool, earlier func(*dropEntry) bool, emit func(string, int)) error {
	var e dropEntry
	if earlier(&e) {
		emit(id, undecided)
	} else {
		emit(id, keptDoc)
	}
	return nil
}

// tellState tells the pairs of an earlier document (keyed by it) its
// state.
func tellState(a string, laters func(*string) bool, states func(*int) bool, emit func(string, told)) error {
	var st, s int
	n := 0
	for states(&s) {
		st = s
		n++
	}
	var b string
	for laters(&b) {
		if n != 1 {
			return fmt.Errorf("dedup: document %s has %d states", a, n)
		}
		emit(b, told{From: a, To: b, State: st})
	}
	return nil
}

// keptStep decides a document from the states of its earlier partners
// told this round, and sends on its pairs with undecided earlier partners
// while it is undecided.
func keptStep(b string, tolds func(*told) bool, state func(string, int), pending func(string, string)) {
	var open []string
	dropped := false
	var t told
	for tolds(&t) {
		switch t.State {
		case keptDoc:
			dropped = true
		case undecided:
			open = append(open, t.From)
		}
	}
	switch {
	case dropped:
		state(b, droppedDoc)
	case len(open) == 0:
		state(b, keptDoc)
	default:
		state(b, undecided)
		for _, a := range open {
			pending(a, b)
		}
	}
}

// keptResidualFn decides, on one worker, the documents the rounds left
// undecided: in arrival order, each dropped when an earlier partner is
// kept, told so or decided here before it.
type keptResidualFn struct{}

func (*keptResidualFn) ProcessElement(ctx context.Context, _ int, tolds func(*told) bool, emit func(string, int)) error {
	byLater := map[string][]told{}
	var t told
	for tolds(&t) {
		byLater[t.To] = append(byLater[t.To], t)
	}
	later := slices.Sorted(func(yield func(string) bool) {
		for b := range byLater {
			if !yield(b) {
				return
			}
		}
	})
	beam.NewCounter("neardup", "dedup-unsettled-documents").Inc(ctx, int64(len(later)))
	decided := map[string]int{}
	for _, b := range later {
		st := keptDoc
		for _, t := range byLater[b] {
			s := t.State
			if s == undecided {
				var ok bool
				if s, ok = decided[t.From]; !ok {
					return fmt.Errorf("dedup: document %s is undecided and has no pair left with an earlier undecided document", t.From)
				}
			}
			if s == keptDoc {
				st = droppedDoc
			}
		}
		decided[b] = st
		emit(b, st)
	}
	return nil
}

// keptOnly keeps the documents kept.
func keptOnly(id string, st int, emit func(string, bool)) {
	if st == keptDoc {
		emit(id, true)
	}
}

// keptPartner sends on the pairs (keyed by their earlier document) whose
// earlier document was kept, keyed by the later one, which they drop.
func keptPartner(_ string, laters func(*dropEntry) bool, kept func(*bool) bool, emit func(string, dropEntry)) {
	var k bool
	if !kept(&k) {
		return
	}
	var e dropEntry
	for laters(&e) {
		e.Done = true
		emit(e.ID, e)
	}
}

// keptRoots applies the kept rule to the verified pairs
// (PCollection<string>): it returns PCollection<KV<string, dropEntry>>, an
// entry per document dropped, keyed by its id, its kept document its via.
func keptRoots(s beam.Scope, scored beam.PCollection, rounds int) beam.PCollection {
	s = s.Scope("dedup kept rule")
	later := beam.ParDo(s, laterOfPair, scored)
	pending := beam.ParDo(s, pairEnds, later)
	states := beam.ParDo(s, firstState, beam.CoGroupByKey(s, pending, later))
	all := []beam.PCollection{states}
	tell := func() beam.PCollection {
		return beam.ParDo(s, tellState, beam.CoGroupByKey(s, pending, states))
	}
	for range rounds {
		states, pending = beam.ParDo2(s, keptStep, beam.GroupByKey(s, tell()))
		all = append(all, states)
	}
	left := beam.AddFixedKey(s, beam.DropKey(s, tell()))
	all = append(all, beam.ParDo(s, &keptResidualFn{}, beam.GroupByKey(s, left)))
	kept := beam.ParDo(s, keptOnly, beam.Flatten(s, all...))
	drops := beam.ParDo(s, keptPartner, beam.CoGroupByKey(s, beam.ParDo(s, keyByTarget, later), kept))
	return beam.ParDo(s, viaOf, beam.GroupByKey(s, drops))
}
