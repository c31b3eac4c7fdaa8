package keep

import (
	"context"
	"fmt"
	"slices"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// The kept rule (--pairs with --rule kept): the documents are read in
// arrival order, as by the arrival rule, but a document is dropped only
// when it has a verified pair with an earlier document that was kept. So
// every dropped document has a kept near-duplicate: its via, which is also
// its kept document (the report's kept and via columns are the same).
// A~B and B~C, A and C unrelated, arriving A, B, C, drop B (via A) and
// keep C, which the arrival rule drops via B though nothing kept is near
// it. As under the arrival rule, no two kept documents are near-duplicates:
// the later would have gone for the earlier.
//
// A partner not in the input came in an older batch: it counts as kept
// unless it is among the dropped ids of the earlier batches' reports
// (Options.Dropped), so a batch decided against what came before drops
// what a one-shot run drops. Each of the arrival rule's forms applies it:
// in memory (graph.decide, with keptOnly), for arrival numbers
// (numbered.takeKept) and spilled (ranked.go, through the numbered form;
// --dropped is refused there, the old dropped ids would be held beyond
// --memory).

// droppedBefore marks a member not in the input that an earlier batch
// dropped (graph.state).
const droppedBefore uint8 = 8

// readDropped calls each with the dropped id, canonically escaped, of
// every line of the reports in files, and its place.
func readDropped(ctx context.Context, files []string, each func(id []byte, pos record.Pos) error) error {
	if len(files) == 0 {
		return nil
	}
	sc := stream.NewScanner(stream.NewLines(files))
	defer sc.Close()
	var d record.Dropped
	var buf []byte
	for n := 1; sc.Scan(); n++ {
		if err := record.ParseDropped(&d, sc.Line()); err != nil {
			return record.Errorf(sc.Pos(), "--dropped reads the reports of keep --report (dropped TAB kept TAB via TAB similarity): %v", err)
		}
		buf = record.CanonicalID(buf[:0], d.Dropped)
		if err := each(buf, sc.Pos()); err != nil {
			return err
		}
		if n%(1<<16) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return sc.Err()
}

// markDropped marks in the graph the members that the reports of o.Dropped
// say were dropped.
func (g *graph) markDropped(ctx context.Context, o *Options) error {
	return readDropped(ctx, o.Dropped, func(id []byte, _ record.Pos) error {
		if m, ok := g.ids.Lookup(id); ok {
			g.state[m] |= droppedBefore
		}
		return nil
	})
}

// keptPartner says whether partner n of a document met now may drop it
// under the kept rule: a kept document met before, or one not in the
// input (ext) that no earlier batch dropped.
func (g *graph) keptPartner(n uint32, ext bool) bool {
	if ext {
		return g.state[n]&droppedBefore == 0
	}
	return g.state[n]&kept != 0
}

// loadDropped reads the arrival numbers that the reports of o.Dropped say
// were dropped, sorted.
func (n *numbered) loadDropped(ctx context.Context, o *Options) error {
	err := readDropped(ctx, o.Dropped, func(id []byte, pos record.Pos) error {
		v, ok := input.ParseNumber(id)
		if !ok {
			return record.Errorf(pos, "the ids are arrival numbers (ids=number in the shingle header, or --number-from): %s is not one (%d digits)", id, input.NumberDigits)
		}
		n.dropped = append(n.dropped, v)
		return nil
	})
	slices.Sort(n.dropped)
	n.dropped = slices.Compact(n.dropped)
	return err
}

// takeKept is take under the kept rule: the pairs of a later document come
// most similar first, and the first whose earlier document was kept drops
// it. A document kept may have pairs with older batches too: they are
// counted per document (extDoc, extN), for decideDoc.
func (n *numbered) takeKept(p numPair) {
	n.setInPair(p.a)
	n.setInPair(p.b)
	if p.b < n.from {
		return // two documents of older batches: never met
	}
	if p.a < n.from {
		if last := len(n.extDoc) - 1; last >= 0 && n.extDoc[last] == p.b {
			n.extN[last]++
		} else {
			n.extDoc = append(n.extDoc, p.b)
			n.extN = append(n.extN, 1)
		}
	}
	if last := len(n.drop) - 1; last >= 0 && n.drop[last] == p.b {
		return
	}
	if p.a < n.from {
		if _, gone := slices.BinarySearch(n.dropped, p.a); gone {
			return
		}
	} else if _, gone := slices.BinarySearch(n.drop, p.a); gone {
		return
	}
	n.drop = append(n.drop, p.b)
	n.via = append(n.via, p.a)
	n.root = append(n.root, p.a)
	n.sim = append(n.sim, p.sim)
	n.ext = append(n.ext, 0)
}

// errKeptSpilled refuses --dropped to the spilled form.
func errKeptSpilled(memory int64) error {
	return fmt.Errorf("--rule kept with --dropped: the pairs of ids that are not arrival numbers pass --memory %s, and the earlier batches' dropped ids would be held beyond it; give a larger --memory, or number the documents (shingle --number-from)", stream.FormatSize(memory))
}
