package keep

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"sync/atomic"
	"unicode/utf8"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
)

// keeper decides, document by document in input order, what is written.
type keeper struct {
	opt    *Options
	rule   rule
	first  bool        // in the first of two passes
	docNo  int64       // the document's number in the current pass
	rep    *dropReport // with Report
	buf    []byte      // an annotated line
	name   []byte
	sample []byte // the id of the first document read, for messages
	anyDoc bool
	noID   *atomic.Int64
	pq     *parquetOut // the output, for Parquet documents
	// own writes the documents' own ids with arrival numbers (ownids.go).
	own *ownIDs

	tally
}

// doc is a document as a worker found it.
type doc struct {
	// start, lineEnd and end delimit in the result's Out the line and its
	// line end; the document's id is in the batch's ids at idStart:idEnd.
	start, lineEnd, end int
	idStart, idEnd      int
	// With arrival numbers the document's own id (input.DocParser.OwnID)
	// is in the batch's ids at ownStart:ownEnd.
	ownStart, ownEnd int
	jsonl            bool
	// cluster is the document's cluster (with Pairs: 0 when it is in a
	// pair), notInCluster, or isHeader for a header line, which is copied
	// (rule.find).
	cluster int64
	member  uint32
	num     uint64 // the arrival number, with the numbered rule
	length  int64
	// record is, for a record of a format read as records (WARC), 1 + its
	// index in the batch's related.
	record int
	// row is a Parquet document's row in its row group, from 0.
	row int64
}

const (
	notInCluster = -1
	isHeader     = -2
)

type batch struct {
	docs []doc
	ids  []byte
	// firstID is the id of the chunk's first document.
	firstID []byte
	// related holds the links of WARC records (warc.go).
	related []relatedRecord
	// data is the chunk of lines the documents are in (Result.Hold), nil
	// when they were copied to the result's Out.
	data []byte
	// group is the Parquet row group the documents are rows of (nil for
	// lines and files), referenced until the sink has written it; kept
	// holds the rows written.
	group *input.ParquetGroup
	kept  []int64
}

// pass reads the documents once: in the first of two passes the rule notes
// what it needs, the others write to out.
func (k *keeper) pass(ctx context.Context, inputs []string, out *stream.Output) (err error) {
	src, f := stream.NewDocuments(inputs, k.opt.reading, k.opt.SkipBad)
	if f != nil && !k.first {
		// What the walk did not read, said once: by the pass that
		// writes.
		defer func() {
			if err == nil {
				f.Report(out.Stderr, "keep")
			}
		}()
	}
	if l, ok := src.(*stream.Lines); ok {
		l.Stored = true // keep copies records as stored
	}
	defer func() {
		// After a sink error stream.Run returns while its reader may still
		// read src: closing src then would pull the file from under it.
		if err == nil {
			err = src.Close()
		}
	}()
	if !k.first {
		defer out.Watch(src)()
	}
	k.docNo = 0
	ww := &warcWriter{related: k.opt.Related}
	newWorker := func() stream.Worker {
		return &worker{k: k, parser: input.NewReadingParser(k.opt.reading, k.noID)}
	}
	sink := func(r *stream.Result) error {
		b, _ := r.Value.(*batch)
		if b == nil {
			return r.Err
		}
		data := r.Out
		if b.data != nil {
			data = b.data
		}
		if err := k.batch(b, data, r.Err == nil, ww, out); err != nil {
			return err
		}
		out.Count(r.Records)
		out.Skip(r.Skipped, r.NSkipped)
		return r.Err
	}
	if err := stream.Run(ctx, src, k.opt.Common, newWorker, sink); err != nil {
		return err
	}
	if k.first {
		return nil
	}
	if err := ww.finish(out.W); err != nil {
		return err
	}
	if lines, ok := src.(*stream.Lines); ok {
		lines.Report(out.Stderr, "keep")
	}
	ww.report(out.Stderr)
	return out.Finish()
}

// batch takes a chunk's documents in input order, their bytes in data:
// each decided and, but in a first pass, written to out; complete says the
// chunk was read to its end.
func (k *keeper) batch(b *batch, data []byte, complete bool, ww *warcWriter, out *stream.Output) error {
	if b.group != nil {
		defer b.group.Release()
		b.kept = b.kept[:0]
	}
	if k.sample == nil && b.firstID != nil {
		k.sample = b.firstID
	}
	for _, d := range b.docs {
		if err := k.document(d, b, data, ww, out.W); err != nil {
			return err
		}
	}
	if b.group != nil && !k.first && complete {
		return k.writeParquet(b.group, b.kept, out.W, out.Stderr)
	}
	return nil
}

// document takes the next document, or record or header line, of b.
func (k *keeper) document(d doc, b *batch, data []byte, ww *warcWriter, w *record.Writer) error {
	switch d.cluster {
	case isRecord:
		if k.first {
			return nil
		}
		_, err := w.Write(data[d.start:d.end])
		return err
	case isRelated:
		if k.first {
			return nil
		}
		rel := b.related[d.idStart]
		rel.data = slices.Clone(data[d.start:d.end])
		return ww.relatedRecord(w, rel)
	case isHeader:
	default:
		k.anyDoc = true
	}
	write, name, err := k.keep(d, b)
	if err != nil {
		return err
	}
	switch {
	case d.record > 0:
		if k.opt.Annotate {
			return status.Usagef("--annotate does not go with WARC input: a record can't carry its cluster's name (keep writes WARC records byte for byte)")
		}
		if k.first {
			return nil
		}
		return ww.document(w, b.related[d.record-1], write, data[d.start:d.end])
	case !write:
		return nil
	case b.group != nil:
		b.kept = append(b.kept, d.row)
		return nil
	}
	line := data[d.start:d.end]
	if k.opt.Annotate && d.cluster != isHeader {
		line = k.annotate(data[d.start:d.lineEnd], data[d.lineEnd:d.end], name, d.jsonl)
	}
	_, err = w.Write(line)
	return err
}

// keep takes the next document in input order and says whether to write
// it, and the name of its cluster (the kept document's id) for Annotate; in
// a first pass the rule notes what the second needs and nothing is written.
func (k *keeper) keep(d doc, b *batch) (bool, []byte, error) {
	if d.cluster == isHeader {
		// Copied whatever is written: the headers say what the records
		// are and how their documents were read (the parts header, which
		// keep --drop-parts reads).
		return !k.first, nil, nil
	}
	n := k.docNo
	k.docNo++
	id := b.ids[d.idStart:d.idEnd]
	if k.first {
		return false, nil, k.rule.note(d, n, id)
	}
	k.docs++
	var own []byte
	if k.own != nil {
		own = b.ids[d.ownStart:d.ownEnd]
		if err := k.own.document(id, own); err != nil {
			return false, nil, err
		}
	}
	v, err := k.rule.decide(d, n, id)
	if err != nil || !v.in {
		// In no cluster, no pair: a cluster of its own.
		return k.write(true), id, err
	}
	k.inClusters++
	if v.stays {
		return k.write(true), v.name, nil
	}
	k.dropped++
	if k.rep != nil {
		v.dropped.Kept = v.name
		if k.own != nil {
			v.dropped.Own = k.own.of(own, v.dropped)
		}
		if err := k.rep.add(v.dropped); err != nil {
			return false, nil, err
		}
	}
	return k.write(false), v.name, nil
}

// write says whether a document that stays or not is written, and counts it.
func (k *keeper) write(stays bool) bool {
	w := stays != k.opt.Drop
	if k.opt.Annotate && !k.opt.Drop {
		w = true // every document, annotated
	}
	if w {
		k.written++
	}
	return w
}

type worker struct {
	k      *keeper
	parser *input.DocParser
	id     []byte
}

func (w *worker) Process(c *stream.Chunk, r *stream.Result) {
	b := &batch{}
	r.Value = b
	if c.Docs != nil || c.Skipped != nil {
		for _, e := range c.Skipped {
			r.Fail(e, e.Pos, true)
		}
		ordinal := c.FirstOrdinal
		for _, d := range c.Docs {
			if d.Record != nil {
				if d.Record.Kind == input.RecordDocument {
					ordinal++
				}
				if !w.addRecord(r, b, c, d.Record, ordinal-1) {
					return
				}
				continue
			}
			r.Records++
			w.id = input.FileID(w.id[:0], d.Name)
			w.add(r, b, input.FormatFiles, w.id, []byte{'\n'}, -1, w.id, int64(len(w.parser.Text(d.Data))))
		}
		return
	}
	if g, ok := c.Value.(*input.ParquetGroup); ok {
		w.parquet(c, g, r, b)
		return
	}
	format := c.Format
	if !w.k.first {
		// The sink writes the lines from the chunk: not copied.
		r.Hold(c)
		b.data = c.Data
	}
	rawLines(c, func(raw, line []byte, at int, pos record.Pos, ordinal int64) bool {
		if record.IsHeader(line) {
			end := at + len(raw)
			b.docs = append(b.docs, doc{start: at, lineEnd: end, end: end, cluster: isHeader})
			return true
		}
		r.Records++
		var id, text []byte
		var err error
		if w.k.opt.lengths() {
			id, text, err = w.parser.Parse(format, line, ordinal)
		} else {
			id, err = w.parser.ParseID(format, line, ordinal)
		}
		if err != nil {
			return r.Fail(err, pos, w.k.opt.SkipBad)
		}
		w.add(r, b, format, line, raw[len(line):], at, id, int64(len(text)))
		return true
	})
}

// parquet notes the documents of a Parquet row group; the sink copies the
// rows kept.
func (w *worker) parquet(c *stream.Chunk, g *input.ParquetGroup, r *stream.Result, b *batch) {
	g.File.Ref()
	b.group = &input.ParquetGroup{File: g.File, Index: g.Index}
	ordinal, row := c.FirstOrdinal, int64(0)
	err := g.File.ReadGroup(g.Index, func(d *input.ParquetDocument) error {
		r.Records++
		id, text, err := w.parser.ParquetDoc(d, ordinal)
		ordinal++
		row++
		if err != nil {
			if r.Fail(err, record.Pos{File: c.File, Line: d.Row}, w.k.opt.SkipBad) {
				return nil
			}
			return errStopGroup
		}
		w.add(r, b, input.FormatParquet, nil, nil, -1, id, int64(len(text)))
		b.docs[len(b.docs)-1].row = row - 1
		return nil
	})
	if err != nil && err != errStopGroup {
		r.Err = err
	}
}

var errStopGroup = errors.New("stop")

// add notes a document: its cluster (or pair), its id, and unless in a
// first pass the bytes to write, line and eol: where they are in the batch's
// data when it has any (at), a copy in the result's Out otherwise.
func (w *worker) add(r *stream.Result, b *batch, format string, line, eol []byte, at int, id []byte, length int64) {
	if b.firstID == nil {
		b.firstID = append([]byte{}, id...)
	}
	d := doc{length: length, jsonl: format == input.FormatJSONL}
	d.cluster, d.member, d.num = w.k.rule.find(id)
	d.idStart = len(b.ids)
	b.ids = append(b.ids, id...)
	d.idEnd = len(b.ids)
	if w.k.opt.reading.Number {
		if format != input.FormatFiles {
			id = w.parser.OwnID()
		}
		b.ids = append(b.ids, id...)
	}
	d.ownStart, d.ownEnd = d.idEnd, len(b.ids)
	switch {
	case b.data != nil:
		d.start, d.lineEnd = at, at+len(line)
		d.end = d.lineEnd + len(eol)
	case !w.k.first:
		d.start = len(r.Out)
		r.Out = append(r.Out, line...)
		d.lineEnd = len(r.Out)
		r.Out = append(r.Out, eol...)
		d.end = len(r.Out)
	default:
		d.start, d.end = len(r.Out), len(r.Out)
	}
	b.docs = append(b.docs, d)
}

// annotate returns line with its cluster's name: for JSON Lines the field
// ClusterField set to name (in its escaped record form) added last, a last
// column otherwise; then eol.
func (k *keeper) annotate(line, eol, name []byte, jsonl bool) []byte {
	dst := k.buf[:0]
	if jsonl {
		j := bytes.LastIndexByte(line, '}')
		dst = append(dst, line[:j]...)
		if before := bytes.TrimRight(line[:j], " \t\r\n"); before[len(before)-1] != '{' {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, []byte(k.opt.ClusterField))
		dst = append(dst, ':')
		k.name = record.UnescapeID(k.name[:0], name)
		dst = appendJSONString(dst, k.name)
		dst = append(dst, line[j:]...)
	} else {
		dst = append(dst, line...)
		dst = append(dst, '\t')
		dst = append(dst, name...)
	}
	dst = append(dst, eol...)
	k.buf = dst
	return dst
}

// appendJSONString appends s as a JSON string. Bytes that are not UTF-8
// are copied as they are, as the document's own id was.
func appendJSONString(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for len(s) > 0 {
		c := s[0]
		if c >= utf8.RuneSelf {
			_, n := utf8.DecodeRune(s)
			dst = append(dst, s[:n]...)
			s = s[n:]
			continue
		}
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			dst = append(dst, c)
		}
		s = s[1:]
	}
	return append(dst, '"')
}

// writeParquet writes the rows kept of a Parquet row group, starting the
// Parquet output at the first.
func (k *keeper) writeParquet(g *input.ParquetGroup, kept []int64, w io.Writer, stderr io.Writer) error {
	if k.pq == nil {
		k.pq = newParquetOut(w, g.File, stderr)
	}
	return k.pq.writeGroup(g, kept)
}
