package keep

import (
	"bytes"
	"context"
	"sync/atomic"
	"unicode/utf8"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// keeper decides, document by document in input order, what is written.
type keeper struct {
	opt     *Options
	cm      *clusterMap
	done    []bool   // a member of the cluster has been written
	choices []choice // the first pass's choice per cluster
	first   bool     // in the first of two passes
	docNo   int64    // the document's number in the current pass
	seen    []bool   // seen[m]: member m of the cluster file is among the documents
	sample  []byte   // the id of the first document read, for messages
	anyDoc  bool
	noID    *atomic.Int64

	docs, inClusters, written int64
}

// doc is a document as a worker found it.
type doc struct {
	// start and end delimit in the result's Out the bytes to write.
	start, end int
	// cluster is the document's cluster, notInCluster, or isHeader for a
	// header line, which is copied.
	cluster int64
	member  uint32
	length  int64
}

const (
	notInCluster = -1
	isHeader     = -2
)

type batch struct {
	docs []doc
	// firstID is the id of the chunk's first document.
	firstID []byte
}

// pass reads the documents once: the first of two passes notes each
// cluster's choice, the others write to out.
func (k *keeper) pass(ctx context.Context, inputs []string, out *stream.Output) (err error) {
	var src stream.Source
	if k.opt.Format == input.FormatFiles {
		f := stream.NewFiles(inputs)
		f.SkipBad = k.opt.SkipBad
		src = f
	} else {
		src = stream.NewLines(inputs)
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
	w := out.W
	k.docNo = 0
	newWorker := func() stream.Worker {
		return &worker{k: k, parser: input.NewReadingParser(k.opt.reading, k.noID)}
	}
	sink := func(r *stream.Result) error {
		b, _ := r.Value.(*batch)
		if b == nil {
			return r.Err
		}
		if k.sample == nil && b.firstID != nil {
			k.sample = b.firstID
		}
		for _, d := range b.docs {
			if d.cluster >= 0 {
				k.seen[d.member] = true
			}
			if d.cluster != isHeader {
				k.anyDoc = true
			}
			if k.keep(d) {
				if _, err := w.Write(r.Out[d.start:d.end]); err != nil {
					return err
				}
			}
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
	return out.Finish()
}

// keep takes the next document in input order and says whether to write
// it; in a first pass it notes the cluster's choice and writes nothing.
func (k *keeper) keep(d doc) bool {
	if d.cluster == isHeader {
		return !k.first && !k.opt.Drop
	}
	n := k.docNo
	k.docNo++
	if k.first {
		k.consider(d, n)
		return false
	}
	k.docs++
	if d.cluster >= 0 {
		k.inClusters++
	}
	write := k.decide(d, n)
	if write {
		k.written++
	}
	return write
}

func (k *keeper) decide(d doc, n int64) bool {
	if k.opt.Annotate {
		return true
	}
	if d.cluster < 0 {
		return !k.opt.Drop
	}
	c := d.cluster
	var stays bool
	if k.opt.Prefer == PreferFirst {
		stays = !k.done[c]
	} else {
		stays = !k.done[c] && k.choices[c].found && k.choices[c].doc == n
	}
	if stays {
		k.done[c] = true
	}
	return stays != k.opt.Drop
}

// consider notes document n as its cluster's choice if it is better than
// the one held. Documents come in input order, so on a tie the first stays.
func (k *keeper) consider(d doc, n int64) {
	if d.cluster < 0 {
		return
	}
	ch := &k.choices[d.cluster]
	better := !ch.found
	if !better {
		byID := k.cm.members.Compare(d.member, ch.member)
		switch k.opt.Prefer {
		case PreferID:
			better = byID < 0
		case PreferLongest:
			better = d.length > ch.length || d.length == ch.length && byID < 0
		case PreferShortest:
			better = d.length < ch.length || d.length == ch.length && byID < 0
		}
	}
	if better {
		*ch = choice{found: true, member: d.member, length: d.length, doc: n}
	}
}

type worker struct {
	k      *keeper
	parser *input.DocParser
	id     []byte
	name   []byte
}

func (w *worker) Process(c *stream.Chunk, r *stream.Result) {
	b := &batch{}
	r.Value = b
	if c.Docs != nil || c.Skipped != nil {
		for _, e := range c.Skipped {
			r.Fail(e, e.Pos, true)
		}
		for _, d := range c.Docs {
			r.Records++
			w.id = input.FileID(w.id[:0], d.Name)
			w.add(r, b, input.FormatFiles, w.id, []byte{'\n'}, w.id, int64(len(d.Data)))
		}
		return
	}
	format := input.ResolveFormat(w.k.opt.Format, c.File)
	data, lineNo := c.Data, c.FirstLine
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			i = len(data) - 1 // not met: every chunk line ends in LF
		}
		raw := data[:i+1]
		data = data[i+1:]
		line := record.TrimEOL(raw)
		eol := raw[len(line):]
		pos := record.Pos{File: c.File, Line: lineNo}
		ordinal := c.FirstOrdinal + (lineNo - c.FirstLine)
		lineNo++
		if record.IsHeader(line) {
			start := len(r.Out)
			if !w.k.first {
				r.Out = append(r.Out, raw...)
			}
			b.docs = append(b.docs, doc{start: start, end: len(r.Out), cluster: isHeader})
			continue
		}
		r.Records++
		id, text, err := w.parser.Parse(format, line, ordinal)
		if err != nil {
			if !r.Fail(err, pos, w.k.opt.SkipBad) {
				return
			}
			continue
		}
		w.add(r, b, format, line, eol, id, int64(len(text)))
	}
}

// add notes a document: its cluster, and unless in a first pass the bytes
// to write, line and eol, annotated if asked.
func (w *worker) add(r *stream.Result, b *batch, format string, line, eol, id []byte, length int64) {
	if b.firstID == nil {
		b.firstID = append([]byte{}, id...)
	}
	d := doc{cluster: notInCluster, length: length}
	cm := w.k.cm
	if m, ok := cm.members.Lookup(id); ok {
		d.member = m
		d.cluster = int64(cm.clusterOf[m])
	}
	d.start = len(r.Out)
	if !w.k.first {
		if w.k.opt.Annotate {
			name := id // a document in no cluster is a cluster of its own
			if d.cluster >= 0 {
				name = cm.names.ID(uint32(d.cluster))
			}
			if format == input.FormatJSONL {
				r.Out = w.annotateJSON(r.Out, line, name)
			} else {
				r.Out = append(r.Out, line...)
				r.Out = append(r.Out, '\t')
				r.Out = append(r.Out, name...)
			}
		} else {
			r.Out = append(r.Out, line...)
		}
		r.Out = append(r.Out, eol...)
	}
	d.end = len(r.Out)
	b.docs = append(b.docs, d)
}

// annotateJSON appends the object in line with the field ClusterField set to
// name (in its escaped record form) added last.
func (w *worker) annotateJSON(dst, line, name []byte) []byte {
	j := bytes.LastIndexByte(line, '}')
	dst = append(dst, line[:j]...)
	if before := bytes.TrimRight(line[:j], " \t\r\n"); before[len(before)-1] != '{' {
		dst = append(dst, ',')
	}
	dst = appendJSONString(dst, []byte(w.k.opt.ClusterField))
	dst = append(dst, ':')
	w.name = record.Unescape(w.name[:0], name)
	dst = appendJSONString(dst, w.name)
	return append(dst, line[j:]...)
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
