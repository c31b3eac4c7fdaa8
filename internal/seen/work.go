package seen

import (
	"fmt"
	"github.com/neardup/neardup/internal/document"
	"github.com/neardup/neardup/internal/parts"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/shingle"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/token"
	"io"
	"sync"
)

// batch is what a worker makes of a chunk: its documents' paragraphs and
// their n-gram hashes, in order, for the sink to look up and add.
type batch struct {
	ids    []byte
	docs   []doc
	parts  []part
	hashes []uint64
	// The paragraphs left out: under the minimum of tokens (and their
	// bytes), without a token; documents without a paragraph looked up.
	short, shortBytes, noToken, bare int64
}

// doc is a document of a batch: the end of its id in ids, of its parts in
// parts.
type doc struct{ idEnd, partsEnd int }

// part is a paragraph: its byte range and the end of its hashes.
type part struct{ start, end, hashesEnd int }

func (b *batch) reset() {
	*b = batch{ids: b.ids[:0], docs: b.docs[:0], parts: b.parts[:0], hashes: b.hashes[:0]}
}

// worker cuts the documents of a chunk into paragraphs and hashes their
// n-grams; it keeps scratch space, one a goroutine.
type worker struct {
	opt    *Options
	docs   *document.Reader
	sh     *shingle.Shingler
	pool   *sync.Pool
	ranges []parts.Range
	tok    token.Tokenizer
	spans  []token.Span
}

// split returns the parts of text: its paragraphs, or its windows.
func (w *worker) split(text []byte) []parts.Range {
	if w.opt.by() == parts.ByParagraph {
		return parts.Paragraphs(w.ranges[:0], text)
	}
	w.spans = w.tok.AppendSpans(w.spans[:0], text)
	stride := w.opt.Stride
	if stride == 0 {
		stride = w.opt.Tokens
	}
	rs, _ := parts.Windows(w.ranges[:0], nil, w.spans, w.opt.Tokens, stride)
	return rs
}

func (w *worker) Process(c *stream.Chunk, r *stream.Result) {
	b := w.pool.Get().(*batch)
	b.reset()
	minTokens := w.opt.minTokens()
	w.docs.Documents(c, r, func(id, text []byte) error {
		b.ids = append(b.ids, id...)
		w.ranges = w.split(text)
		n := len(b.parts)
		for _, rg := range w.ranges {
			before := len(b.hashes)
			var tokens int
			b.hashes, tokens = w.sh.AppendWords(b.hashes, text[rg.Start:rg.End])
			if tokens < minTokens || tokens == 0 {
				b.hashes = b.hashes[:before]
				if tokens == 0 {
					b.noToken++
				} else {
					b.short++
					b.shortBytes += int64(rg.End - rg.Start)
				}
				continue
			}
			b.parts = append(b.parts, part{rg.Start, rg.End, len(b.hashes)})
		}
		if len(b.parts) == n {
			b.bare++
		}
		b.docs = append(b.docs, doc{len(b.ids), len(b.parts)})
		return nil
	})
	r.Value = b
}

// counts are the sink's.
type counts struct {
	docs, parts, bytes, seen, seenBytes, ngrams, found, added int64
	short, shortBytes, noToken, bare                          int64
}

// sink looks up and adds the paragraphs of each batch in input order: the
// filter is the one thing the workers do not share.
type sink struct {
	opt       *Options
	out       *stream.Output
	state     *State
	keys      keySet
	threshold int64 // parts per 10^9
	pool      *sync.Pool
	n         counts
	buf       []byte
	seenN     []int
}

// take is the sink of the run: each document's paragraphs are looked up
// in the filter as it stood before the document, then its n-grams are
// added, so that a paragraph is seen only for what earlier documents held.
func (s *sink) take(r *stream.Result) error {
	b, _ := r.Value.(*batch)
	r.Value = nil
	if b == nil {
		return s.out.Sink(r)
	}
	defer s.pool.Put(b)
	out := s.buf[:0]
	idStart, p, h := 0, 0, 0
	for _, d := range b.docs {
		id := b.ids[idStart:d.idEnd]
		s.seenN = s.seenN[:0]
		h0 := h
		for _, pt := range b.parts[p:d.partsEnd] {
			found := s.keys.CountHas(b.hashes[h:pt.hashesEnd])
			total := pt.hashesEnd - h
			h = pt.hashesEnd
			s.n.ngrams += int64(total)
			s.n.found += int64(found)
			s.n.bytes += int64(pt.end - pt.start)
			if int64(found)*1e9 >= s.threshold*int64(total) {
				out = record.AppendSeen(out, id, pt.start, pt.end, found, total)
				s.n.seen++
				s.n.seenBytes += int64(pt.end - pt.start)
			}
		}
		s.n.added += int64(s.keys.AddAll(b.hashes[h0:h]))
		s.n.parts += int64(d.partsEnd - p)
		p, idStart = d.partsEnd, d.idEnd
	}
	s.n.docs += int64(len(b.docs))
	s.n.short += b.short
	s.n.shortBytes += b.shortBytes
	s.n.noToken += b.noToken
	s.n.bare += b.bare
	// The records go out in a buffer of the sink's; the result's own goes
	// back to its pool.
	own := r.Out
	r.Out = out
	err := s.out.Sink(r)
	s.buf, r.Out = r.Out[:0], own
	return err
}

// summary says on stderr what the run found, what it left out and how full
// the filter is.
func (s *sink) summary(stderr io.Writer) {
	n := &s.n
	unit := s.opt.by() // paragraph or window
	fmt.Fprintf(stderr, "seen: %d of %d %s(s) seen before (%s), %d of %d bytes; %d document(s)\n",
		n.seen, n.parts, unit, percent(n.seen, n.parts), n.seenBytes, n.bytes, n.docs)
	if n.short > 0 {
		fmt.Fprintf(stderr, "seen: %d %s(s) of fewer than %d word tokens left out (--min-tokens), %d bytes: not looked up, not added\n",
			n.short, unit, s.opt.minTokens(), n.shortBytes)
	}
	if n.noToken > 0 {
		fmt.Fprintf(stderr, "seen: %d paragraph(s) without a word token left out\n", n.noToken)
	}
	if n.bare > 0 {
		fmt.Fprintf(stderr, "seen: %d document(s) had no %s looked up\n", n.bare, unit)
	}
	f, st := s.state.Filter, s.state
	if s.keys != keySet(f) {
		return
	}
	ones := f.Ones()
	added := st.Added + n.added
	fmt.Fprintf(stderr, "seen: %d n-gram(s) looked up, %d found; %d added new, %d in the filter in all (sized for %d); %d of %d bits set (%s): false-positive rate now %.3g\n",
		n.ngrams, n.found, n.added, added, st.Sizing.Expected, ones, f.bits, percent(int64(ones), int64(f.bits)), f.FalsePositiveRate())
	if added > st.Sizing.Expected {
		fmt.Fprintf(stderr, "seen: warning: the filter holds %d n-grams, more than the %d it was sized for: its false-positive rate is now about %.3g, not %.3g; start a new state with a larger --expected\n",
			added, st.Sizing.Expected, f.FalsePositiveRate(), st.Sizing.Rate)
	}
}

// percent is a of b as a percentage, one decimal.
func percent(a, b int64) string {
	if b == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}
