package keep

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"iter"
	"math"
	"runtime/debug"
	"slices"
	"sort"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// The arrival-order rule for ids that are not arrival numbers, when the
// pairs do not fit in --memory (rule.go holds them in memory otherwise):
// the documents are read twice anyway, and the first pass gives each its
// rank, its place in the input. The pairs' ids (both of each pair, with
// the pair's place in the file) and the documents' (id, place) are sorted
// by id in --memory buffers spilled to --temp-dir, and merged together:
// each pair becomes a pair of ranks, sorted again by its place in the
// file, and handed to the numbered rule (numbered.go), which decides. An
// id not among the documents came before them all (an older batch): those
// ranks come first, in the order of their ids, as the general rule orders
// them. The names the report and --annotate need (the via and kept
// documents' ids of each document dropped) are fetched in a last sort, by
// the place of the document they are written with. What is held: the
// numbered rule's decisions (32 bytes a document dropped), 48 bytes a
// document dropped while the names are fetched, and 16 a document that
// repeats an id in a pair.

// ranked is the rule's state.
type ranked struct {
	memory  int64
	tempDir string
	file    string

	// ends has a record per pair and side: the id (appendKey), the
	// pair's place, the side (0, 1) and the similarity.
	ends *sorter
	// docs has a record per document: its id (appendKey) and place.
	docs *sorter
	// order has the documents' ids in input order; external, the ids
	// not in the input in id order (their ranks).
	order, external *seqFile
	// joined has a record per pair and side: place, side, rank,
	// similarity.
	joined *sorter
	// names has a record per name wanted: the place of the document it
	// is written with, what (0 kept, 1 via) and the id.
	names     *sorter
	nameNext  func() ([]byte, bool)
	nameStop  func()
	nameErr   error
	firstID   []byte
	pairs     int64
	ids       int64 // distinct ids in pairs
	metIDs    int64 // of them, among the documents
	nDocs     int64 // the documents of the first pass
	nExternal uint64
	repeated  int64
	// aliases are the documents that repeat an id in a pair: their place
	// and that of its first document, by place.
	aliases [][2]int64

	wantSpills int
	wantBytes  int64

	nr *numbered
	// keptOnly: the numbered rule applies the kept rule (keptrule.go).
	keptOnly bool
	// buf holds a record being built, canon a pair's ids.
	buf, canon []byte
}

func newRanked(memory int64, tempDir, file string) *ranked {
	return &ranked{memory: memory, tempDir: tempDir, file: file,
		ends:   newSorter(memory, tempDir, "pair-ids"),
		docs:   newSorter(memory, tempDir, "doc-ids"),
		joined: newSorter(memory, tempDir, "pair-ranks"),
		names:  newSorter(memory, tempDir, "names"),
	}
}

// addPair takes a pair of canonical ids.
func (r *ranked) addPair(a, b []byte, sim float32) error {
	if r.pairs == 0 {
		r.firstID = append([]byte{}, a...)
	}
	for side, id := range [][]byte{a, b} {
		r.buf = appendKey(r.buf[:0], id)
		r.buf = binary.BigEndian.AppendUint64(r.buf, uint64(r.pairs))
		r.buf = append(r.buf, byte(side))
		r.buf = binary.BigEndian.AppendUint32(r.buf, math.Float32bits(sim))
		if err := r.ends.add(r.buf); err != nil {
			return err
		}
	}
	r.pairs++
	return nil
}

// add takes a pair of the file, as the arrival rule's loader after it
// handed over (arrivalLoader.handOver).
func (r *ranked) add(s *record.Scored, _ record.Pos) (pairLoader, error) {
	r.canon = record.CanonicalID(r.canon[:0], s.A)
	n := len(r.canon)
	r.canon = record.CanonicalID(r.canon, s.B)
	return r, r.addPair(r.canon[:n], r.canon[n:], float32(s.J))
}

func (r *ranked) rule(context.Context) (rule, error) { return r, r.endPairs() }

// endPairs spills the pairs held: the documents' buffer gets --memory.
func (r *ranked) endPairs() error {
	defer r.ends.free()
	if len(r.ends.recs) == 0 {
		return nil
	}
	return r.ends.spill()
}

// noteDoc takes document n of the first pass and its id.
func (r *ranked) noteDoc(n int64, id []byte) error {
	if r.order == nil {
		var err error
		if r.order, err = newSeqFile(r.tempDir, "keep-doc-order-*"); err != nil {
			return err
		}
	}
	if err := r.order.add(id); err != nil {
		return err
	}
	r.nDocs++
	r.buf = appendKey(r.buf[:0], id)
	r.buf = binary.BigEndian.AppendUint64(r.buf, uint64(n))
	return r.docs.add(r.buf)
}

// join merges the pairs' ids with the documents' into pairs of ranks, and
// has the numbered rule decide.
func (r *ranked) join(ctx context.Context) (err error) {
	var errE, errD, errJ error
	defer func() {
		err = cmpErr(err, errE, errD, errJ)
	}()
	if r.external, err = newSeqFile(r.tempDir, "keep-external-*"); err != nil {
		return err
	}
	endNext, endStop := iter.Pull(r.ends.sorted(&errE))
	defer endStop()
	docNext, docStop := iter.Pull(r.docs.sorted(&errD))
	defer docStop()
	// Ranks: below the input's first the ids not in it, by id; a
	// document's rank is then nExternal + its place. Places and
	// external ranks are joined first; nExternal is known after.
	const inInputBit = 1 << 63
	var id, docID, prev []byte
	end, endOK := endNext()
	doc, docOK := docNext()
	if docOK {
		docID, _ = splitKey(docID, doc)
	}
	for endOK {
		var rest []byte
		id, rest = splitKey(id, end)
		prev = append(prev[:0], id...)
		r.ids++
		if r.ids%(1<<16) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		for docOK && string(docID) < string(id) {
			if doc, docOK = docNext(); docOK {
				docID, _ = splitKey(docID, doc)
			}
		}
		rank, first := uint64(0), true
		for docOK && string(docID) == string(id) {
			place := int64(binary.BigEndian.Uint64(doc[len(doc)-8:]))
			if first {
				rank, first = inInputBit|uint64(place), false
				r.metIDs++
			} else {
				r.aliases = append(r.aliases, [2]int64{place, int64(rank &^ inInputBit)})
			}
			if doc, docOK = docNext(); docOK {
				docID, _ = splitKey(docID, doc)
			}
		}
		if first {
			rank = r.nExternal
			r.nExternal++
			if err := r.external.add(id); err != nil {
				return err
			}
		}
		for {
			// rest: place, side, similarity.
			r.buf = append(r.buf[:0], rest[:9]...)
			r.buf = binary.BigEndian.AppendUint64(r.buf, rank)
			r.buf = append(r.buf, rest[9:13]...)
			if err := r.joined.add(r.buf); err != nil {
				return err
			}
			if end, endOK = endNext(); !endOK {
				break
			}
			if id, rest = splitKey(id, end); string(id) != string(prev) {
				break
			}
		}
	}
	if errE != nil || errD != nil {
		return nil
	}
	endStop()
	docStop()
	r.ends.remove()
	r.docs.remove()
	slices.SortFunc(r.aliases, func(x, y [2]int64) int { return int(x[0] - y[0]) })

	r.nr = newNumbered(r.nExternal, r.memory, r.tempDir)
	r.nr.ranked = true
	r.nr.keptOnly = r.keptOnly
	rankOf := func(rec []byte) uint64 {
		v := binary.BigEndian.Uint64(rec[9:17])
		if v&inInputBit != 0 {
			return r.nExternal + v&^inInputBit
		}
		return v
	}
	var a uint64
	for rec := range r.joined.sorted(&errJ) {
		if rec[8] == 0 {
			a = rankOf(rec)
			continue
		}
		if r.nr.pairs%(1<<16) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		sim := math.Float32frombits(binary.BigEndian.Uint32(rec[17:21]))
		if err := r.nr.add(a, rankOf(rec), sim); err != nil {
			return err
		}
	}
	if errJ != nil {
		return nil
	}
	r.joined.remove()
	if err := r.nr.decide(); err != nil {
		return err
	}
	// The pairs' buffer of --memory goes before the names' are filled.
	debug.FreeOSMemory()
	return nil
}

// cmpErr is the first error that is not nil.
func cmpErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// fetchNames finds the ids of the kept and via documents of each document
// dropped, sorted by the place of the document they are written with.
func (r *ranked) fetchNames() (err error) {
	// wants has a record per name wanted: its rank, the place of the
	// document it is written with and what (0 kept, 1 via). It and names
	// have half of --memory each.
	nr := r.nr
	wants := newSorter(r.memory/2, r.tempDir, "wanted-names")
	defer func() {
		r.wantSpills, r.wantBytes = wants.spills, wants.spilled
		wants.remove()
	}()
	r.names.memory = r.memory / 2
	want := func(rank uint64, place int64, what byte) error {
		r.buf = binary.BigEndian.AppendUint64(r.buf[:0], rank)
		r.buf = binary.BigEndian.AppendUint64(r.buf, uint64(place))
		return wants.add(append(r.buf, what))
	}
	for i, d := range nr.drop {
		place := int64(d - r.nExternal)
		if err := want(nr.root[i], place, 0); err != nil {
			return err
		}
		if err := want(nr.via[i], place, 1); err != nil {
			return err
		}
	}
	for _, al := range r.aliases {
		// A repeat of a document dropped: dropped for its kept document.
		if i, ok := slices.BinarySearch(nr.drop, r.nExternal+uint64(al[1])); ok {
			if err := want(nr.root[i], al[0], 0); err != nil {
				return err
			}
		}
	}
	ext, err := r.external.reader()
	if err != nil {
		return err
	}
	var docs *sortedRun
	if r.order != nil {
		if docs, err = r.order.reader(); err != nil {
			return err
		}
	}
	var id []byte
	next := uint64(0) // the rank of the next id read
	var errW error
	for w := range wants.sorted(&errW) {
		rank := binary.BigEndian.Uint64(w)
		for next <= rank {
			src := ext
			if next >= r.nExternal {
				src = docs
			}
			more := false
			if src != nil {
				if more, err = src.next(); err != nil {
					return err
				}
			}
			if !more {
				return fmt.Errorf("keep: rank %d beyond the ids spilled", rank)
			}
			id = append(id[:0], src.cur...)
			next++
		}
		r.buf = append(append(r.buf[:0], w[8:17]...), id...)
		if err := r.names.add(r.buf); err != nil {
			return err
		}
	}
	if errW != nil {
		return errW
	}
	r.external.remove()
	r.order.remove()
	r.external, r.order = nil, nil
	r.nameNext, r.nameStop = iter.Pull(r.names.sorted(&r.nameErr))
	return nil
}

// name returns the id fetched for the document at place, what (0 kept,
// 1 via).
func (r *ranked) name(place int64, what byte) ([]byte, error) {
	rec, ok := r.nameNext()
	if !ok {
		return nil, cmpErr(r.nameErr, fmt.Errorf("keep: the names fetched end before document %d", place))
	}
	if int64(binary.BigEndian.Uint64(rec)) != place || rec[8] != what {
		return nil, fmt.Errorf("keep: the names fetched are out of step at document %d", place)
	}
	return rec[9:], nil
}

// decideDoc decides the document at place, with id, in the second pass:
// whether it is in a pair, whether it stays, and when it does not, the
// kept document's id, the via's and the similarity.
func (r *ranked) decideDoc(place int64, id []byte) (inPair, stays bool, kept, via []byte, sim float64, err error) {
	nr := r.nr
	if i, ok := slices.BinarySearchFunc(r.aliases, place, func(a [2]int64, p int64) int { return int(a[0] - p) }); ok {
		r.repeated++
		j := sort.Search(len(nr.drop), func(j int) bool { return nr.drop[j] >= r.nExternal+uint64(r.aliases[i][1]) })
		if j == len(nr.drop) || nr.drop[j] != r.nExternal+uint64(r.aliases[i][1]) {
			return true, true, id, id, math.NaN(), nil
		}
		kept, err = r.name(place, 0)
		return true, false, kept, kept, math.NaN(), err
	}
	v := r.nExternal + uint64(place)
	if !nr.member(v) {
		return false, true, id, id, math.NaN(), nil
	}
	stays, _, _, sim = nr.decideDoc(v)
	if stays {
		return true, true, id, id, sim, nil
	}
	if kept, err = r.name(place, 0); err != nil {
		return
	}
	// (kept is valid until the next name: copied.)
	kept = append([]byte{}, kept...)
	via, err = r.name(place, 1)
	return true, false, kept, via, sim, err
}

// find: a document is in a pair or not by its place (decide).
func (r *ranked) find([]byte) (int64, uint32, uint64) { return notInCluster, 0, 0 }

// twoPass: the first pass gives the ranks.
func (r *ranked) twoPass() bool { return true }

func (r *ranked) note(_ doc, n int64, id []byte) error { return r.noteDoc(n, id) }

func (r *ranked) counted(ctx context.Context) error { return r.join(ctx) }

func (r *ranked) ready(stderr io.Writer) error {
	if err := r.fetchNames(); err != nil {
		return err
	}
	r.report(stderr)
	r.nr.report(stderr, r.tempDir)
	return nil
}

func (r *ranked) decide(_ doc, n int64, id []byte) (verdict, error) {
	in, stays, kept, via, sim, err := r.decideDoc(n, id)
	return verdict{in: in, stays: stays, name: kept, dropped: record.Dropped{Dropped: id, Via: via, Similarity: sim}}, err
}

func (r *ranked) idsMet() idCount {
	return idCount{file: r.file, total: int(r.ids), missing: int(r.ids - r.metIDs), first: func() []byte { return r.firstID }}
}

func (r *ranked) repeats() int64 { return r.repeated }

func (r *ranked) summary(stderr io.Writer, t *tally, stats bool) {
	reportArrival(stderr, r.nr.external)
	t.pairStats(stderr, r.pairs, stats)
}

// report says on standard error what was spilled.
func (r *ranked) report(stderr io.Writer) {
	dir := r.tempDir
	if dir == "" {
		dir = "the system's temporary directory"
	}
	runs := r.ends.spills + r.docs.spills + r.joined.spills + r.names.spills + r.wantSpills
	bytes := r.ends.spilled + r.docs.spilled + r.joined.spilled + r.names.spilled + r.wantBytes
	fmt.Fprintf(stderr, "keep: %d pairs of ids that are not arrival numbers beyond --memory %s: the pairs' and the %d documents' ids spilled to %d sorted run(s) of %.1f MB in %s, joined by id\n",
		r.pairs, stream.FormatSize(r.memory), r.nDocs, runs, float64(bytes)/1e6, dir)
}

// remove removes what is left on disk.
func (r *ranked) remove() {
	if r.nameStop != nil {
		r.nameStop()
	}
	r.ends.remove()
	r.docs.remove()
	r.joined.remove()
	r.names.remove()
	r.order.remove()
	r.external.remove()
	if r.nr != nil {
		r.nr.runs.Remove()
	}
}
