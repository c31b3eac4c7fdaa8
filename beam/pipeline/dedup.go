package pipeline

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/keep"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// The dedup outputs: what examples/dedup.sh ends with, keep --pairs over
// the verified pairs, with the same rules: the arrival rule here
// (docs/DESIGN.md "What a dedup drops", internal/keep/rule.go), the kept
// rule in keptrule.go. In arrival order a document is dropped
// when it has a verified pair with a document that arrived before it, kept
// or dropped; the ids are arrival numbers (Options.Number), so the dropped
// documents are exactly the later ids of the verified pairs, found without
// an order: each pair names its later document. The report's via is a
// dropped document's most similar earlier partner (ties to the earliest),
// found by grouping its pairs; its kept document is where the chain of vias
// ends, found by rounds of pointer jumping (each round a document's pointer
// moves to its target's target, so a chain of 2^rounds vias is settled),
// and what is left unsettled after ComponentRounds rounds is followed on
// one worker (counter dedup-unsettled-documents), so the result is exact
// for any number of rounds.
//
// The documents are written byte for byte as keep writes them: each line
// as read (its line end included, a last line without one given one), the
// header lines of the documents copied where they are (not among the
// documents dropped), bad lines skipped under SkipBad left out. Shards are
// ranges of arrival: shard i of n holds the lines whose place among all
// lines read is in the i-th n-th, in that order, so the shards of an
// output, concatenated in shard order, are keep's output.

// docLine is a line of the documents, or a line of the report, at the place
// of its document: Ordinal is the line's number counted across all inputs,
// from 1 (as shingle counts), and Raw its bytes, line end included.
type docLine struct {
	Ordinal int64
	Raw     []byte
}

// dropEntry is a document dropped: its id, the earlier document it was
// dropped for (Via) and their similarity, and the document its pointer is
// at: the kept document its chain ends at once Done.
type dropEntry struct {
	ID, Via string
	Sim     float64
	To      string
	Done    bool
	// Own, OwnTo and OwnVia are the own ids (input.DocParser.OwnID) of
	// ID, To and Via, for the report (ownJoinFn).
	Own, OwnTo, OwnVia string
}

func init() {
	beam.RegisterType(reflect.TypeOf((*docLine)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*dropEntry)(nil)).Elem())
	register.DoFn5x1[context.Context, Chunk, func(string, docLine), func(docLine), func(string, string), error](&linesFn{})
	register.DoFn4x0[string, func(*dropEntry) bool, func(*string) bool, func(string, dropEntry)](&ownJoinFn{})
	register.Function2x1[string, func(string, dropEntry), error](laterOfPair)
	register.Function3x0[string, func(*dropEntry) bool, func(string, dropEntry)](viaOf)
	register.Function2x2[string, dropEntry, string, dropEntry](keyByTarget)
	register.DoFn4x1[string, func(*dropEntry) bool, func(*dropEntry) bool, func(string, dropEntry), error](&jumpFn{})
	register.Function4x0[string, dropEntry, func(string, dropEntry), func(dropEntry)](splitSettled)
	register.DoFn4x0[context.Context, int, func(*dropEntry) bool, func(string, dropEntry)](&followFn{})
	register.DoFn6x1[context.Context, string, func(*docLine) bool, func(*dropEntry) bool, func(docLine), func(docLine), error](&decideFn{})
	register.DoFn2x2[string, dropEntry, docLine, error](&reportLineFn{})
	register.DoFn2x2[docLine, func(*int64) bool, int, docLine](&rangeShardFn{})
	register.DoFn5x1[context.Context, int, func(*docLine) bool, func(*bool) bool, func(string), error](&writeLinesFn{})
	register.Emitter1[docLine]()
	register.Emitter1[dropEntry]()
	register.Emitter2[string, docLine]()
	register.Emitter2[string, dropEntry]()
	register.Emitter2[string, string]()
	register.Iter1[string]()
	register.Iter1[docLine]()
	register.Iter1[dropEntry]()
}

// linesFn reads each line of a chunk of documents as keep does: a document
// goes out under its id (an arrival number), with its bytes, and its own id
// (the report's) under the same; a header line goes out on its own. Bad lines are skipped under SkipBad (the shingle
// stage, which reads the same lines, counts them) and stop the pipeline
// otherwise.
type linesFn struct {
	Opt Options
	doc *input.DocParser
}

func (fn *linesFn) Setup() error {
	so, err := fn.Opt.shingleOptions()
	if err != nil {
		return err
	}
	fn.doc = input.NewReadingParser(so.Reading, nil)
	return nil
}

func (fn *linesFn) ProcessElement(_ context.Context, c Chunk, emitDoc func(string, docLine), emitHeader func(docLine), emitOwn func(string, string)) error {
	if c.Whole {
		return fmt.Errorf("%s: the dedup outputs need arrival numbers, which a whole file has not", c.File)
	}
	format := input.ResolveFormat(fn.Opt.Format, c.File)
	data, lineNo := c.Data, c.FirstLine
	var r stream.Result
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			i = len(data) - 1 // not met: every chunk line ends in LF
		}
		raw := slices.Clone(data[:i+1])
		data = data[i+1:]
		line := record.TrimEOL(raw)
		ordinal := c.FirstOrdinal + (lineNo - c.FirstLine)
		pos := record.Pos{File: c.File, Line: lineNo}
		lineNo++
		if record.IsHeader(line) {
			emitHeader(docLine{Ordinal: ordinal, Raw: raw})
			continue
		}
		id, _, err := fn.doc.Parse(format, line, ordinal)
		if err != nil {
			if !r.Fail(err, pos, fn.Opt.SkipBad) {
				return r.Err
			}
			continue
		}
		emitDoc(string(id), docLine{Ordinal: ordinal, Raw: raw})
		emitOwn(string(id), string(fn.doc.OwnID()))
	}
	return nil
}

// ownJoinFn gives the entries of a document (grouped with its own id) the
// own id as Set says, "id" (Own), "to" (OwnTo) or "via" (OwnVia), and
// sends them on keyed by the next document to look up: To, Via, then ID.
// A document whose own id is not known gets "-", as keep writes it.
type ownJoinFn struct {
	Set string
}

func (fn *ownJoinFn) ProcessElement(_ string, entries func(*dropEntry) bool, owns func(*string) bool, emit func(string, dropEntry)) {
	own, o := "-", ""
	for owns(&o) {
		own = o
	}
	var e dropEntry
	for entries(&e) {
		switch fn.Set {
		case "id":
			e.Own = own
			emit(e.To, e)
		case "to":
			e.OwnTo = own
			emit(e.Via, e)
		default:
			e.OwnVia = own
			emit(e.ID, e)
		}
	}
}

// laterOfPair keys a verified pair by its later document, the one the rule
// drops, with the earlier one and their similarity as keep holds it (a
// float32).
func laterOfPair(scored string, emit func(string, dropEntry)) error {
	var s record.Scored
	if err := record.ParseScored(&s, []byte(scored)); err != nil {
		return fmt.Errorf("verified pair %q: %v", scored, err)
	}
	a, b := string(s.A), string(s.B)
	if b < a {
		a, b = b, a
	}
	emit(b, dropEntry{ID: b, Via: a, Sim: float64(float32(s.J)), To: a})
	return nil
}

// viaOf chooses, among a dropped document's earlier partners, the one it
// is dropped for: the most similar, ties to the earliest.
func viaOf(id string, partners func(*dropEntry) bool, emit func(string, dropEntry)) {
	var best, e dropEntry
	found := false
	for partners(&e) {
		if !found || e.Sim > best.Sim || e.Sim == best.Sim && e.Via < best.Via {
			best, found = e, true
		}
	}
	emit(id, best)
}

// keyByTarget keys an entry by the document its pointer is at.
func keyByTarget(_ string, e dropEntry) (string, dropEntry) { return e.To, e }

// jumpFn is a round of pointer jumping. Under a document's id it gets the
// entries pointing at it and its own entry, if it was dropped: an entry
// pointing at a document kept is settled; one pointing at a dropped
// document takes that document's pointer.
type jumpFn struct{}

func (*jumpFn) ProcessElement(target string, children, own func(*dropEntry) bool, emit func(string, dropEntry)) error {
	var t dropEntry
	n := 0
	for own(&t) {
		n++
	}
	if n > 1 {
		return fmt.Errorf("dedup: document %s has %d entries", target, n)
	}
	var c dropEntry
	for children(&c) {
		if n == 0 {
			c.To, c.Done = target, true
		} else {
			c.To, c.Done = t.To, t.Done
		}
		emit(c.ID, c)
	}
	return nil
}

// splitSettled sends the entries settled one way, the others, with a
// single key, the other.
func splitSettled(id string, e dropEntry, settled func(string, dropEntry), unsettled func(dropEntry)) {
	if e.Done {
		settled(id, e)
	} else {
		unsettled(e)
	}
}

// followFn follows, on one worker, the pointers of the entries left
// unsettled to the first document whose entry is settled, and emits each
// keyed by that document.
type followFn struct{}

func (*followFn) ProcessElement(ctx context.Context, _ int, entries func(*dropEntry) bool, emit func(string, dropEntry)) {
	to := map[string]string{}
	var all []dropEntry
	var e dropEntry
	for entries(&e) {
		to[e.ID] = e.To
		all = append(all, e)
	}
	beam.NewCounter("neardup", "dedup-unsettled-documents").Inc(ctx, int64(len(all)))
	for _, e := range all {
		t := e.To
		for {
			next, ok := to[t]
			if !ok {
				break
			}
			t = next
		}
		e.To = t
		emit(t, e)
	}
}

// reportLineFn makes a dropped document's line of keep --report, at the
// place of the document.
type reportLineFn struct {
	From int64
}

func (fn *reportLineFn) ProcessElement(id string, e dropEntry) (docLine, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return docLine{}, fmt.Errorf("dedup: id %q is not an arrival number", id)
	}
	line := record.AppendDropped(nil, record.Dropped{Dropped: []byte(e.ID), Kept: []byte(e.To), Via: []byte(e.Via), Similarity: e.Sim,
		Own: [][]byte{[]byte(e.Own), []byte(e.OwnTo), []byte(e.OwnVia)}})
	return docLine{Ordinal: n - fn.From + 1, Raw: line}, nil
}

// decideFn joins a document with its entry, if it was dropped, and sends
// its line to the documents kept or dropped.
type decideFn struct{}

func (*decideFn) ProcessElement(ctx context.Context, id string, lines func(*docLine) bool, drops func(*dropEntry) bool, kept, dropped func(docLine)) error {
	var e dropEntry
	isDropped := false
	for drops(&e) {
		isDropped = true
	}
	var l docLine
	n := 0
	for lines(&l) {
		n++
		if isDropped {
			dropped(l)
		} else {
			kept(l)
		}
	}
	if n == 0 {
		return fmt.Errorf("dedup: id %s is in a verified pair but has no document", id)
	}
	name := "dedup-kept-documents"
	if isDropped {
		name = "dedup-dropped-documents"
	}
	beam.NewCounter("neardup", name).Inc(ctx, int64(n))
	return nil
}

// dedupRoots applies the rule to the verified pairs (PCollection<string>):
// it returns PCollection<KV<string, dropEntry>>, a settled entry per
// document dropped, keyed by its id.
func dedupRoots(s beam.Scope, scored beam.PCollection, rounds int) beam.PCollection {
	s = s.Scope("dedup rule")
	entries := beam.ParDo(s, viaOf, beam.GroupByKey(s, beam.ParDo(s, laterOfPair, scored)))
	for range rounds {
		entries = beam.ParDo(s, &jumpFn{}, beam.CoGroupByKey(s, beam.ParDo(s, keyByTarget, entries), entries))
	}
	settled, unsettled := beam.ParDo2(s, splitSettled, entries)
	followed := beam.ParDo(s, &followFn{}, beam.GroupByKey(s, beam.AddFixedKey(s, unsettled)))
	// One more round settles them: each now points at a document whose
	// entry is settled.
	finished := beam.ParDo(s, &jumpFn{}, beam.CoGroupByKey(s, followed, settled))
	return beam.Flatten(s, settled, finished)
}

// dedup adds the dedup outputs written: the documents (chunks) decided by
// the rule applied to the verified pairs (scored), and the report. lines
// holds the number of lines read. It returns the paths written per output.
func dedup(s beam.Scope, opt Options, chunks, scored, lines beam.PCollection) map[string]beam.PCollection {
	var roots beam.PCollection
	if opt.Rule == keep.RuleKept {
		roots = keptRoots(s, scored, opt.ComponentRounds)
	} else {
		roots = dedupRoots(s, scored, opt.ComponentRounds)
	}
	s = s.Scope("dedup")
	written := map[string]beam.PCollection{}
	if !opt.writes(OutKept) && !opt.writes(OutDropped) && !opt.writes(OutReport) {
		return written
	}
	docs, headers, owns := beam.ParDo3(s, &linesFn{Opt: opt}, chunks)
	if opt.writes(OutKept) || opt.writes(OutDropped) {
		kept, dropped := beam.ParDo2(s, &decideFn{}, beam.CoGroupByKey(s, docs, roots))
		// The header lines go with both, as keep --drop writes them.
		if opt.writes(OutKept) {
			written[OutKept] = writeLines(s, opt, OutKept, beam.Flatten(s, kept, headers), lines)
		}
		if opt.writes(OutDropped) {
			written[OutDropped] = writeLines(s, opt, OutDropped, beam.Flatten(s, dropped, headers), lines)
		}
	}
	if opt.writes(OutReport) {
		// The own ids of each entry's document, kept and via documents,
		// one join each.
		entries := roots
		for _, set := range []string{"id", "to", "via"} {
			entries = beam.ParDo(s, &ownJoinFn{Set: set}, beam.CoGroupByKey(s, entries, owns))
		}
		report := beam.ParDo(s, &reportLineFn{From: opt.NumberFrom}, entries)
		written[OutReport] = writeLines(s, opt, OutReport, report, lines)
	}
	return written
}

// rangeShardFn assigns a line to the shard of its range of places.
type rangeShardFn struct {
	Shards int
}

func (fn *rangeShardFn) ProcessElement(l docLine, lines func(*int64) bool) (int, docLine) {
	var total, n int64
	for lines(&n) {
		total += n
	}
	shard := 0
	if total > 0 {
		shard = int((l.Ordinal - 1) * int64(fn.Shards) / total)
	}
	return min(max(shard, 0), fn.Shards-1), l
}

// writeLinesFn writes one shard of a dedup output: its lines in the order
// of their places, sorted in the memory of one worker.
type writeLinesFn struct {
	Prefix, Output, Ext string
	Shards              int
}

func (fn *writeLinesFn) ProcessElement(ctx context.Context, shard int, lines func(*docLine) bool, _ func(*bool) bool, emitPath func(string)) error {
	var all []docLine
	var l docLine
	for lines(&l) {
		all = append(all, l)
	}
	slices.SortFunc(all, func(a, b docLine) int { return cmp.Compare(a.Ordinal, b.Ordinal) })
	path := shardName(fn.Prefix, fn.Output, shard, fn.Shards, fn.Ext)
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return err
	}
	defer fs.Close()
	f, err := fs.OpenWrite(ctx, path)
	if err != nil {
		return err
	}
	var buf []byte
	for _, l := range all {
		buf = append(buf, l.Raw...)
		if len(buf) >= 1<<16 {
			if _, err = f.Write(buf); err != nil {
				break
			}
			buf = buf[:0]
		}
	}
	if err == nil && len(buf) > 0 {
		_, err = f.Write(buf)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	emitPath(path)
	return nil
}

// writeLines writes the lines (PCollection<docLine>) of a dedup output as
// its shards and returns the paths written.
func writeLines(s beam.Scope, opt Options, output string, lines, total beam.PCollection) beam.PCollection {
	s = s.Scope("write " + output)
	marks := shardMarks(s, opt.Shards)
	keyed := beam.ParDo(s, &rangeShardFn{Shards: opt.Shards}, lines, beam.SideInput{Input: total})
	fn := &writeLinesFn{Prefix: opt.Output, Output: output, Ext: opt.ext(output), Shards: opt.Shards}
	return beam.ParDo(s, fn, beam.CoGroupByKey(s, keyed, marks))
}

// Path returns the name of shard i of an output: Output-NAME-SSSSS-of-NNNNN
// and an extension, .tsv for records and the report, that of the
// documents' format for the documents kept and dropped (none when the
// inputs may mix formats).
func (o *Options) Path(output string, i int) string {
	return shardName(o.Output, output, i, o.Shards, o.ext(output))
}

// Glob returns the pattern that matches the shards of an output, in
// shard order when the shell expands it.
func (o *Options) Glob(output string) string {
	return fmt.Sprintf("%s-%s-*-of-%05d%s", o.Output, output, o.Shards, o.ext(output))
}

// ext is the extension of an output's shards.
func (o *Options) ext(output string) string {
	if output == OutKept || output == OutDropped {
		return o.documentExt()
	}
	return ".tsv"
}

// documentExt is the extension of the documents read: from the format, or
// under the automatic format from the patterns' names when they agree.
func (o *Options) documentExt() string {
	exts := map[string]string{input.FormatTSV: ".tsv", input.FormatJSONL: ".jsonl", input.FormatLines: ".txt"}
	if o.Format != input.FormatAuto {
		return exts[o.Format]
	}
	if !slices.ContainsFunc(o.Inputs, mayMatchJSONL) {
		return ".tsv"
	}
	if !slices.ContainsFunc(o.Inputs, func(p string) bool { return input.FormatOf(p) != input.FormatJSONL }) {
		return ".jsonl"
	}
	return ""
}
