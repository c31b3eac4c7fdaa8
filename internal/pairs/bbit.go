package pairs

import (
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/neardup/neardup/internal/bbit"
	"github.com/neardup/neardup/internal/minhash"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
)

// setAside is pairs --bbit FILE: each pair a bucket makes is judged, before
// it is kept, by the sizes and b-bit signatures (band --bbit) of its two
// documents, and those far below the threshold band chose its banding for
// are left out. The signatures are read at the first pair, once the input
// is read to its end (or, sorted, through a sort that read it to its end):
// band, writing FILE, has then ended, and it renames FILE into place
// before it closes its output. The pairs of the spilled band records are
// judged on every core: the first to judge one reads the signatures (once),
// and each counts what it judged in counts of its own, added to counts at
// the end.
type setAside struct {
	name     string
	upstream *record.HeaderSet
	t        *bbit.Table
	file     *bbit.File
	// far judges the pairs (its logarithms computed once); nil when the
	// file signs no document.
	far    *minhash.FarJudge
	counts bbit.Counts
	once   sync.Once
	err    error
}

// load reads the signatures, checked against the input's headers.
func (s *setAside) load() error {
	h, ok := s.upstream.Get("band")
	v, _ := h.Get(record.ThresholdKey)
	least, err := strconv.ParseFloat(v, 64)
	if !ok || err != nil || least <= 0 || least > 1 {
		return status.Usagef("--bbit sets aside the pairs far below the threshold band chose its banding for, and band's header names none (band --threshold T)")
	}
	if s.file, err = bbit.Open(s.name, func(stage string) string {
		h, ok := s.upstream.Get(stage)
		if !ok {
			return ""
		}
		return h.String()
	}); err != nil {
		return err
	}
	if s.t, err = bbit.Load(s.file, numberedIDs(s.upstream)); err != nil {
		return err
	}
	if n := s.t.Values(); n > 0 {
		s.far = minhash.NewFarJudge(n, least, s.file.Densified)
	}
	return nil
}

// loaded reads the signatures at the first call; err is why they could not
// be.
func (s *setAside) loaded() error {
	s.once.Do(func() { s.err = s.load() })
	return s.err
}

// signed is a document's b-bit signature and size, looked up once for all
// the pairs of its bucket: the lookups, each a cache miss in arrays of
// every document, took as long as the tests themselves when each pair
// looked up both of its documents.
type signed struct {
	sig  []byte
	size int
	ok   bool // the file signs the document
}

// sign looks up the signature of id (s loaded first).
func sign[ID ~string | ~[]byte](s *setAside, id ID) signed {
	return signAt(s, bbit.Index(s.t, id))
}

// signAt is the signature of the document at place i of s's table
// (bbit.Index).
func signAt(s *setAside, i uint32) signed {
	sig, size, ok := s.t.At(i)
	return signed{sig, size, ok}
}

// rankPlaces is each document's place in the signatures' table by its
// rank (bbit.Index), found once, at the first bucket that needs one, for
// the cores of pairHeld: they looked each member up by its id at each of
// its buckets, a parse of its number and loads at random, 14 % of pairs'
// CPU on a million crawl documents. It holds 4 bytes a document.
type rankPlaces struct {
	once   sync.Once
	places []uint32
}

// get returns the places of the ranks of order, ids[order[r]] being the
// id of rank r (s loaded first).
func (r *rankPlaces) get(s *setAside, ids []string, order []uint32) []uint32 {
	r.once.Do(func() {
		r.places = make([]uint32, len(order))
		for rank, d := range order {
			r.places[rank] = bbit.Index(s.t, ids[d])
		}
	})
	return r.places
}

// judge tells whether the pair of a and b is far below the threshold,
// counting it in c.
func (s *setAside) judge(c *bbit.Counts, a, b *signed) bool {
	c.Pairs++
	if !a.ok || !b.ok {
		c.Unsigned++
		return false
	}
	return c.JudgeBy(s.far, a.sig, b.sig, a.size, b.size)
}

// far tells whether the pair of ids a and b is far below the threshold,
// counting it in c.
func far[ID ~string | ~[]byte](s *setAside, c *bbit.Counts, a, b ID) (bool, error) {
	if err := s.loaded(); err != nil {
		return false, err
	}
	x, y := sign(s, a), sign(s, b)
	return s.judge(c, &x, &y), nil
}

// signMembers looks up the signature of each member of a bucket, for
// judge: nothing without --bbit.
func (s *setAside) signMembers(ms []member) error {
	if s == nil {
		return nil
	}
	if err := s.loaded(); err != nil {
		return err
	}
	for i := range ms {
		ms[i].sg = sign(s, ms[i].id)
	}
	return nil
}

// report says what was set aside: nothing when no pair was made, and then
// the signatures were not read.
func (s *setAside) report(w io.Writer) {
	if s.t == nil {
		fmt.Fprintf(w, "pairs: --bbit %s: no pair was made, none set aside (the signatures were not read)\n", s.name)
		return
	}
	s.counts.Report(w, "pairs", s.name, "pairs tried (a pair in several buckets is tried in each)")
}
