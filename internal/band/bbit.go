package band

import (
	"context"
	"strconv"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/bbit"
	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/lsh"
	"github.com/neardup/neardup/internal/minhash"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// runBBit runs the pool with every signature also written, reduced to
// minhash.Bits bits a value, to the file opt.BBit: the headers of the input
// (or upstream, those of the stage that makes the signatures) and band's
// own with bbit=4, then a b-bit record a document with shingles. write
// writes each result to out; end, when not nil, is called once the file is
// in place, before out is finished (Sketches.Into).
func runBBit(ctx context.Context, opt Options, out *stream.Output, write func(*stream.Result) error, end func() error, src stream.Source, workers stream.WorkerFactory, own record.Header, upstream ...record.Header) error {
	f, err := disk.Create(disk.OS{}, disk.Target{Name: opt.BBit, Mode: 0o644, InPlace: true})
	if err != nil {
		return err
	}
	own.Params = append(own.Params, record.Param{Key: bbit.Key, Value: strconv.Itoa(minhash.Bits)})
	if opt.BBitValues > 0 {
		own.Params = append(own.Params, record.Param{Key: bbit.ValuesKey, Value: strconv.Itoa(opt.BBitValues)})
	}
	side := record.NewWriter(f, opt.NoHeader, false, append(upstream, own)...)
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
		return write(r)
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
	if end != nil {
		if err := end(); err != nil {
			return err
		}
	}
	return out.Finish()
}

// Keyer makes the records of a signature: its band records and its b-bit
// record. Band's workers use it on the signatures they parse, and shingle
// --sketch --band on those it makes.
type Keyer struct {
	buf, key, bits []byte
	hashes         []uint64       // of the bands, by Append
	digest         *xxhash.Digest // of texts (TextHash)
	copy           cached         // a text's, from the cache (shingle --collapse)
}

// Append appends to out the band records of the signature values of the
// document id.
func (k *Keyer) Append(out []byte, banding lsh.Banding, id []byte, values []uint64) []byte {
	k.hashes = k.hashes[:0]
	for i := 0; i < banding.B; i++ {
		var h uint64
		h, k.buf = banding.BandHash(k.buf, values, i)
		k.hashes = append(k.hashes, h)
	}
	return k.appendKeys(out, id, k.hashes)
}

// appendKeys appends the band records of the band hashes of the document
// id.
func (k *Keyer) appendKeys(out, id []byte, hashes []uint64) []byte {
	for i, h := range hashes {
		k.key = AppendKey(k.key[:0], i, h)
		out = record.AppendBand(out, k.key, id)
	}
	return out
}

// AppendBBit appends to dst the b-bit record of the signature values of
// the document id, a set of size shingles.
func (k *Keyer) AppendBBit(dst, id []byte, size uint64, values []uint64) []byte {
	k.bits = minhash.AppendBits(k.bits[:0], values)
	return record.AppendBits(dst, id, size, k.bits)
}
