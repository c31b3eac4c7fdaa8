package index

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/lsh"
	"github.com/neardup/neardup/internal/record"
)

// DefaultBlockSize is the number of fingerprints per block: the directory
// then costs about 20 bytes per 64 fingerprints of a table in memory, and a
// probe decodes blocks of 64.
const DefaultBlockSize = 64

// maxPerKey is the number of stored fingerprints that ChooseBlocks lets
// share a key by chance, on average.
const maxPerKey = 256

// ChooseBlocks returns the number of blocks for n fingerprints and distance
// k: the fewest, so the fewest tables and the smallest index, whose
// shortest table key leaves at most maxPerKey fingerprints sharing a key
// by chance (n / 2^keybits). A probe then decodes a few blocks of a table
// and checks its few hundred fingerprints, which costs about what the
// memory reads of more, longer-keyed tables cost: with k = 3, 4 blocks
// (4 tables keyed on 16 bits) up to 16 million fingerprints, then 5 (10
// tables keyed on 25-26 bits).
func ChooseBlocks(k int, n uint64) int {
	for b := k + 1; b <= 64; b++ {
		h, err := lsh.NewHamming(64, k, b)
		if err != nil {
			return max(b-1, k+1)
		}
		lo, _ := h.KeyBitsRange()
		if lo >= 64 || n>>lo <= maxPerKey {
			return b
		}
	}
	return 64
}

// Records are (fingerprint, id) records held in memory for building or
// adding: 8 bytes per fingerprint, 8 per id offset and the id's bytes.
type Records struct {
	fps   []uint64
	ends  []uint64 // ends[i] is the end of id i in arena
	arena []byte
	// Headers are the header lines read with the records.
	Headers record.HeaderSet
}

// Add adds a record.
func (r *Records) Add(fp uint64, id []byte) {
	r.fps = append(r.fps, fp)
	r.arena = append(r.arena, id...)
	r.ends = append(r.ends, uint64(len(r.arena)))
}

// Len returns the number of records.
func (r *Records) Len() int { return len(r.fps) }

func (r *Records) id(i uint32) []byte {
	start := uint64(0)
	if i > 0 {
		start = r.ends[i-1]
	}
	return r.arena[start:r.ends[i]]
}

// sorted returns the records' numbers ordered by fingerprint, then id, each
// (fingerprint, id) once, and the distinct fingerprints.
func (r *Records) sorted() ([]uint32, []uint64) {
	ks := make([]keyed, len(r.fps))
	for i, fp := range r.fps {
		ks[i] = keyed{fp, uint32(i)}
	}
	sortKeyed(ks, make([]keyed, len(ks)))
	order := make([]uint32, 0, len(ks))
	var distinct []uint64
	for i := 0; i < len(ks); {
		j := i + 1
		for j < len(ks) && ks[j].v == ks[i].v {
			j++
		}
		run := ks[i:j]
		if len(run) > 1 {
			slices.SortFunc(run, func(a, b keyed) int { return bytes.Compare(r.id(a.i), r.id(b.i)) })
		}
		for n, e := range run {
			if n > 0 && bytes.Equal(r.id(e.i), r.id(run[n-1].i)) {
				continue
			}
			order = append(order, e.i)
		}
		distinct = append(distinct, ks[i].v)
		i = j
	}
	return order, distinct
}

// entries streams the sorted records grouped by fingerprint.
func (r *Records) entries(order []uint32) entrySeq {
	return func(yield func(uint64, [][]byte) bool) error {
		var ids [][]byte
		for i := 0; i < len(order); {
			fp := r.fps[order[i]]
			ids = ids[:0]
			j := i
			for ; j < len(order) && r.fps[order[j]] == fp; j++ {
				ids = append(ids, r.id(order[j]))
			}
			if !yield(fp, ids) {
				return nil
			}
			i = j
		}
		return nil
	}
}

func sliceSeq(vals []uint64) valueSeq {
	return func(yield func(uint64) bool) error {
		for _, v := range vals {
			if !yield(v) {
				return nil
			}
		}
		return nil
	}
}

// permuted returns the fingerprints permuted for table t, sorted.
func permuted(h *lsh.Hamming, t int, distinct []uint64) []uint64 {
	if t == 0 {
		return distinct // table 0 keeps the first blocks first: no change
	}
	vals := make([]uint64, len(distinct))
	for i, fp := range distinct {
		vals[i] = h.Permute64(t, fp)
	}
	sortValues(vals, make([]uint64, len(vals)))
	return vals
}

// BuildOptions configure Build.
type BuildOptions struct {
	// K is the largest distance the index answers; Blocks the number of
	// blocks (0: ChooseBlocks); BlockSize the fingerprints per block (0:
	// DefaultBlockSize).
	K, Blocks, BlockSize int
	// Jobs tables are encoded at a time (each in memory); 1 streams them;
	// 0 means one per core.
	Jobs int

	fs disk.FS
}

func (o *BuildOptions) fsys() disk.FS {
	if o.fs == nil {
		return disk.OS{}
	}
	return o.fs
}

// Build writes an index of the records to path, replacing any file there
// only once the new one is complete.
func Build(path string, recs *Records, opt BuildOptions) error {
	order, distinct := recs.sorted()
	blocks := opt.Blocks
	if blocks == 0 {
		blocks = ChooseBlocks(opt.K, uint64(len(distinct)))
	}
	h, err := lsh.NewHamming(64, opt.K, blocks)
	if err != nil {
		return err
	}
	bs := opt.BlockSize
	if bs == 0 {
		bs = DefaultBlockSize
	}
	if bs < 1 || bs > 0xffff {
		return fmt.Errorf("block size %d: want 1 to 65535", bs)
	}
	c := &content{
		scheme:    h,
		blockSize: bs,
		headers:   recs.Headers.All(),
		table:     func(t int) valueSeq { return sliceSeq(permuted(h, t, distinct)) },
		entries:   recs.entries(order),
		jobs:      opt.Jobs,
	}
	return writeIndex(opt.fsys(), path, c)
}

// mergeSeq yields the values of a and b (each ascending), each once.
func mergeSeq(a valueSeq, b []uint64) valueSeq {
	return func(yield func(uint64) bool) error {
		j := 0
		stopped := false
		err := a(func(v uint64) bool {
			for j < len(b) && b[j] < v {
				if !yield(b[j]) {
					stopped = true
					return false
				}
				j++
			}
			if j < len(b) && b[j] == v {
				j++
			}
			if !yield(v) {
				stopped = true
				return false
			}
			return true
		})
		if err != nil || stopped {
			return err
		}
		for ; j < len(b); j++ {
			if !yield(b[j]) {
				return nil
			}
		}
		return nil
	}
}

// mergeEntries yields the entries of a and b, the ids of a fingerprint in
// both joined (ascending, each once).
func mergeEntries(a entrySeq, b entrySeq) entrySeq {
	return func(yield func(uint64, [][]byte) bool) error {
		// b is in memory (new records): collect it.
		type entry struct {
			fp  uint64
			ids [][]byte
		}
		var bs []entry
		b(func(fp uint64, ids [][]byte) bool {
			bs = append(bs, entry{fp, slices.Clone(ids)})
			return true
		})
		j := 0
		stopped := false
		var joined [][]byte
		err := a(func(fp uint64, ids [][]byte) bool {
			for j < len(bs) && bs[j].fp < fp {
				if !yield(bs[j].fp, bs[j].ids) {
					stopped = true
					return false
				}
				j++
			}
			if j < len(bs) && bs[j].fp == fp {
				joined = append(joined[:0], ids...)
				joined = append(joined, bs[j].ids...)
				slices.SortFunc(joined, bytes.Compare)
				joined = slices.CompactFunc(joined, bytes.Equal)
				ids = joined
				j++
			}
			if !yield(fp, ids) {
				stopped = true
				return false
			}
			return true
		})
		if err != nil || stopped {
			return err
		}
		for ; j < len(bs); j++ {
			if !yield(bs[j].fp, bs[j].ids) {
				return nil
			}
		}
		return nil
	}
}

// AddOptions configure Add.
type AddOptions struct {
	Jobs int
	fs   disk.FS
}

// Add merges the records into the index at path: it writes a new file with
// the old index's layout and the union of both, and renames it over the
// old one; a failure at any point leaves the old index as it was.
func Add(path string, recs *Records, opt AddOptions) error {
	ix, err := Open(path)
	if err != nil {
		return err
	}
	defer ix.Close()
	if err := ix.CheckHeaders(recs.Headers.All(), "the records added"); err != nil {
		return err
	}
	headers := ix.Headers
	if len(headers) == 0 {
		headers = recs.Headers.All()
	}
	order, distinct := recs.sorted()
	h := ix.Scheme
	c := &content{
		scheme:    h,
		blockSize: ix.BlockSize,
		headers:   headers,
		table:     func(t int) valueSeq { return mergeSeq(ix.tableSeq(t), permuted(h, t, distinct)) },
		entries:   mergeEntries(ix.entrySeq(), recs.entries(order)),
		jobs:      opt.Jobs,
	}
	fsys := opt.fs
	if fsys == nil {
		fsys = disk.OS{}
	}
	return writeIndex(fsys, path, c)
}

// CheckHeaders refuses records whose shingle or sketch parameters differ
// from those of the index's fingerprints; what names the records.
func (ix *Index) CheckHeaders(hs []record.Header, what string) error {
	var set record.HeaderSet
	for _, h := range ix.Headers {
		set.Add(h, record.Pos{File: ix.Path})
	}
	for _, h := range hs {
		if h.Stage != "shingle" && h.Stage != "sketch" {
			continue
		}
		if _, err := set.Add(h, record.Pos{File: what}); err != nil {
			if re, ok := err.(*record.Error); ok {
				return fmt.Errorf("%s: %s", what, re.Msg)
			}
			return err
		}
	}
	return nil
}
