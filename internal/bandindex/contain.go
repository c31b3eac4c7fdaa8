package bandindex

import (
	"github.com/neardup/neardup/internal/record"
)

// A band index holds containment band records (band --containment T
// --containment-mode stored) as it holds MinHash band records: the key is
// the record's key and the id its tail, "id TAB role TAB size" (ids hold no
// TAB, so tails sort as their ids do), which dump writes back as the
// record. A batch of queries (--containment-mode query, documents the
// table does not count) is paired with such an index (pairs --against),
// never added to it: a query's records leave out the shingles the table
// does not hold, which a later query may share.

// isContainment says whether h is band's header of containment keys.
func isContainment(h record.Header) bool {
	s, _ := h.Get(record.SchemeKey)
	return h.Stage == "band" && s == record.SchemeContainment
}

// checkContainMode refuses containment keys of another mode than stored
// for an index.
func checkContainMode(h record.Header, pos record.Pos) error {
	if !isContainment(h) {
		return nil
	}
	if m, _ := h.Get(record.ContainModeKey); m != record.ContainStored {
		return record.Errorf(pos, "a band index holds containment keys made with band --containment-mode stored; these were made with mode=%s (corpus keys leave out shingles a query may share, query keys go to pairs --against)", m)
	}
	return nil
}

// CheckQueryHeader checks a header line of a batch paired with the index
// (pairs --against): as CheckHeader, but containment keys of queries
// (mode=query) are checked against an index of mode=stored with the same
// parameters otherwise.
func (ix *Index) CheckQueryHeader(h record.Header, pos record.Pos) error {
	if isContainment(h) {
		if m, _ := h.Get(record.ContainModeKey); m == record.ContainQuery {
			q := record.Header{Stage: h.Stage}
			for _, p := range h.Params {
				if p.Key == record.ContainModeKey {
					p.Value = record.ContainStored
				}
				q.Params = append(q.Params, p)
			}
			h = q
		}
	}
	return ix.CheckHeader(h, pos)
}
