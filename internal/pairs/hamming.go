package pairs

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/neardup/neardup/internal/band"
	"github.com/neardup/neardup/internal/lsh"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/simhash"
	"github.com/neardup/neardup/internal/stream"
)

// Hamming band records, "key TAB id TAB fingerprint", are grouped like any
// band records, but a pair of a bucket is written only when the two
// fingerprints differ in at most k bits and the bucket's table is the first
// table of the scheme in which the two share a key (lsh.Hamming.IsFirst).
// Both tests need only the two fingerprints, so each pair within k bits is
// found once, without a set of the pairs seen, in either mode. The scheme
// comes from the band header (scheme=hamming), or from Options.Hamming when
// the input has no header; the table is the key's first 4 hex digits.
//
// Memory (default mode): about 24 bytes per band record, and per distinct id
// its length plus about 56 bytes (the fingerprint included), and 8 bytes per
// pair written.

// hammingScheme returns the scheme of the input, or nil when it holds
// MinHash band keys.
func hammingScheme(src *stream.Lines, opt Options) (*lsh.Hamming, error) {
	headers, first, err := src.Peek()
	if err != nil {
		return nil, err
	}
	var fromHeader *lsh.Hamming
	for _, h := range headers {
		if h.Header.Stage != "band" {
			continue
		}
		s, err := band.HammingFromHeader(h.Header)
		if err != nil {
			return nil, record.Errorf(h.Pos, "%v", err)
		}
		fromHeader = s
	}
	if opt.Hamming == nil {
		return fromHeader, nil
	}
	f := 64
	if fromHeader != nil {
		f = fromHeader.F
	} else if first != nil {
		if _, _, fp, err := record.ParseHammingBand(first); err == nil {
			if _, _, ff, ok := record.ParseFingerprint(fp); ok {
				f = ff
			}
		}
	}
	s, err := opt.Hamming.HammingScheme(f)
	if err != nil {
		return nil, err
	}
	if fromHeader != nil && (fromHeader.K != s.K || fromHeader.Blocks != s.Blocks) {
		return nil, fmt.Errorf("--hamming %d with %d blocks, but the input's band header says k=%d with %d blocks", s.K, s.Blocks, fromHeader.K, fromHeader.Blocks)
	}
	return s, nil
}

// parseHammingBand splits a Hamming band record and reads its table
// number and fingerprint.
func parseHammingBand(line []byte, scheme *lsh.Hamming) (key, id []byte, table int, fp simhash.Fingerprint, err error) {
	key, id, fpText, err := record.ParseHammingBand(line)
	if err != nil {
		return nil, nil, 0, fp, err
	}
	if len(key) != 4+scheme.F/4 || !isLowerHex(key) {
		return nil, nil, 0, fp, record.Bad("key %q: want %d lower-case hex digits (table, then key bits)", key, 4+scheme.F/4)
	}
	for _, c := range key[:4] {
		table = table<<4 | int(lowerHexValue[c])
	}
	if table >= len(scheme.Tables) {
		return nil, nil, 0, fp, record.Bad("key %s names table %d, the scheme has %d", key, table, len(scheme.Tables))
	}
	hi, lo, f, ok := record.ParseFingerprint(fpText)
	if !ok || f != scheme.F {
		return nil, nil, 0, fp, record.Bad("fingerprint %q: want %d hex digits", fpText, scheme.F/4)
	}
	return key, id, table, simhash.Fingerprint{Hi: hi, Lo: lo}, nil
}

// runHammingMemory holds every record, then groups.
func runHammingMemory(ctx context.Context, opt Options, scheme *lsh.Hamming, sc *stream.Scanner, out *stream.Output, st *stats) error {
	index := map[string]uint32{}
	var ids []string
	var fps []simhash.Fingerprint
	var entries []entry
	for sc.Scan() {
		key, id, table, fp, err := parseHammingBand(sc.Line(), scheme)
		if err != nil {
			if err := out.Bad(err, sc.Pos(), opt.SkipBad); err != nil {
				return err
			}
			continue
		}
		st.records++
		out.Count(1)
		d, ok := index[string(id)]
		if !ok {
			if len(ids) == 1<<32-1 {
				return fmt.Errorf("more than %d distinct ids: use --sorted", 1<<32-1)
			}
			d = uint32(len(ids))
			ids = append(ids, string(id))
			fps = append(fps, fp)
			index[ids[d]] = d
		} else if fps[d] != fp {
			return record.Errorf(sc.Pos(), "id %s comes with two fingerprints", id)
		}
		entries = append(entries, entry{parseKey(key), d, uint32(table)})
		if st.records%(1<<16) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	index = nil
	// Number the ids in byte order, so that pairs of numbers sort as pairs
	// of ids.
	order := make([]uint32, len(ids))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return cmp.Compare(ids[a], ids[b]) })
	rank := make([]uint32, len(ids))
	for r, d := range order {
		rank[d] = uint32(r)
	}
	ranked := make([]simhash.Fingerprint, len(fps))
	for d, fp := range fps {
		ranked[rank[d]] = fp
	}
	fps = ranked
	for i := range entries {
		entries[i].doc = rank[entries[i].doc]
	}
	rank = nil
	sortEntries(entries)
	var pairs []uint64
	var docs []uint32
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && entries[j].key == entries[i].key {
			j++
		}
		docs = docs[:0]
		for _, e := range entries[i:j] {
			if len(docs) > 0 && docs[len(docs)-1] == e.doc {
				st.duplicates++
				continue
			}
			docs = append(docs, e.doc)
		}
		st.buckets++
		docs = st.capBucket(docs, opt.MaxBucket)
		t := int(entries[i].table)
		for a := 0; a < len(docs); a++ {
			fa := fps[docs[a]]
			for b := a + 1; b < len(docs); b++ {
				fb := fps[docs[b]]
				if simhash.Distance(fa, fb) <= scheme.K && scheme.IsFirst(t, fa, fb) {
					pairs = append(pairs, uint64(docs[a])<<32|uint64(docs[b]))
				}
			}
		}
		i = j
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	entries = nil
	slices.Sort(pairs)
	var buf []byte
	for i, p := range pairs {
		buf = appendPair(buf, ids[order[p>>32]], ids[order[p&0xffffffff]])
		if len(buf) >= 1<<16 || i == len(pairs)-1 {
			if _, err := out.W.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	return nil
}

// runHammingSorted reads key-sorted records one bucket at a time.
func runHammingSorted(ctx context.Context, opt Options, scheme *lsh.Hamming, sc *stream.Scanner, out *stream.Output, st *stats) error {
	sp := newSpiller(&opt)
	defer sp.remove()

	type member struct {
		id []byte
		fp simhash.Fingerprint
	}
	var key []byte
	var keyPos record.Pos
	var table int
	var arena []byte
	var ends []int
	var fpsOf []simhash.Fingerprint
	var bucket []member
	flush := func() error {
		if len(ends) < 2 {
			return nil
		}
		bucket = bucket[:0]
		start := 0
		for i, e := range ends {
			bucket = append(bucket, member{arena[start:e], fpsOf[i]})
			start = e
		}
		slices.SortFunc(bucket, func(a, b member) int { return bytes.Compare(a.id, b.id) })
		ms := bucket[:1]
		for _, m := range bucket[1:] {
			if bytes.Equal(m.id, ms[len(ms)-1].id) {
				st.duplicates++
				continue
			}
			ms = append(ms, m)
		}
		st.noteCap(len(ms), opt.MaxBucket)
		if opt.MaxBucket > 0 && len(ms) > opt.MaxBucket {
			ms = ms[:opt.MaxBucket]
		}
		for a := 0; a < len(ms); a++ {
			for b := a + 1; b < len(ms); b++ {
				if simhash.Distance(ms[a].fp, ms[b].fp) > scheme.K || !scheme.IsFirst(table, ms[a].fp, ms[b].fp) {
					continue
				}
				if err := sp.add(ms[a].id, ms[b].id); err != nil {
					return err
				}
			}
		}
		return ctx.Err()
	}
	for sc.Scan() {
		k, id, t, fp, err := parseHammingBand(sc.Line(), scheme)
		if err != nil {
			if err := out.Bad(err, sc.Pos(), opt.SkipBad); err != nil {
				return err
			}
			continue
		}
		st.records++
		out.Count(1)
		if !bytes.Equal(k, key) {
			if key != nil && bytes.Compare(k, key) < 0 {
				return record.Errorf(sc.Pos(), "key %s comes after %s (%s): --sorted needs input sorted by key (LC_ALL=C sort -t$'\\t' -k1,1)", k, key, keyPos)
			}
			if err := flush(); err != nil {
				return err
			}
			st.buckets++
			key = append(key[:0], k...)
			keyPos = sc.Pos()
			table = t
			ends, arena, fpsOf = ends[:0], arena[:0], fpsOf[:0]
		}
		arena = append(arena, id...)
		ends = append(ends, len(arena))
		fpsOf = append(fpsOf, fp)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	return sp.finish(out.W)
}
