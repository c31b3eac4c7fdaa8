package verify

import (
	"bytes"
	"context"
	"io"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// runSorted reads attached pairs sorted by their first field (idB) and
// writes the scored pairs Run writes, in the order of idB.
func runSorted(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) error {
	file, values := joinFile(&opt)
	main := stream.NewLines(inputs)
	headers, first, err := main.Peek()
	if err != nil {
		main.Close()
		return err
	}
	var attach *stream.HeaderAt
	for i, h := range headers {
		if h.Header.Stage == record.AttachStage {
			attach = &headers[i]
			break
		}
	}
	if attach == nil && first != nil {
		main.Close()
		name := "<stdin>"
		if len(inputs) > 0 && inputs[0] != "-" {
			name = inputs[0]
		}
		return &record.Error{Pos: record.Pos{File: name}, Msg: "no #neardup stage=attach header before the first record: verify --sorted reads attached pairs, written by verify --attach and sorted by their first field; for candidate pairs, run verify --attach first"}
	}
	if attach != nil {
		if v, _ := attach.Header.Get("values"); v != values {
			main.Close()
			return record.Errorf(attach.Pos, "the attached pairs carry %s, but verify was given --%s", v, values)
		}
	}

	if err := bandThreshold(&opt, headers, stderr); err != nil {
		main.Close()
		return err
	}
	side := newSideReader(file)
	src := &joinSource{main: main, side: side,
		order: "id %s comes after %s (line %d): verify --sorted needs attached pairs sorted by their first field (LC_ALL=C sort -t$'\\t' -k1,1)"}
	defer src.Close()
	out := stream.NewOutput("verify", opt.Common, stdout, stderr)
	w := out.W
	hs, err := sideHeaders(side, w)
	if err != nil {
		return err
	}
	var m measure = exact{&opt}
	if opt.Sketches != "" {
		if m, err = sketchMeasure(file, hs, opt.Containment); err != nil {
			return err
		}
	}
	w.SetOwn(Header(m.name(), opt.Threshold, opt.Containment))
	defer out.Watch(src)()
	sink := joinSink(w, out)
	// The attach header is the intermediate record's, not the pipeline's:
	// it is checked and dropped, so that the output's headers are those
	// of Run.
	filtered := func(r *stream.Result) error {
		kept := r.Headers[:0]
		for _, h := range r.Headers {
			if h.Header.Stage != record.AttachStage {
				kept = append(kept, h)
				continue
			}
			if attach != nil && h.Header.String() != attach.Header.String() {
				return record.Errorf(h.Pos, "attached pairs with header %q can't be combined with those with %q (%s)", h.Header, attach.Header, attach.Pos)
			}
		}
		r.Headers = kept
		return sink(r)
	}
	newWorker := func() stream.Worker { return &sortedWorker{opt: &opt, file: file, m: m} }
	if err := stream.Run(ctx, src, opt.Common, newWorker, filtered); err != nil {
		return err
	}
	return out.Finish()
}

type sortedWorker struct {
	opt   *Options
	file  string
	m     measure
	avals []uint64
	bvals []uint64
	sk    record.Sketch
}

// parseSide parses a record of the sorted file into w.bvals.
func (w *sortedWorker) parseSide(line []byte, pos record.Pos) (doc, error) {
	if w.opt.Shingles != "" {
		_, field, err := record.SplitShingles(line)
		if err != nil {
			return doc{}, atPos(err, pos)
		}
		if w.bvals, _, err = record.ParseShingles(w.bvals[:0], nil, field); err != nil {
			return doc{}, atPos(err, pos)
		}
		return doc{w.bvals, uint64(len(w.bvals))}, nil
	}
	if err := record.ParseSketch(&w.sk, line); err != nil {
		return doc{}, atPos(err, pos)
	}
	w.bvals = append(w.bvals[:0], w.sk.Values...)
	return doc{w.bvals, w.sk.Size}, nil
}

// parseAttached parses the values an attached pair carries into w.avals.
func (w *sortedWorker) parseAttached(size uint64, values []byte) (doc, error) {
	var err error
	if w.opt.Shingles != "" {
		if w.avals, _, err = record.ParseShingles(w.avals[:0], nil, values); err != nil {
			return doc{}, err
		}
		if uint64(len(w.avals)) != size {
			return doc{}, record.Bad("size %d, but %d shingle hashes follow", size, len(w.avals))
		}
	} else if w.avals, err = record.ParseHexList(w.avals[:0], values); err != nil {
		return doc{}, err
	}
	return doc{w.avals, size}, nil
}

func (w *sortedWorker) Process(c *stream.Chunk, r *stream.Result) {
	side := c.Value.(*sideRecords)
	r.Value = side.headers
	k, parsed := 0, -1
	var bdoc doc
	var sideErr error
	c.Lines(r, w.opt.SkipBad, func(line []byte, _ int64) error {
		b, a, size, values, err := record.ParseAttached(line)
		if err != nil {
			return err
		}
		cmp := bytes.Compare(a, b)
		adoc, err := w.parseAttached(size, values)
		if err != nil {
			return err
		}
		var ok bool
		if k, ok = side.find(b, k); !ok {
			return record.Bad("id %s is not in %s (or the file is not sorted by id)", b, w.file)
		}
		if k != parsed {
			parsed = k
			bdoc, sideErr = w.parseSide(side.lines[k], side.pos[k])
		}
		if sideErr != nil {
			return sideErr
		}
		if _, sig := w.m.(signatures); sig && adoc.size > 0 && bdoc.size > 0 && len(adoc.values) != len(bdoc.values) {
			// They would score 0.
			return record.Bad("the signature of %s has %d values, that of %s (%s) %d: signatures of one verify have one length", a, len(adoc.values), b, side.pos[k], len(bdoc.values))
		}
		var j, cab, cba float64
		if cmp < 0 {
			j, cab, cba = w.m.score(adoc, bdoc)
			r.Out = AppendScored(r.Out, a, b, j, cab, cba, w.opt.Threshold, w.opt.Containment)
		} else {
			j, cab, cba = w.m.score(bdoc, adoc)
			r.Out = AppendScored(r.Out, b, a, j, cab, cba, w.opt.Threshold, w.opt.Containment)
		}
		return nil
	})
}
