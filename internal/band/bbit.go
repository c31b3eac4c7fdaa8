package band

import (
	"context"
	"strconv"

	"github.com/neardup/neardup/internal/bbit"
	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/minhash"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// runBBit runs the pool with every signature also written, reduced to
// minhash.Bits bits a value, to the file opt.BBit: the headers of the input
// and band's own with bbit=4, then a b-bit record a document with shingles.
func runBBit(ctx context.Context, opt Options, out *stream.Output, src stream.Source, workers stream.WorkerFactory, own record.Header) error {
	f, err := disk.Create(disk.OS{}, disk.Target{Name: opt.BBit, Mode: 0o644, InPlace: true})
	if err != nil {
		return err
	}
	own.Params = append(own.Params, record.Param{Key: bbit.Key, Value: strconv.Itoa(minhash.Bits)})
	side := record.NewWriter(f, opt.NoHeader, false, own)
	sink := func(r *stream.Result) error {
		for _, h := range r.Headers {
			if err := side.Header(h.Header, h.Pos); err != nil {
				return err
			}
		}
		side.Touch()
		if b, ok := r.Value.([]byte); ok && len(b) > 0 {
			if _, err := side.Write(b); err != nil {
				return err
			}
		}
		return out.Sink(r)
	}
	err = func() error {
		defer out.Watch(src)()
		return stream.Run(ctx, src, opt.Common, workers, sink)
	}()
	if err == nil {
		err = side.Flush()
	}
	if err != nil {
		f.Abort()
		return err
	}
	if err := f.Commit(); err != nil {
		return err
	}
	return out.Finish()
}

// appendBBit appends the b-bit record of the signature the worker parsed.
func (w *worker) appendBBit(dst []byte) []byte {
	w.bits = minhash.AppendBits(w.bits[:0], w.sk.Values)
	return record.AppendBits(dst, w.sk.ID, w.sk.Size, w.bits)
}
