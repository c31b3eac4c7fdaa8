package docfreq

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"
	"runtime"
	"slices"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// Table is a document-frequency table held in memory: 12 bytes per hash (the
// hash and its count, in two sorted arrays) and a directory of 4 bytes per
// two hashes that jumps to the right part of the arrays by the top bits of a
// hash.
type Table struct {
	hashes []uint64
	counts []uint32
	dir    []uint32 // dir[p] is the first index whose hash has top bits ≥ p
	shift  uint
	// Docs is the number of documents counted.
	Docs uint64
	// ID names the table's content: XXH64 of its entries and Docs, so that
	// sketches made with different tables are never compared.
	ID string
	// Shingle is the table's shingle header, if it has one.
	Shingle *record.Header
	// ShinglePos is where Shingle was read.
	ShinglePos record.Pos
}

// tableChunk is what a loading worker makes of a chunk.
type tableChunk struct {
	// hashes and counts hold the entries of at least least documents.
	hashes []uint64
	counts []uint32
	pos    []record.Pos // of the first entry of the chunk
	// first and last are the chunk's first and last hashes, of any count;
	// entries is the number of entries.
	first, last uint64
	entries     int
	// unsorted is the place of the first entry that does not come after
	// the one before it, or -1.
	unsorted int
	// unsortedPair is that entry's hash and the one before it.
	unsortedPair [2]uint64
	// raw is the chunk's entries as the table's ID hashes them
	// (appendIDEntry).
	raw []byte
}

type loadWorker struct {
	least uint32
	// free holds raw buffers the sink is done with, for reuse: fresh
	// memory for each chunk's would be as large as the table.
	free chan []byte
}

// Process parses the chunk's entries and does what Scan's sink would
// otherwise do one chunk after another: checks their order, lays them out
// for the ID's hash and keeps those of at least w.least documents.
func (w loadWorker) Process(c *stream.Chunk, r *stream.Result) {
	// Room for every line at once: growing the arrays entry by entry took
	// as long as parsing them.
	n := bytes.Count(c.Data, []byte{'\n'})
	tc := &tableChunk{hashes: make([]uint64, 0, n), counts: make([]uint32, 0, n), unsorted: -1}
	// The entries in docfreq's own form are parsed at once; the lines
	// from the first that is not (the headers of the first chunk, a CR,
	// a bad line) one by one, as a chunk of their own.
	var took int
	tc.hashes, tc.counts, took = record.ParseDocFreqRun(tc.hashes, tc.counts, c.Data)
	if len(tc.hashes) > 0 {
		tc.pos = append(tc.pos, record.Pos{File: c.File, Line: c.FirstLine})
	}
	rest := *c
	rest.Data = c.Data[took:]
	rest.FirstLine += int64(len(tc.hashes))
	rest.FirstOrdinal += int64(len(tc.hashes))
	rest.Lines(r, false, func(line []byte, ordinal int64) error {
		h, n, err := record.ParseDocFreq(line)
		if err != nil {
			return err
		}
		if len(tc.hashes) == 0 {
			tc.pos = append(tc.pos, record.Pos{File: c.File, Line: rest.FirstLine + ordinal - rest.FirstOrdinal})
		}
		tc.hashes = append(tc.hashes, h)
		tc.counts = append(tc.counts, uint32(min(n, 1<<32-1)))
		return nil
	})
	r.Value = tc
	if tc.entries = len(tc.hashes); tc.entries == 0 {
		return
	}
	tc.first, tc.last = tc.hashes[0], tc.hashes[tc.entries-1]
	select {
	case tc.raw = <-w.free:
		tc.raw = tc.raw[:0]
	default:
	}
	tc.raw = slices.Grow(tc.raw, idEntry*tc.entries)
	kept := 0
	for i, h := range tc.hashes {
		if i > 0 && h <= tc.hashes[i-1] && tc.unsorted < 0 {
			tc.unsorted, tc.unsortedPair = i, [2]uint64{h, tc.hashes[i-1]}
		}
		tc.raw = appendIDEntry(tc.raw, h, tc.counts[i])
		if tc.counts[i] >= w.least {
			tc.hashes[kept], tc.counts[kept] = h, tc.counts[i]
			kept++
		}
	}
	tc.hashes, tc.counts = tc.hashes[:kept], tc.counts[:kept]
}

// Load reads a document-frequency table written by docfreq.
func Load(ctx context.Context, name string, jobs int) (*Table, error) {
	return LoadAtLeast(ctx, name, jobs, 0)
}

// LoadAtLeast reads a document-frequency table written by docfreq and keeps
// only the hashes of at least least documents (DF gives 0 for the others);
// its ID is that of the whole table.
func LoadAtLeast(ctx context.Context, name string, jobs int, least uint32) (*Table, error) {
	var hashes []uint64
	var counts []uint32
	t, err := Scan(ctx, name, jobs, least, func(h []uint64, c []uint32) {
		hashes, counts = append(hashes, h...), append(counts, c...)
	})
	if err != nil {
		return nil, err
	}
	t.hashes, t.counts = hashes, counts
	t.index()
	return t, nil
}

// Scan reads a document-frequency table written by docfreq as LoadAtLeast
// does, but holds none of its hashes: it calls fn, in the table's order,
// with each run of hashes of at least least documents and their counts
// (fn may keep the slices). The table returned holds none (its Docs, ID and
// shingle header are the table's).
func Scan(ctx context.Context, name string, jobs int, least uint32, fn func(hashes []uint64, counts []uint32)) (*Table, error) {
	src := stream.NewLines([]string{name})
	defer src.Close()
	t := &Table{}
	d := xxhash.New()
	parts := 0
	var prevPos record.Pos
	var last uint64
	read := false
	free := make(chan []byte, 3*max(jobs, runtime.GOMAXPROCS(0))+3)
	sink := func(r *stream.Result) error {
		for _, h := range r.Headers {
			switch h.Header.Stage {
			case Stage:
				parts++
				if parts > 1 {
					return record.Errorf(h.Pos, "a second docfreq header: the file holds several partial tables; merge them with docfreq --merge")
				}
				v, _ := h.Header.Get("docs")
				n, ok := record.ParseUint([]byte(v))
				if !ok {
					return record.Errorf(h.Pos, "docfreq header without a document count (docs=N)")
				}
				t.Docs = n
			case "shingle":
				hh := h.Header
				t.Shingle, t.ShinglePos = &hh, h.Pos
			}
		}
		if r.Err != nil {
			return r.Err
		}
		tc := r.Value.(*tableChunk)
		if tc.entries == 0 {
			return nil
		}
		if read && tc.first <= last {
			return record.Errorf(tc.pos[0], "hash %016x does not come after %016x (%s): a table is sorted by hash, each hash once", tc.first, last, prevPos)
		}
		if i := tc.unsorted; i >= 0 {
			p := tc.pos[0]
			p.Line += int64(i)
			return record.Errorf(p, "hash %016x does not come after %016x: a table is sorted by hash, each hash once", tc.unsortedPair[0], tc.unsortedPair[1])
		}
		prevPos = tc.pos[0]
		prevPos.Line += int64(tc.entries - 1)
		last, read = tc.last, true
		d.Write(tc.raw)
		select {
		case free <- tc.raw:
		default:
		}
		tc.raw = nil
		if len(tc.hashes) > 0 {
			fn(tc.hashes, tc.counts)
		}
		return nil
	}
	if err := stream.Run(ctx, src, stream.Common{Jobs: jobs}, func() stream.Worker { return loadWorker{least, free} }, sink); err != nil {
		return nil, err
	}
	if parts == 0 {
		return nil, fmt.Errorf("%s: no docfreq header (docs=N): not a document-frequency table made by docfreq", name)
	}
	t.ID = finishID(d, t.Docs)
	return t, nil
}

// idEntry is the bytes of an entry as the table's ID hashes it.
const idEntry = 12

// appendIDEntry appends an entry as the table's ID hashes it: the hash
// and the count, little-endian.
func appendIDEntry(raw []byte, h uint64, count uint32) []byte {
	raw = binary.LittleEndian.AppendUint64(raw, h)
	return binary.LittleEndian.AppendUint32(raw, count)
}

// finishID returns the table's ID: d has hashed its entries, and hashes
// docs, the documents counted, last.
func finishID(d *xxhash.Digest, docs uint64) string {
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], docs)
	d.Write(buf[:])
	return string(record.AppendHex64(nil, d.Sum64()))
}

// index builds the directory.
func (t *Table) index() {
	n := len(t.hashes)
	b := max(bits.Len(uint(n/2)), 1)
	t.shift = uint(64 - b)
	t.dir = make([]uint32, 1<<b+1)
	p := 0
	for i, h := range t.hashes {
		for top := int(h >> t.shift); p <= top; p++ {
			t.dir[p] = uint32(i)
		}
	}
	for ; p < len(t.dir); p++ {
		t.dir[p] = uint32(n)
	}
}

// Len returns the number of hashes.
func (t *Table) Len() int { return len(t.hashes) }

// DF returns the number of documents that hold h (0 when h is not in the
// table).
func (t *Table) DF(h uint64) uint64 {
	p := h >> t.shift
	lo, hi := int(t.dir[p]), int(t.dir[p+1])
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.hashes[m] < h {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(t.hashes) && t.hashes[lo] == h {
		return uint64(t.counts[lo])
	}
	return 0
}
