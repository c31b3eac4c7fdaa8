package pairs

import (
	"bytes"
	"io"
	"strconv"

	"github.com/neardup/neardup/internal/band"
	"github.com/neardup/neardup/internal/bbit"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
)

// bbitWriter is the output of pairs --bbit FILE: it passes on the pairs
// written to it but those whose sizes or b-bit signatures (band --bbit)
// put them far below the threshold band chose its banding for. The
// signatures are read at the first pair written, once the input is read to
// its end: band, writing FILE, has then ended (it renames FILE into place
// before it closes its output).
type bbitWriter struct {
	w        io.Writer
	name     string
	upstream *record.HeaderSet
	t        *bbit.Table
	file     *bbit.File
	least    float64
	counts   bbit.Counts
	tail     []byte
	buf      []byte
}

// load reads the signatures, checked against the input's headers.
func (f *bbitWriter) load() error {
	h, ok := f.upstream.Get("band")
	v, _ := h.Get(band.ThresholdKey)
	least, err := strconv.ParseFloat(v, 64)
	if !ok || err != nil || least <= 0 || least > 1 {
		return status.Usagef("--bbit sets aside the pairs far below the threshold band chose its banding for, and band's header names none (band --threshold T)")
	}
	f.least = least
	if f.file, err = bbit.Open(f.name, func(stage string) string {
		h, ok := f.upstream.Get(stage)
		if !ok {
			return ""
		}
		return h.String()
	}); err != nil {
		return err
	}
	f.t, err = bbit.Load(f.file, numberedIDs(f.upstream))
	return err
}

// Write takes pair lines, the last perhaps cut short (kept for the next).
func (f *bbitWriter) Write(p []byte) (int, error) {
	if f.t == nil {
		if err := f.load(); err != nil {
			return 0, err
		}
	}
	f.buf = f.buf[:0]
	data := p
	if len(f.tail) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			f.tail = append(f.tail, data...)
			return len(p), nil
		}
		f.tail = append(f.tail, data[:i+1]...)
		f.judge(f.tail)
		f.tail, data = f.tail[:0], data[i+1:]
	}
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			f.tail = append(f.tail, data...)
			break
		}
		f.judge(data[:i+1])
		data = data[i+1:]
	}
	if _, err := f.w.Write(f.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// judge passes line on unless it is a pair far below the threshold.
func (f *bbitWriter) judge(line []byte) {
	a, b, err := record.ParsePair(record.TrimEOL(line))
	if err == nil {
		f.counts.Pairs++
		sa, na, oka := f.t.Lookup(a)
		sb, nb, okb := f.t.Lookup(b)
		if !oka || !okb {
			f.counts.Unsigned++
		} else if f.counts.Judge(sa, sb, na, nb, f.least, false, f.file.Densified) {
			return
		}
	}
	f.buf = append(f.buf, line...)
}

// report says what was set aside.
func (f *bbitWriter) report(w io.Writer) {
	if f.t != nil {
		f.counts.Report(w, "pairs", f.name)
	}
}
