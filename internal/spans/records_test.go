package spans

import (
	"fmt"
	"strings"
	"testing"
)

// at is the place of token tok of document doc.
func at(doc, tok uint64) uint64 { return doc<<32 | tok }

// TestOccurrences checks how repeated windows, in place order, join into
// records: the next window of the same document, with the same count,
// whose first place is the next window after the last one's first place in
// the same document, goes on; anything else starts a record. Each window
// is given as its place, count and first place; its bytes are 10·token to
// 10·token+25, and its first's likewise.
func TestOccurrences(t *testing.T) {
	rep := func(pos uint64, count uint32, first uint64) repeat {
		s, fs := uint32(10*tokenOf(pos)), uint32(10*tokenOf(first))
		return repeat{pos: pos, first: first, count: count, start: s, end: s + 25, firstStart: fs, firstEnd: fs + 25}
	}
	for _, tc := range []struct {
		name    string
		repeats []repeat
		want    string
	}{
		{"a run whose firsts follow", []repeat{rep(at(1, 4), 2, at(0, 7)), rep(at(1, 5), 2, at(0, 8)), rep(at(1, 6), 2, at(0, 9))},
			"1:40-85 2 0:70-115"},
		{"the first place itself", []repeat{rep(at(0, 7), 2, at(0, 7)), rep(at(0, 8), 2, at(0, 8))},
			"0:70-105 2 0:70-105 first"},
		{"the count changes", []repeat{rep(at(1, 4), 2, at(0, 7)), rep(at(1, 5), 3, at(0, 8)), rep(at(1, 6), 3, at(0, 9))},
			"1:40-65 2 0:70-95|1:50-85 3 0:80-115"},
		{"the first place jumps", []repeat{rep(at(1, 4), 2, at(0, 7)), rep(at(1, 5), 2, at(0, 20))},
			"1:40-65 2 0:70-95|1:50-75 2 0:200-225"},
		{"a gap in the document", []repeat{rep(at(1, 4), 2, at(0, 7)), rep(at(1, 6), 2, at(0, 8))},
			"1:40-65 2 0:70-95|1:60-85 2 0:80-105"},
		{"the next document", []repeat{rep(at(1, 4), 2, at(0, 7)), rep(at(2, 0), 2, at(0, 8))},
			"1:40-65 2 0:70-95|2:0-25 2 0:80-105"},
		// Places that follow each other as numbers, but in two documents.
		{"firsts in two documents", []repeat{
			{pos: at(3, 0), first: at(1, 1<<32-1), count: 2, start: 0, end: 25, firstStart: 90, firstEnd: 115},
			rep(at(3, 1), 2, at(2, 0))},
			"3:0-25 2 1:90-115|3:10-35 2 2:0-25"},
		{"a window repeated in its own document", []repeat{rep(at(0, 0), 3, at(0, 0)), rep(at(0, 1), 3, at(0, 0)), rep(at(0, 2), 3, at(0, 0))},
			"0:0-25 3 0:0-25 first|0:10-35 3 0:0-25|0:20-45 3 0:0-25"},
	} {
		var got []string
		var cur occurrence
		show := func(o *occurrence) {
			s := fmt.Sprintf("%d:%d-%d %d %d:%d-%d", o.doc, o.start, o.end, o.count, o.firstDoc, o.firstStart, o.firstEnd)
			if o.isFirst() {
				s += " first"
			}
			got = append(got, s)
		}
		for i := range tc.repeats {
			r := &tc.repeats[i]
			if i > 0 && cur.extends(r) {
				cur.extend(r)
				continue
			}
			if i > 0 {
				show(&cur)
			}
			cur = occurrenceOf(r)
		}
		show(&cur)
		if g := strings.Join(got, "|"); g != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, g, tc.want)
		}
	}
}
