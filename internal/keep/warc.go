package keep

import (
	"bytes"
	"fmt"
	"io"
	"slices"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// Records of a format read as records (WARC) are written byte for byte as
// stored: a .warc.gz's gzip members copied unchanged, so that the output is
// the same kind of file. Besides the documents (response and resource
// records):
//
//	warcinfo                  copied (isRecord)
//	request, metadata,        written with the document they concern when
//	revisit (isRelated)       Options.Related is set, else dropped; counted
//
// A related record concerns a document when one names the other
// (WARC-Concurrent-To, WARC-Refers-To: a request and the response
// concurrent to it) or, failing that, when it shares the document's
// WARC-Target-URI and comes next to it (nothing but related records
// between). Records are written in input order.

const (
	isRecord  = -3 // a record copied as it is
	isRelated = -4 // a record that concerns a document
)

// relatedRecord is a related record waiting for the document it concerns.
type relatedRecord struct {
	data, key, uri []byte
	concerns       [][]byte
}

// warcWriter holds the related records met since the last document.
type warcWriter struct {
	related bool
	pending []relatedRecord
	// last is the last document and whether it was written.
	last        relatedRecord
	lastWritten bool
	haveLast    bool

	written, dropped, unattached int64
}

func newRelated(rec *input.Record, data []byte) relatedRecord {
	r := relatedRecord{data: slices.Clone(data), key: slices.Clone(rec.Key), uri: slices.Clone(rec.URI)}
	for _, c := range rec.Concerns {
		r.concerns = append(r.concerns, slices.Clone(c))
	}
	return r
}

// names says whether a or b names the other (Concurrent-To, Refers-To).
func names(a, b relatedRecord) bool {
	in := func(k []byte, ks [][]byte) bool {
		return len(k) > 0 && slices.ContainsFunc(ks, func(c []byte) bool { return bytes.Equal(c, k) })
	}
	return in(b.key, a.concerns) || in(a.key, b.concerns)
}

// relatedRecord takes a related record in input order.
func (ww *warcWriter) relatedRecord(w io.Writer, r relatedRecord) error {
	if ww.haveLast && len(ww.pending) == 0 && names(r, ww.last) {
		return ww.decide(w, r, ww.lastWritten)
	}
	ww.pending = append(ww.pending, r)
	return nil
}

// document takes a document in input order, written or not, after the
// related records before it.
func (ww *warcWriter) document(w io.Writer, doc relatedRecord, written bool, data []byte) error {
	for _, p := range ww.pending {
		switch {
		case names(p, doc) || !names(p, ww.last) && bytes.Equal(p.uri, doc.uri) && len(p.uri) > 0:
			if err := ww.decide(w, p, written); err != nil {
				return err
			}
		case ww.haveLast && (names(p, ww.last) || bytes.Equal(p.uri, ww.last.uri) && len(p.uri) > 0):
			if err := ww.decide(w, p, ww.lastWritten); err != nil {
				return err
			}
		default:
			ww.unattached++
		}
	}
	ww.pending = ww.pending[:0]
	ww.last, ww.lastWritten, ww.haveLast = doc, written, true
	if written {
		_, err := w.Write(data)
		return err
	}
	return nil
}

// finish decides the related records after the last document.
func (ww *warcWriter) finish(w io.Writer) error {
	for _, p := range ww.pending {
		if ww.haveLast && (names(p, ww.last) || bytes.Equal(p.uri, ww.last.uri) && len(p.uri) > 0) {
			if err := ww.decide(w, p, ww.lastWritten); err != nil {
				return err
			}
			continue
		}
		ww.unattached++
	}
	ww.pending = nil
	return nil
}

func (ww *warcWriter) decide(w io.Writer, r relatedRecord, docWritten bool) error {
	if !ww.related || !docWritten {
		ww.dropped++
		return nil
	}
	ww.written++
	_, err := w.Write(r.data)
	return err
}

// report says on stderr what became of the related records.
func (ww *warcWriter) report(stderr io.Writer) {
	if ww.written+ww.dropped+ww.unattached == 0 {
		return
	}
	if ww.related {
		fmt.Fprintf(stderr, "keep: WARC request, metadata and revisit records: %d written with their document, %d dropped with theirs, %d concerning no document dropped\n",
			ww.written, ww.dropped, ww.unattached)
		return
	}
	fmt.Fprintf(stderr, "keep: WARC request, metadata and revisit records: %d dropped (give --related to write those of the documents written), %d concerning no document dropped\n",
		ww.dropped, ww.unattached)
}

// addRecord notes a record of a format read as records (a WARC record):
// a document like a line, the others to copy or to go with their document.
func (w *worker) addRecord(r *stream.Result, b *batch, c *stream.Chunk, rec *input.Record, ordinal int64) bool {
	if rec.Stored == nil {
		return r.Fail(&record.Error{Pos: record.Pos{File: c.File}, Msg: rec.Place() + ": the record shares its gzip member with others: keep writes records byte for byte, one gzip member each (recompress the file record by record)"}, record.Pos{File: c.File}, false)
	}
	switch rec.Kind {
	case input.RecordCopy, input.RecordRelated:
		d := doc{cluster: isRecord, start: len(r.Out)}
		if rec.Kind == input.RecordRelated {
			d.cluster = isRelated
			d.idStart = len(b.related)
			b.related = append(b.related, newRelated(rec, nil))
		}
		if !w.k.first {
			r.Out = append(r.Out, rec.Stored...)
		}
		d.lineEnd, d.end = len(r.Out), len(r.Out)
		b.docs = append(b.docs, d)
		return true
	}
	r.Records++
	id, text, err := w.parser.Record(c.Format, c.File, rec, ordinal)
	if err != nil {
		return r.Fail(err, record.Pos{File: c.File}, w.k.opt.SkipBad)
	}
	w.add(r, b, c.Format, rec.Stored, nil, -1, id, int64(len(text)))
	b.docs[len(b.docs)-1].record = len(b.related) + 1
	b.related = append(b.related, newRelated(rec, nil))
	return true
}
