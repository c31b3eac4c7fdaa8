package pairs

import (
	"bytes"
	"context"
	"io"

	bandpkg "github.com/neardup/neardup/internal/band"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// Collector is pairs inside the stage that makes the band records
// (shingle --sketch --band T --pairs): the stage hands it each run of
// band records it would write, and at the end it writes what pairs
// writes of them, byte for byte, in the default mode (held in memory,
// spilled past Options.MemoryBytes). The records never go through a
// pipe to another process that reads them again: on one core, shingle
// --pairs | verify takes 0.935 of the time of shingle | pairs | verify on
// make peers' corpus.
type Collector struct {
	c       *collector
	st      stats
	headers *record.HeaderSet
	rec     bandRecord
	line    int64
}

// NewCollector returns the Collector of MinHash band records for opt
// (pairs' options, as Resolve leaves them), whose output is out: the
// stage's, its own headers those of the records (upstream, band's last)
// and then opt.Header().
func NewCollector(ctx context.Context, opt Options, upstream []record.Header, out *stream.Output) (*Collector, error) {
	if err := opt.Resolve(); err != nil {
		return nil, err
	}
	var headers record.HeaderSet
	for _, h := range upstream {
		if _, err := headers.Add(h, record.Pos{}); err != nil {
			return nil, err
		}
		if v, _ := h.Get(bandpkg.CollapseKey); h.Stage == "band" && v == bandpkg.CollapseText {
			opt.copies = true
		}
	}
	k := &Collector{headers: &headers}
	if opt.BBit != "" {
		opt.aside = &setAside{name: opt.BBit, upstream: &headers}
	}
	k.c = newCollector(ctx, opt, scheme{}, out, &k.st)
	return k, nil
}

// Report says on w what pairs says on standard error of the records and
// their pairs.
func (k *Collector) Report(w io.Writer) {
	opt := &k.c.opt
	k.st.report(w, opt.cap(), k.headers)
	if opt.aside != nil {
		opt.aside.report(w)
	}
	k.c.report(w)
}

// Feed holds a run of whole band records, "key TAB id" lines, as the
// stage would have written them.
func (k *Collector) Feed(records []byte) error {
	for len(records) > 0 {
		i := bytes.IndexByte(records, '\n')
		if i < 0 {
			i = len(records)
		}
		line := records[:i]
		records = records[min(i+1, len(records)):]
		k.line++
		var err error
		if k.rec.key, k.rec.id, err = record.ParseAnyBand(line); err != nil {
			// The stage wrote the record: a bug, not bad input.
			return record.Errorf(k.pos(), "band record the stage made: %v", err)
		}
		k.st.records++
		if err := k.c.add(&k.rec, k.pos); err != nil {
			return err
		}
		if k.st.records%(1<<16) == 0 && k.c.ctx.Err() != nil {
			return k.c.ctx.Err()
		}
	}
	return nil
}

// pos is the place of the record Feed holds: its number among them.
func (k *Collector) pos() record.Pos { return record.Pos{File: "band records", Line: k.line} }

// End pairs the records held and writes the pairs to the output (before
// the stage's Finish).
func (k *Collector) End() error { return k.c.finish() }

// Remove removes the runs the records spilled to.
func (k *Collector) Remove() { k.c.remove() }
