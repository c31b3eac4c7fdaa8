package spans

import (
	"cmp"
	"encoding/binary"
)

// window is a window of the corpus in the sort by key: its key, its place
// (the document's number among those with a window, in arrival order, times
// 2^32, plus the window's first token) and its byte range.
type window struct {
	key
	pos        uint64
	start, end uint32
}

var windowCodec = codec[window]{
	size:       32,
	bucket:     func(w *window) uint8 { return uint8(w.k0 >> 53) }, // (k0 < 2^61)
	radix:      func(w *window) uint64 { return w.k0 },
	radixShift: 53,
	put: func(b []byte, w *window) {
		binary.LittleEndian.PutUint64(b, w.k0)
		binary.LittleEndian.PutUint64(b[8:], w.k1)
		binary.LittleEndian.PutUint64(b[16:], w.pos)
		binary.LittleEndian.PutUint32(b[24:], w.start)
		binary.LittleEndian.PutUint32(b[28:], w.end)
	},
	get: func(b []byte, w *window) {
		w.k0 = binary.LittleEndian.Uint64(b)
		w.k1 = binary.LittleEndian.Uint64(b[8:])
		w.pos = binary.LittleEndian.Uint64(b[16:])
		w.start = binary.LittleEndian.Uint32(b[24:])
		w.end = binary.LittleEndian.Uint32(b[28:])
	},
	cmp: func(a, b window) int {
		if c := cmp.Compare(a.k0, b.k0); c != 0 {
			return c
		}
		if c := cmp.Compare(a.k1, b.k1); c != 0 {
			return c
		}
		return cmp.Compare(a.pos, b.pos)
	},
}

// repeat is a window that occurs in count places, in the sort by place:
// its place and byte range, and the place and byte range of the first.
type repeat struct {
	pos, first           uint64
	count                uint32
	start, end           uint32
	firstStart, firstEnd uint32
}

var repeatCodec = codec[repeat]{
	size: 36,
	put: func(b []byte, r *repeat) {
		binary.LittleEndian.PutUint64(b, r.pos)
		binary.LittleEndian.PutUint64(b[8:], r.first)
		binary.LittleEndian.PutUint32(b[16:], r.count)
		binary.LittleEndian.PutUint32(b[20:], r.start)
		binary.LittleEndian.PutUint32(b[24:], r.end)
		binary.LittleEndian.PutUint32(b[28:], r.firstStart)
		binary.LittleEndian.PutUint32(b[32:], r.firstEnd)
	},
	get: func(b []byte, r *repeat) {
		r.pos = binary.LittleEndian.Uint64(b)
		r.first = binary.LittleEndian.Uint64(b[8:])
		r.count = binary.LittleEndian.Uint32(b[16:])
		r.start = binary.LittleEndian.Uint32(b[20:])
		r.end = binary.LittleEndian.Uint32(b[24:])
		r.firstStart = binary.LittleEndian.Uint32(b[28:])
		r.firstEnd = binary.LittleEndian.Uint32(b[32:])
	},
	cmp: func(a, b repeat) int { return cmp.Compare(a.pos, b.pos) },
}

// docOf and tokenOf split a place.
func docOf(pos uint64) uint32   { return uint32(pos >> 32) }
func tokenOf(pos uint64) uint32 { return uint32(pos) }

// occurrence is a record in the making: a run of consecutive repeated
// windows of one document with the same count whose first places are
// consecutive windows of one document too (ranges.go).
type occurrence struct {
	last, lastFirst      uint64 // the places of its last window and of that window's first
	doc, firstDoc        uint32
	count                uint32
	start, end           uint32
	firstStart, firstEnd uint32
}

// extends reports whether r, the next repeated window in place order, goes
// on with o: the next window of the same document, with the same count,
// whose first place is the next window after the first place of o's last
// window, in the same document.
func (o *occurrence) extends(r *repeat) bool {
	return r.pos == o.last+1 && docOf(r.pos) == o.doc &&
		r.count == o.count && r.first == o.lastFirst+1 && docOf(r.first) == o.firstDoc
}

// extend takes r into o.
func (o *occurrence) extend(r *repeat) {
	o.last, o.lastFirst = r.pos, r.first
	o.end, o.firstEnd = r.end, r.firstEnd
}

// occurrenceOf starts an occurrence at r.
func occurrenceOf(r *repeat) occurrence {
	return occurrence{last: r.pos, lastFirst: r.first, doc: docOf(r.pos), firstDoc: docOf(r.first),
		count: r.count, start: r.start, end: r.end, firstStart: r.firstStart, firstEnd: r.firstEnd}
}

// isFirst reports whether o is the first place of its windows.
func (o *occurrence) isFirst() bool { return o.last == o.lastFirst }
