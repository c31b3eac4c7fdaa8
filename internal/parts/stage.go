package parts

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/neardup/neardup/internal/document"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/token"
)

// How documents are cut into parts (Options.By).
const (
	ByParagraph = "paragraph"
	ByWindow    = "window"
)

// Options configure the stage.
type Options struct {
	// By is ByParagraph or ByWindow.
	By string
	// Tokens and Stride: windows of Tokens word tokens, one starting every
	// Stride tokens (0: Tokens, windows side by side).
	Tokens, Stride int
	// MinBytes and MinTokens leave out parts shorter (counted on stderr).
	MinBytes, MinTokens int

	// Reading is how the documents are read (empty fields: the defaults,
	// id and text).
	input.Reading

	stream.Common
}

// Resolve checks the options and fills in their defaults (-j), the one
// place where both are done: Run and seen's Resolve call it. Its errors
// are usage errors.
func (o *Options) Resolve() error {
	jobs, err := stream.Jobs(o.Jobs)
	if err != nil {
		return err
	}
	o.Jobs = jobs
	switch o.By {
	case ByParagraph:
		if o.Tokens != 0 || o.Stride != 0 {
			return status.Usagef("--tokens and --stride are for --by window")
		}
	case ByWindow:
		if o.Tokens < 1 {
			return status.Usagef("--by window needs --tokens N, N at least 1")
		}
		if o.Stride < 0 || o.Stride > o.Tokens {
			return status.Usagef("--stride %d: want 1 to --tokens (%d): a longer stride would leave tokens in no window", o.Stride, o.Tokens)
		}
	default:
		return status.Usagef("--by %q: want paragraph or window", o.By)
	}
	if o.MinBytes < 0 || o.MinTokens < 0 {
		return status.Usagef("--min-bytes and --min-tokens can't be negative")
	}
	return o.reading().Check(o.NoHeader)
}

// stride is the stride of the windows.
func (o *Options) stride() int {
	if o.Stride == 0 {
		return o.Tokens
	}
	return o.Stride
}

// reading is how the stage reads documents: as shingle does, the default
// fields for those not set.
func (o *Options) reading() input.Reading { return o.Reading.WithDefaultFields() }

// Header returns the header line the stage writes: how the documents were
// cut, then how they were read (input.Reading.Params), which keep
// --drop-parts reads them again by.
func (o *Options) Header() record.Header {
	h := record.NewHeader("parts", "by", o.By)
	if o.By == ByWindow {
		h.Params = append(h.Params, record.Param{Key: "tokens", Value: strconv.Itoa(o.Tokens)},
			record.Param{Key: "stride", Value: strconv.Itoa(o.stride())})
	}
	h.Params = append(h.Params, record.Param{Key: "min-bytes", Value: strconv.Itoa(o.MinBytes)},
		record.Param{Key: "min-tokens", Value: strconv.Itoa(o.MinTokens)})
	h.Params = append(h.Params, o.reading().Params()...)
	return h
}

// counts are what the workers count, for the summary.
type counts struct {
	docs, empty, parts, short, shortBytes atomic.Int64
}

// Run reads documents from the named inputs (standard input when there are
// none) and writes their parts to stdout.
func Run(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) error {
	if err := opt.Resolve(); err != nil {
		return err
	}
	rd := opt.reading()
	noID := new(atomic.Int64)
	src, unit := document.Source(rd, inputs, opt.SkipBad)
	defer src.Close()
	out := stream.NewOutput("parts", opt.Common, stdout, stderr, opt.Header())
	out.Unit = unit
	n := &counts{}
	out.Summary = func(stderr io.Writer) {
		document.Report(src, stderr, "parts")
		opt.summary(stderr, n)
	}
	err := out.RunPool(ctx, src, func() stream.Worker {
		return &worker{opt: &opt, docs: document.NewReader(rd, noID, nil, opt.SkipBad), n: n}
	})
	document.ReportNoID(stderr, "parts", opt.IDField, noID)
	return err
}

// summary says on stderr what was left out: parts under the minimums, and
// documents without a part.
func (o *Options) summary(stderr io.Writer, n *counts) {
	if s := n.short.Load(); s > 0 {
		var under []string
		if o.MinBytes > 0 {
			under = append(under, "--min-bytes "+strconv.Itoa(o.MinBytes))
		}
		if o.MinTokens > 0 {
			under = append(under, "--min-tokens "+strconv.Itoa(o.MinTokens))
		}
		fmt.Fprintf(stderr, "parts: %d part(s) under %s left out (%d bytes)\n", s, strings.Join(under, " or "), n.shortBytes.Load())
	}
	if e := n.empty.Load(); e > 0 {
		fmt.Fprintf(stderr, "parts: %d of %d document(s) had no part (no text but white space, or no token)\n", e, n.docs.Load())
	}
}

// worker cuts the documents of a chunk into parts.
type worker struct {
	opt   *Options
	docs  *document.Reader
	n     *counts
	win   Windower
	tok   token.Tokenizer
	spans []token.Span
}

func (w *worker) Process(c *stream.Chunk, r *stream.Result) {
	var docs, empty, parts, short, shortBytes int64
	var id, text []byte // the document being cut
	cut := false        // whether it had a part
	// Each part is written as it is cut, and the output passed on as it
	// grows (Flush): many parts can make output many times the document
	// (windows of 1000 tokens, one every token: a thousand times), which
	// is never held whole.
	write := func(rg Range, tokens int) error {
		cut = true
		if w.tooShort(text[rg.Start:rg.End], tokens) {
			short++
			shortBytes += int64(rg.End - rg.Start)
			return nil
		}
		start := len(r.Out)
		r.Out = record.AppendPartID(r.Out, id, rg.Start, rg.End)
		r.Out = append(r.Out, '\t')
		r.Out = record.Escape(r.Out, text[rg.Start:rg.End])
		r.Out = append(r.Out, '\n')
		if n := len(r.Out) - start - 1; n > stream.MaxLine {
			r.Out = r.Out[:start]
			return record.Bad("part %d-%d would be a line of %d bytes, more than the longest line the stages read, %d bytes", rg.Start, rg.End, n, stream.MaxLine)
		}
		parts++
		// An error is the run being stopped, which the pool reports.
		return r.Flush()
	}
	paragraph := func(rg Range) error { return write(rg, -1) }
	w.docs.Documents(c, r, func(docID, docText []byte) error {
		docs++
		id, text, cut = docID, docText, false
		var err error
		if w.opt.By == ByParagraph {
			err = EachParagraph(text, paragraph)
		} else {
			err = w.win.Each(text, w.opt.Tokens, w.opt.stride(), write)
		}
		if err != nil {
			return err
		}
		if !cut {
			empty++
		}
		return nil
	})
	w.n.docs.Add(docs)
	w.n.empty.Add(empty)
	w.n.parts.Add(parts)
	w.n.short.Add(short)
	w.n.shortBytes.Add(shortBytes)
}

// tooShort says whether part p, of tokens tokens (-1: not counted yet), is
// under the minimums.
func (w *worker) tooShort(p []byte, tokens int) bool {
	if len(p) < w.opt.MinBytes {
		return true
	}
	if w.opt.MinTokens == 0 {
		return false
	}
	if tokens < 0 {
		w.spans = w.tok.AppendSpans(w.spans[:0], p)
		tokens = len(w.spans)
	}
	return tokens < w.opt.MinTokens
}
