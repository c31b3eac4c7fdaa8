package keep

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync/atomic"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/document"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/intern"
	"github.com/neardup/neardup/internal/parts"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
)

// This file is keep --drop-parts, a stage of its own in keep's binary
// (RunDropParts): the documents written back with the byte ranges of the
// parts listed (the ids of the parts stage, doc#START-END) cut out of their
// texts, every other byte as it was. A document left with white space only
// is dropped and counted. It shares with keep's rules only the reading and
// writing of documents.
//
// Memory: the part ids, 24 bytes a part plus, per document named, its id
// interned (about 20 bytes and the id) and 4 bytes; the documents stream.

// DropPartsOptions configure keep --drop-parts.
type DropPartsOptions struct {
	// Parts names the file of part ids (parts), or of records of seen or
	// spans, whose first field is one.
	Parts string
	// Report names a file that gets the ranges removed.
	Report string

	// Reading and Given read the documents as they do in Options, by the
	// parts (or spans) header of Parts.
	input.Reading
	Given input.ReadingFlags

	stream.Common

	// reading is how the documents are read, once resolved.
	reading input.Reading
}

// dropPartsOptions are the options of keep --drop-parts among keep's.
func (o *Options) dropPartsOptions() DropPartsOptions {
	return DropPartsOptions{Parts: o.DropParts, Report: o.Report, Reading: o.Reading, Given: o.Given, Common: o.Common}
}

// checkDropParts refuses what does not go with DropParts.
func (o *Options) checkDropParts() error {
	for _, f := range []struct {
		set  bool
		flag string
	}{
		{o.Clusters != "", "--clusters"}, {o.Pairs != "", "--pairs"}, {o.Containment, "--containment"},
		{o.Threshold != 0, "--threshold"}, {o.Drop, "--drop"}, {o.Annotate, "--annotate"},
		{o.Related, "--related"}, {o.Prefer != "" && o.Prefer != PreferFirst, "--prefer"},
	} {
		if f.set {
			return status.Usagef("--drop-parts and %s exclude each other: --drop-parts cuts parts out of every document and writes them all", f.flag)
		}
	}
	return nil
}

// partRange is a part to cut: bytes start to end of document doc's text.
type partRange struct {
	// sum is the XXH64 of the part's text when its line gave the text.
	sum             uint64
	doc, start, end uint32
	// line is the part's line in the file, its top bit set when sum is.
	line uint32
}

const (
	hasSum   = 1 << 31
	maxLines = hasSum - 1
)

// partSet is what the --drop-parts file says.
type partSet struct {
	name    string
	headers record.HeaderSet
	docs    *intern.Table
	// ranges are sorted by document, start and end; first[d] is the index
	// of document d's first, first[docs.Len()] their number.
	ranges []partRange
	first  []uint32
	// line reads a line, as the header of the stage that wrote the file
	// says (seenparts.go).
	line partLine
}

// of returns the ranges of the document with id, if any.
func (ps *partSet) of(id []byte) (uint32, []partRange, bool) {
	d, ok := ps.docs.Lookup(id)
	if !ok {
		return 0, nil, false
	}
	return d, ps.ranges[ps.first[d]:ps.first[d+1]], true
}

// pos is the place of a part's line.
func (ps *partSet) pos(r partRange) record.Pos {
	return record.Pos{File: ps.name, Line: int64(r.line &^ hasSum)}
}

// loadParts reads the --drop-parts file: a part id a line (its first
// field), and optionally, as parts writes it, TAB and the part's text,
// which the document's bytes must then be; or a record of the seen or the
// spans stage (seenparts.go).
func loadParts(ctx context.Context, name string, opt stream.Common, stderr io.Writer) (*partSet, error) {
	ps := &partSet{name: name, docs: intern.New()}
	if name == "-" {
		ps.name = input.StdinName
	}
	sc := stream.NewScanner(stream.NewLines([]string{name}))
	defer sc.Close()
	sc.OnHeader = func(h record.Header, pos record.Pos) error {
		_, err := ps.headers.Add(h, pos)
		return err
	}
	out := stream.NewOutput("keep", opt, nil, stderr)
	var text []byte
	for sc.Scan() {
		if sc.Pos().Line > maxLines {
			return nil, record.Errorf(sc.Pos(), "more than %d lines of part ids: split the file", maxLines)
		}
		err := ps.add(sc.Line(), uint32(sc.Pos().Line), &text)
		if err != nil {
			if err := out.Bad(err, sc.Pos(), opt.SkipBad); err != nil {
				return nil, err
			}
		}
		if len(ps.ranges)%(1<<16) == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	out.Finish()
	slices.SortFunc(ps.ranges, func(a, b partRange) int {
		if a.doc != b.doc {
			return int(a.doc) - int(b.doc)
		}
		if a.start != b.start {
			return int(a.start) - int(b.start)
		}
		return int(a.end) - int(b.end)
	})
	ps.first = make([]uint32, ps.docs.Len()+1)
	i := 0
	for d := range ps.docs.Len() + 1 {
		for i < len(ps.ranges) && int(ps.ranges[i].doc) < d {
			i++
		}
		ps.first[d] = uint32(i)
	}
	return ps, nil
}

// add takes a line of the file.
func (ps *partSet) add(line []byte, lineNo uint32, text *[]byte) error {
	if ps.line == nil {
		// The headers come first: the first part's line says by them.
		ps.line = partLineOf(&ps.headers)
	}
	id, rest, withText, err := ps.line(line)
	if err != nil {
		return err
	}
	doc, start, end, err := record.ParsePartID(id)
	if err != nil {
		return err
	}
	d, _ := ps.docs.Add(doc)
	r := partRange{doc: d, start: uint32(start), end: uint32(end), line: lineNo}
	if withText {
		*text = record.Unescape((*text)[:0], rest)
		if len(*text) != end-start {
			return record.Bad("part %s: its text is %d bytes, its range %d", id, len(*text), end-start)
		}
		r.sum, r.line = xxhash.Sum64(*text), lineNo|hasSum
	}
	ps.ranges = append(ps.ranges, r)
	return nil
}

// resolvePartsReading decides how the documents are read: as the parts
// header (or the spans header) of the file says, unless the flags say otherwise (a flag that
// disagrees is refused); the flags alone without one.
func (o *DropPartsOptions) resolvePartsReading(ps *partSet) error {
	stage := "parts"
	h, ok := ps.headers.Get(stage)
	if !ok { // the occurrences of repeated spans, from the spans stage
		stage = "spans"
		h, ok = ps.headers.Get(stage)
	}
	r := input.ReadingOf(o.Format, o.IDField, o.TextField)
	if o.Given != (input.ReadingFlags{}) {
		var err error
		if r, err = o.Given.Resolve(h, ps.headers.Pos(stage), ok); err != nil {
			return status.Usage(err)
		}
	}
	switch {
	case r.Number && r.Format == input.FormatFiles:
		return status.Usagef("--number-from and --files exclude each other: a file's id is its path")
	case r.Format == input.FormatParquet || r.Format == input.FormatWARC:
		return status.Usagef("--drop-parts writes back TSV, JSON Lines, --lines and --files documents, not %s", r.Format)
	case r.Text != "":
		return status.Usagef("--drop-parts and --text %s: the parts' ranges are in the text as stored, not in a text made from HTML", r.Text)
	}
	o.reading = r
	return nil
}

// cutCounts are what the sink counts.
type cutCounts struct {
	docs, cut, emptied, repeated, ranges, bytes int64
}

// cutBatch is what a worker tells the sink of a chunk besides its output.
type cutBatch struct {
	// seen lists the documents of the file met, report the lines of the
	// report, emptied and ranges and bytes the cuts.
	seen                  []uint32
	report                []byte
	docs, emptied, ranges int64
	bytes                 int64
}

// RunDropParts reads the part ids of opt.Parts and the documents in the
// named inputs (standard input when there are none) and writes the
// documents with the parts cut out to stdout.
func RunDropParts(ctx context.Context, opt DropPartsOptions, inputs []string, stdout, stderr io.Writer) error {
	if opt.Parts == "-" && (len(inputs) == 0 || slices.Contains(inputs, "-")) {
		return status.Usagef("--drop-parts - and documents from standard input: only one can be read from it")
	}
	ps, err := loadParts(ctx, opt.Parts, opt.Common, stderr)
	if err != nil {
		return err
	}
	if err := opt.resolvePartsReading(ps); err != nil {
		return err
	}
	var rep *dropReport
	if opt.Report != "" {
		if rep, err = newReport(opt.Report); err != nil {
			return err
		}
		defer rep.abort()
	}
	common := opt.Common
	common.NoHeader = true // the documents are written as they came, header lines included
	out := stream.NewOutput("keep", common, stdout, stderr)
	seen := make([]bool, ps.docs.Len())
	var n cutCounts
	if err := cutParts(ctx, &opt, ps, inputs, out, func(b *cutBatch) error {
		n.add(b, seen)
		if rep == nil {
			return nil
		}
		_, err := rep.w.Write(b.report)
		return err
	}); err != nil {
		return err
	}
	if err := ps.checkSeen(seen); err != nil {
		return err
	}
	n.report(stderr, len(ps.ranges))
	if rep != nil {
		if err := rep.commit(); err != nil {
			return err
		}
	}
	return out.Finish()
}

// cutParts reads the documents and writes them to out with the parts of ps
// cut out, handing each chunk's batch to take.
func cutParts(ctx context.Context, opt *DropPartsOptions, ps *partSet, inputs []string, out *stream.Output, take func(*cutBatch) error) (err error) {
	src, files := stream.NewDocuments(inputs, opt.reading, opt.SkipBad)
	defer func() {
		// After a sink error the reader may still read src (keeper.pass).
		if err == nil {
			err = src.Close()
		}
	}()
	sink := func(r *stream.Result) error {
		if b, ok := r.Value.(*cutBatch); ok {
			if err := take(b); err != nil {
				return err
			}
		}
		if _, err := out.W.Write(r.Out); err != nil {
			return err
		}
		out.Count(r.Records)
		out.Skip(r.Skipped, r.NSkipped)
		return r.Err
	}
	noID := new(atomic.Int64)
	stop := out.Watch(src)
	err = stream.Run(ctx, src, opt.Common, func() stream.Worker {
		return &cutWorker{ps: ps, skipBad: opt.SkipBad, parser: input.NewReadingParser(opt.reading, noID),
			json: input.JSONFields{IDKey: opt.reading.IDField, TextKey: opt.reading.TextField}}
	}, sink)
	stop()
	if err != nil {
		return err
	}
	if files != nil {
		files.Report(out.Stderr, "keep")
	}
	if l, ok := src.(*stream.Lines); ok {
		l.Report(out.Stderr, "keep")
	}
	document.ReportNoID(out.Stderr, "keep", opt.reading.IDField, noID)
	return nil
}

// add counts a batch; seen[d] notes document d of the file met.
func (n *cutCounts) add(b *cutBatch, seen []bool) {
	for _, d := range b.seen {
		if seen[d] {
			n.repeated++
		}
		seen[d] = true
	}
	n.docs += b.docs
	n.cut += int64(len(b.seen))
	n.emptied += b.emptied
	n.ranges += b.ranges
	n.bytes += b.bytes
}

// report says on stderr what was cut of the parts.
func (n *cutCounts) report(stderr io.Writer, parts int) {
	fmt.Fprintf(stderr, "keep: cut %d range(s), %d bytes, of %d part(s) from %d of %d document(s); %d left with white space only, dropped\n",
		n.ranges, n.bytes, parts, n.cut, n.docs, n.emptied)
	if n.repeated > 0 {
		fmt.Fprintf(stderr, "keep: %d document(s) repeat the id of a document met before: the parts cut from each\n", n.repeated)
	}
}

// checkSeen refuses parts of documents that were not read, naming the
// line of the first and how many documents.
func (ps *partSet) checkSeen(seen []bool) error {
	missing, first := 0, -1
	for d, s := range seen {
		if !s {
			missing++
			if first < 0 || ps.ranges[ps.first[d]].line&^hasSum < ps.ranges[ps.first[first]].line&^hasSum {
				first = d
			}
		}
	}
	if missing == 0 {
		return nil
	}
	r := ps.ranges[ps.first[first]]
	return record.Errorf(ps.pos(r), "part of document %s, which is not among the documents read (%d of the %d documents the parts name are not); read the documents as parts did (--format, --id-field, --number-from)",
		ps.docs.ID(uint32(first)), missing, len(seen))
}

// cutWorker writes the documents of a chunk with their parts cut out.
type cutWorker struct {
	ps      *partSet
	skipBad bool
	parser  *input.DocParser
	json    input.JSONFields
	id      []byte
	cuts    [][2]int
	text    []byte
}

func (w *cutWorker) Process(c *stream.Chunk, r *stream.Result) {
	b := &cutBatch{}
	r.Value = b
	if _, ok := c.Value.(*input.ParquetGroup); ok {
		r.Err = status.Usagef("%s: --drop-parts writes back TSV, JSON Lines, --lines and --files documents, not Parquet", c.File)
		return
	}
	if c.Docs != nil || c.Skipped != nil {
		for _, e := range c.Skipped {
			r.Fail(e, e.Pos, true)
		}
		for _, d := range c.Docs {
			if d.Record != nil {
				r.Err = status.Usagef("%s: --drop-parts writes back TSV, JSON Lines, --lines and --files documents, not %s", c.File, c.Format)
				return
			}
			r.Records++
			w.id = input.FileID(w.id[:0], d.Name)
			if err := w.document(r, b, input.FormatFiles, record.Pos{File: d.Name}, nil, nil, w.id, w.parser.Text(d.Data)); err != nil {
				r.Err = err
				return
			}
		}
		return
	}
	rawLines(c, func(raw, line []byte, _ int, pos record.Pos, ordinal int64) bool {
		if record.IsHeader(line) {
			r.Out = append(r.Out, raw...)
			return true
		}
		r.Records++
		id, text, err := w.parser.Parse(c.Format, line, ordinal)
		if err != nil {
			return r.Fail(err, pos, w.skipBad)
		}
		if err := w.document(r, b, c.Format, pos, line, raw[len(line):], id, text); err != nil {
			r.Err = err
			return false
		}
		return true
	})
}

// document writes one document, line and eol as read (nil for a file),
// with the parts of id cut out of text; pos is its place, for messages.
func (w *cutWorker) document(r *stream.Result, b *cutBatch, format string, pos record.Pos, line, eol, id, text []byte) error {
	b.docs++
	d, rs, ok := w.ps.of(id)
	if !ok {
		if format == input.FormatFiles {
			r.Out = append(append(append(r.Out, id...), '\t'), record.Escape(nil, text)...)
			r.Out = append(r.Out, '\n')
			return nil
		}
		r.Out = append(append(r.Out, line...), eol...)
		return nil
	}
	b.seen = append(b.seen, d)
	w.cuts = w.cuts[:0]
	for _, rg := range rs {
		start, end := int(rg.start), int(rg.end)
		if end > len(text) {
			return record.Errorf(w.ps.pos(rg), "part %s: bytes %d-%d are past the end of the text of document %s (%s), %d bytes; read the documents as parts did (--format, --text-field, --number-from)",
				record.AppendPartID(nil, id, start, end), start, end, id, pos, len(text))
		}
		if i, ok := charBoundaries(text, start, end); !ok {
			return record.Errorf(w.ps.pos(rg), "part %s: byte %d is inside a character of the text of document %s (%s): a part's range must start and end between characters (the cut would leave invalid UTF-8); read the documents as parts did (--format, --text-field, --number-from)",
				record.AppendPartID(nil, id, start, end), i, id, pos)
		}
		if rg.line&hasSum != 0 && xxhash.Sum64(text[start:end]) != rg.sum {
			return record.Errorf(w.ps.pos(rg), "part %s: its text is not bytes %d-%d of document %s (%s): read the documents as parts did (--format, --text-field, --number-from)",
				record.AppendPartID(nil, id, start, end), start, end, id, pos)
		}
		if n := len(w.cuts); n > 0 && start <= w.cuts[n-1][1] {
			w.cuts[n-1][1] = max(w.cuts[n-1][1], end) // overlapping or touching: one cut
			continue
		}
		w.cuts = append(w.cuts, [2]int{start, end})
	}
	blank := true
	prev := 0
	for _, c := range w.cuts {
		blank = blank && parts.IsBlank(text[prev:c[0]])
		prev = c[1]
		b.ranges++
		b.bytes += int64(c[1] - c[0])
		b.report = record.AppendRemoved(b.report, record.Removed{Doc: id, Start: c[0], End: c[1]})
	}
	if blank && parts.IsBlank(text[prev:]) {
		b.emptied++
		return nil
	}
	switch format {
	case input.FormatFiles:
		r.Out = append(append(r.Out, id...), '\t')
		r.Out = record.Escape(r.Out, w.left(text))
		r.Out = append(r.Out, '\n')
		return nil
	case input.FormatLines:
		r.Out = append(r.Out, w.left(text)...)
	case input.FormatJSONL:
		_, v, err := w.json.Parse(line)
		if err != nil || !v.IsString {
			return fmt.Errorf("%s: the text field was read, then not found: %v", pos, err)
		}
		r.Out = append(r.Out, line[:v.Start]...)
		var ok bool
		if r.Out, ok = input.CutJSONString(r.Out, line[v.Start:v.End], w.cuts); !ok {
			r.Out = appendJSONString(r.Out, w.left(text)) // a cut inside an escape: encoded anew
		}
		r.Out = append(r.Out, line[v.End:]...)
	default: // TSV
		rawID, rawText, _ := record.Cut(line)
		r.Out = append(append(r.Out, rawID...), '\t')
		r.Out = record.CutEscaped(r.Out, rawText, w.cuts)
	}
	r.Out = append(r.Out, eol...)
	return nil
}

// charBoundaries says whether start and end fall between the characters
// of text, and if not returns the first that does not: inside a valid
// UTF-8 sequence of several bytes. Bytes that are not valid UTF-8 are
// characters of their own.
func charBoundaries(text []byte, start, end int) (int, bool) {
	for _, i := range [2]int{start, end} {
		if i <= 0 || i >= len(text) || utf8.RuneStart(text[i]) {
			continue
		}
		for j := i - 1; j >= max(i-utf8.UTFMax+1, 0); j-- {
			if utf8.RuneStart(text[j]) {
				if r, size := utf8.DecodeRune(text[j:]); r != utf8.RuneError || size > 1 {
					if j+size > i {
						return i, false
					}
				}
				break
			}
		}
	}
	return 0, true
}

// left returns text without the cuts.
func (w *cutWorker) left(text []byte) []byte {
	w.text = w.text[:0]
	prev := 0
	for _, c := range w.cuts {
		w.text = append(w.text, text[prev:c[0]]...)
		prev = c[1]
	}
	return append(w.text, text[prev:]...)
}
