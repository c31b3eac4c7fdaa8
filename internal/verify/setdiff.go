package verify

import "sync/atomic"

// Near-duplicates counted from their differences. A document read with
// several partners held, all near one another (the variants of a page, the
// versions of a file), is counted against each of them by a merge of two
// whole sets, though the sets differ in a few values. Instead its set D and
// each partner's X are compared with one reference R, a partner held (the
// first read), as what R lacks of them and what they add to it:
//
//	|D ∩ X| = |R| − |R∖D| − |R∖X| + |(R∖D) ∩ (R∖X)| + |(D∖R) ∩ (X∖R)|
//
// exactly. D's difference from R takes one merge; a held partner's is
// made once and kept with it (heldDoc.diff) for every later document that
// takes the same reference, as the variants of a page do with its first:
// each of them then costs one merge, not one for each partner. A difference
// larger than a sixteenth of its set is not kept (the set is far from R),
// and those pairs are merged whole, as without a reference.

// heldDoc is a document held in a pass: its set, and its difference from
// a reference, written by the scorer's goroutines.
type heldDoc struct {
	set  []uint64
	hist []uint8
	diff atomic.Pointer[setDiff]
}

// setDiff is a set's difference from the reference ref: what it lacks of
// the reference (minus) and what it adds (plus), ascending; far when it
// differs in more than diffLimit values, and then neither is kept.
type setDiff struct {
	ref         uint32
	minus, plus []uint64
	far         bool
}

// diffLimit is the most values a set of n may differ from a reference in
// for its difference to be used.
func diffLimit(n int) int { return n / 16 }

// diffFrom returns how s differs from ref, at most limit values (far
// when it differs in more; what it found so far is then dropped).
func diffFrom(s, ref []uint64, limit int) (minus, plus []uint64, far bool) {
	i, j := 0, 0
	for i < len(s) && j < len(ref) {
		if i+4 <= len(s) && j+4 <= len(ref) && [4]uint64(s[i:i+4]) == [4]uint64(ref[j:j+4]) {
			i += 4
			j += 4
			continue
		}
		switch x, y := s[i], ref[j]; {
		case x == y:
			i++
			j++
			continue
		case x < y:
			plus = append(plus, x)
			i++
		default:
			minus = append(minus, y)
			j++
		}
		if len(minus)+len(plus) > limit {
			return nil, nil, true
		}
	}
	plus = append(plus, s[i:]...)
	minus = append(minus, ref[j:]...)
	if len(minus)+len(plus) > limit {
		return nil, nil, true
	}
	return minus, plus, false
}

// countCommon counts the values common to two short ascending lists.
func countCommon(a, b []uint64) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			n++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return n
}

// groupTask is a partner x of a document to count against it: the line of
// their pair, x's id and held set, and need (intersectAtLeast).
type groupTask struct {
	line uint32
	x    uint32
	held *heldDoc
	need int
}

// groupRefs is how many of a document's partners scoreGroup tries as its
// reference, the first read first, and minGroup the fewest partners it
// takes a reference for.
const (
	groupRefs = 3
	minGroup  = 4
)

// scoreGroup counts set against each partner of tasks through a
// reference: the first of refs (partners, the first read first) that set
// is near. It writes each count to inter (atomically: the sink reads it as
// it goes). When set is far from each the pairs are merged whole.
func scoreGroup(inter []uint32, set []uint64, refs []groupTask, tasks []groupTask) {
	var refID uint32
	var ref, dm, dp []uint64
	far := true
	for _, r := range refs {
		if dm, dp, far = diffFrom(set, r.held.set, diffLimit(len(set))); !far {
			refID, ref = r.x, r.held.set
			break
		}
	}
	for _, t := range tasks {
		var n int
		switch {
		case far:
			n = intersectAtLeast(set, t.held.set, t.need)
		case t.x == refID:
			n = len(ref) - len(dm)
		default:
			d := t.held.diff.Load()
			if d == nil || d.ref != refID {
				d = &setDiff{ref: refID}
				d.minus, d.plus, d.far = diffFrom(t.held.set, ref, diffLimit(len(t.held.set)))
				t.held.diff.Store(d)
			}
			if d.far {
				n = intersectAtLeast(set, t.held.set, t.need)
			} else {
				n = len(ref) - len(dm) - len(d.minus) + countCommon(dm, d.minus) + countCommon(dp, d.plus)
			}
		}
		atomic.StoreUint32(&inter[t.line], uint32(n))
	}
}
