package index

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"sync"

	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/lsh"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// valueSeq yields ascending distinct values and returns the first error it
// met (from decoding a stored table). It may be iterated more than once.
type valueSeq func(yield func(uint64) bool) error

// entrySeq yields the distinct fingerprints, ascending, each with its ids
// (ascending, distinct); the slices are valid during the call only.
type entrySeq func(yield func(fp uint64, ids [][]byte) bool) error

// content is what an index file holds, as streams.
type content struct {
	scheme    *lsh.Hamming
	blockSize int
	headers   []record.Header
	// table returns table t's values (permuted fingerprints), ascending.
	table   func(t int) valueSeq
	entries entrySeq
	// jobs tables are encoded at once, each into memory; with one job the
	// tables stream to the file. 0 means one per core.
	jobs int
}

// offsetWriter counts what it writes.
type offsetWriter struct {
	w   *bufio.Writer
	off uint64
}

func (o *offsetWriter) Write(b []byte) (int, error) {
	n, err := o.w.Write(b)
	o.off += uint64(n)
	return n, err
}

// encodeTable writes the blocks of a table to w and returns its directory,
// with offsets from the table's start, and the number of values.
func encodeTable(seq valueSeq, blockSize int, w io.Writer) (tableMeta, uint64, error) {
	var hist [64]uint64
	var n uint64
	var prev uint64
	err := seq(func(v uint64) bool {
		if n%uint64(blockSize) != 0 {
			hist[position(prev, v)]++
		}
		prev = v
		n++
		return true
	})
	if err != nil {
		return tableMeta{}, 0, err
	}
	t := tableMeta{code: buildCode(&hist)}
	enc, err := newEncoder(t.code)
	if err != nil {
		return tableMeta{}, 0, err
	}
	t.offs = []uint64{0}
	block := make([]uint64, 0, blockSize)
	var buf []byte
	var werr error
	count := uint64(0)
	flush := func() {
		buf = enc.appendBlock(buf[:0], block)
		if _, err := w.Write(buf); err != nil && werr == nil {
			werr = err
		}
		t.length += uint64(len(buf))
		t.offs = append(t.offs, t.length)
		t.last = append(t.last, block[len(block)-1])
		block = block[:0]
	}
	err = seq(func(v uint64) bool {
		if count > 0 && v <= prev {
			werr = fmt.Errorf("internal error: table values not ascending (%016x after %016x)", v, prev)
			return false
		}
		prev = v
		count++
		block = append(block, v)
		if len(block) == blockSize {
			flush()
		}
		return werr == nil
	})
	if err == nil {
		err = werr
	}
	if err != nil {
		return tableMeta{}, 0, err
	}
	if len(block) > 0 {
		flush()
	}
	if werr != nil {
		return tableMeta{}, 0, werr
	}
	if count != n {
		return tableMeta{}, 0, fmt.Errorf("internal error: a table gave %d values, then %d", n, count)
	}
	return t, n, nil
}

// encodeIDs writes the id blocks and returns the section (offsets from its
// start) and the number of (fingerprint, id) records.
func encodeIDs(entries entrySeq, blockSize int, w io.Writer) (section, uint64, error) {
	s := section{offs: []uint64{0}}
	var buf []byte
	var werr error
	var records uint64
	inBlock := 0
	flush := func() {
		buf = binary.LittleEndian.AppendUint32(buf, crc32.Checksum(buf, castagnoli))
		if _, err := w.Write(buf); err != nil && werr == nil {
			werr = err
		}
		s.length += uint64(len(buf))
		s.offs = append(s.offs, s.length)
		buf = buf[:0]
		inBlock = 0
	}
	err := entries(func(_ uint64, ids [][]byte) bool {
		for j, id := range ids {
			more := uint64(0)
			if j < len(ids)-1 {
				more = 1
			}
			buf = binary.AppendUvarint(buf, uint64(len(id))<<1|more)
			buf = append(buf, id...)
		}
		records += uint64(len(ids))
		if inBlock++; inBlock == blockSize {
			flush()
		}
		return werr == nil
	})
	if err == nil {
		err = werr
	}
	if err != nil {
		return section{}, 0, err
	}
	if inBlock > 0 {
		flush()
	}
	return s, records, werr
}

// writeIndex writes c to path atomically: into a new file beside it, which
// is synced and then renamed over path (and the directory synced). Until the
// rename, path is untouched; a failure removes the new file.
func writeIndex(fsys disk.FS, path string, c *content) error {
	return disk.WriteFile(fsys, disk.Target{Name: path, Mode: 0o644, What: "index"}, func(f io.Writer) error {
		return encodeIndex(f, c)
	})
}

// encodeIndex writes the index file of c to f.
func encodeIndex(f io.Writer, c *content) (err error) {
	bw := bufio.NewWriterSize(f, 1<<20)
	w := &offsetWriter{w: bw}
	if _, err := w.Write(preamble()); err != nil {
		return err
	}
	ft := footer{f: c.scheme.F, k: c.scheme.K, blocks: c.scheme.Blocks, blockSize: c.blockSize, headers: c.headers}
	ft.tables = make([]tableMeta, len(c.scheme.Tables))
	var distinct []uint64
	if c.jobs, err = stream.Jobs(c.jobs); err != nil {
		return err
	}
	// With more than one job the ids are encoded into memory meanwhile.
	type idResult struct {
		sec     section
		records uint64
		buf     bytes.Buffer
		err     error
	}
	var idsDone chan *idResult
	if c.jobs > 1 {
		idsDone = make(chan *idResult, 1)
		go func() {
			r := &idResult{}
			r.sec, r.records, r.err = encodeIDs(c.entries, c.blockSize, &r.buf)
			idsDone <- r
		}()
		defer func() {
			if idsDone != nil {
				<-idsDone
			}
		}()
	}
	if c.jobs <= 1 {
		distinct = make([]uint64, len(ft.tables))
		for t := range ft.tables {
			start := w.off
			meta, n, err := encodeTable(c.table(t), c.blockSize, w)
			if err != nil {
				return err
			}
			meta.off = start
			ft.tables[t], distinct[t] = meta, n
		}
	} else {
		distinct, err = encodeTablesParallel(c, ft.tables, w)
		if err != nil {
			return err
		}
	}
	for t, n := range distinct {
		if n != distinct[0] {
			return fmt.Errorf("internal error: table %d holds %d fingerprints, table 0 %d", t, n, distinct[0])
		}
	}
	ft.distinct = distinct[0]
	start := w.off
	var ids section
	var records uint64
	if idsDone != nil {
		r := <-idsDone
		idsDone = nil
		if r.err != nil {
			return r.err
		}
		if _, err := w.Write(r.buf.Bytes()); err != nil {
			return err
		}
		ids, records = r.sec, r.records
	} else if ids, records, err = encodeIDs(c.entries, c.blockSize, w); err != nil {
		return err
	}
	if ids.blocks() != ft.tables[0].blocks() {
		return fmt.Errorf("internal error: %d id blocks for %d blocks of fingerprints", ids.blocks(), ft.tables[0].blocks())
	}
	ids.off = start
	ft.ids, ft.records = ids, records
	foot := ft.marshal()
	footOff := w.off
	if _, err := w.Write(foot); err != nil {
		return err
	}
	if _, err := w.Write(trailer(footOff, foot)); err != nil {
		return err
	}
	return bw.Flush()
}

// encodeTablesParallel encodes the tables c.jobs at a time, each into
// memory, and writes them in order.
func encodeTablesParallel(c *content, metas []tableMeta, w *offsetWriter) ([]uint64, error) {
	type result struct {
		meta tableMeta
		n    uint64
		buf  *bytes.Buffer
		err  error
	}
	results := make([]chan result, len(metas))
	for t := range results {
		results[t] = make(chan result, 1)
	}
	sem := make(chan struct{}, c.jobs)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	defer func() { close(stop); wg.Wait() }()
	wg.Add(1)
	go func() {
		defer wg.Done()
		for t := range metas {
			select {
			case sem <- struct{}{}:
			case <-stop:
				return
			}
			wg.Add(1)
			go func(t int) {
				defer wg.Done()
				var buf bytes.Buffer
				meta, n, err := encodeTable(c.table(t), c.blockSize, &buf)
				results[t] <- result{meta, n, &buf, err}
			}(t)
		}
	}()
	distinct := make([]uint64, len(metas))
	for t := range metas {
		r := <-results[t]
		<-sem
		if r.err != nil {
			return nil, r.err
		}
		r.meta.off = w.off
		if _, err := w.Write(r.buf.Bytes()); err != nil {
			return nil, err
		}
		metas[t], distinct[t] = r.meta, r.n
	}
	return distinct, nil
}
