package verify

import (
	"bytes"
	"context"
	"io"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// joinFile returns the sorted file of the join modes and what it holds.
func joinFile(opt *Options) (file, values string) {
	if opt.Shingles != "" {
		return opt.Shingles, "shingles"
	}
	return opt.Sketches, "sketches"
}

// joinSink passes on the side file's headers met while reading (a worker
// leaves them in Result.Value) and then the result.
func joinSink(w *record.Writer, out *stream.Output) func(*stream.Result) error {
	return func(r *stream.Result) error {
		if hs, ok := r.Value.([]stream.HeaderAt); ok {
			for _, h := range hs {
				if err := w.Secondary(h.Header, h.Pos); err != nil {
					return err
				}
			}
		}
		return out.Sink(r)
	}
}

// sideHeaders reads the headers at the top of the sorted file and gives
// them to w.
func sideHeaders(side *sideReader, w *record.Writer) ([]stream.HeaderAt, error) {
	hs, _, err := side.src.Peek()
	if err != nil {
		return nil, err
	}
	for _, h := range hs {
		if err := w.Secondary(h.Header, h.Pos); err != nil {
			return nil, err
		}
	}
	return hs, nil
}

// runAttach reads candidate pairs sorted by their first id and writes
// attached pairs: "idB TAB idA TAB size TAB values", A's shingle hashes
// (size is their number) or sketch, from the sorted file.
func runAttach(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) error {
	file, values := joinFile(&opt)
	// The header is always written: verify --sorted needs it, and every
	// other stage refuses attached pairs by it.
	common := opt.Common
	common.NoHeader = false
	out := stream.NewOutput("verify", common, stdout, stderr, record.NewHeader(record.AttachStage, "values", values))
	w := out.W
	main := stream.NewLines(inputs)
	side := newSideReader(file)
	src := &joinSource{main: main, side: side, copies: true,
		order: "id %s comes after %s (line %d): verify --attach needs pairs sorted by their first id (LC_ALL=C sort -t$'\\t' -k1,1)"}
	defer src.Close()
	// Attached pairs are refused (by the writer, as every stage refuses
	// them) before their order is looked at.
	peeked, _, err := main.Peek()
	if err != nil {
		return err
	}
	for _, h := range peeked {
		if h.Header.Stage == record.AttachStage {
			return w.Header(h.Header, h.Pos)
		}
	}
	if _, err := sideHeaders(side, w); err != nil {
		return err
	}
	defer out.Watch(src)()
	newWorker := func() stream.Worker { return &attachWorker{opt: &opt, file: file} }
	if err := stream.Run(ctx, src, opt.Common, newWorker, joinSink(w, out)); err != nil {
		return err
	}
	return out.Finish()
}

type attachWorker struct {
	opt  *Options
	file string
	vals []uint64
	sk   record.Sketch
}

// parseSide checks a record of the sorted file and returns the size and
// values field an attached pair carries.
func (w *attachWorker) parseSide(line []byte, pos record.Pos) (size uint64, values []byte, err error) {
	if w.opt.Shingles != "" {
		var field []byte
		if _, field, err = record.SplitShingles(line); err != nil {
			return 0, nil, atPos(err, pos)
		}
		w.vals, _, err = record.ParseShingles(w.vals[:0], nil, field)
		if err != nil {
			return 0, nil, atPos(err, pos)
		}
		return uint64(len(w.vals)), field, nil
	}
	if err := record.ParseSketch(&w.sk, line); err != nil {
		return 0, nil, atPos(err, pos)
	}
	return w.sk.Size, w.sk.ValuesField, nil
}

// atPos places an error found in a line of the sorted file.
func atPos(err error, pos record.Pos) error {
	if le, ok := err.(*record.LineError); ok {
		return &record.Error{Pos: pos, Msg: le.Msg}
	}
	return err
}

func (w *attachWorker) Process(c *stream.Chunk, r *stream.Result) {
	side := c.Value.(*sideRecords)
	r.Value = side.headers
	k, parsed := 0, -1
	var size uint64
	var values []byte
	var sideErr error
	c.Lines(r, w.opt.SkipBad, func(line []byte, _ int64) error {
		a, b, err := record.ParsePair(line)
		if err != nil {
			return err
		}
		if bytes.Equal(a, b) {
			return record.Bad("a pair of %s with itself", a)
		}
		var ok bool
		if k, ok = side.find(a, k); !ok {
			return record.Bad("id %s is not in %s (or the file is not sorted by id)", a, w.file)
		}
		if k != parsed {
			parsed = k
			size, values, sideErr = w.parseSide(side.lines[k], side.pos[k])
		}
		if sideErr != nil {
			return sideErr
		}
		start := len(r.Out)
		r.Out = record.AppendAttached(r.Out, b, a, size, values)
		if n := len(r.Out) - start - 1; n > stream.MaxLine {
			// A shingle record near the limit, with a second id.
			r.Out = r.Out[:start]
			return record.Bad("the attached pair would be %d bytes, more than the longest line verify --sorted reads, %d bytes", n, stream.MaxLine)
		}
		return nil
	})
}
