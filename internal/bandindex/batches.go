package bandindex

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
)

// An index of records whose ids are arrival numbers (shingle
// --number-from) keeps, in its manifest, a batch line for each batch of
// them it was given: the numbers it holds (from the shingle header's from=
// to one past the largest id) and the inputs they were given to (its
// inputs=, input.Batch). A batch whose numbers do not come after those
// already held is refused by bandindex add and pairs --against, unless it
// is one of them again (the same from= and inputs=): add then adds
// nothing, so that a run of a batch job that stopped after its add can be
// run again. pairs --against writes the index's batches in its header
// (batches=), for verify --documents to check the older batches' files.

// batchTracker notes the numbered batches of the band records read: a
// numbered shingle header starts one (or takes up one seen before), and
// the largest arrival number among its records sets its end.
type batchTracker struct {
	batches []input.Batch
	pos     []record.Pos
	cur     int
}

func newBatchTracker() *batchTracker { return &batchTracker{cur: -1} }

// header takes a header line of the records.
func (t *batchTracker) header(h record.Header, pos record.Pos) error {
	if h.Stage != "shingle" {
		return nil
	}
	b, ok, err := input.BatchOf(h)
	if err != nil {
		return record.Errorf(pos, "%v", err)
	}
	t.cur = -1
	if !ok {
		return nil
	}
	for i, o := range t.batches {
		if o.From == b.From && input.FormatInputs(o.Inputs) == input.FormatInputs(b.Inputs) {
			t.cur = i
			return nil
		}
	}
	b.Next, b.Where = b.From, "the shingle header at "+pos.String()
	t.batches = append(t.batches, b)
	t.pos = append(t.pos, pos)
	t.cur = len(t.batches) - 1
	return nil
}

// id takes the id of a record.
func (t *batchTracker) id(id []byte) {
	if t.cur < 0 {
		return
	}
	if n, ok := input.ParseNumber(id); ok && int64(n) >= t.batches[t.cur].Next {
		t.batches[t.cur].Next = int64(n) + 1
	}
}

// adding returns add that notes each record's id first.
func (t *batchTracker) adding(add func(key, id []byte) error) func(key, id []byte) error {
	return func(key, id []byte) error {
		t.id(id)
		return add(key, id)
	}
}

// overlap refuses batches read together whose numbers overlap, at the
// header of the later.
func (t *batchTracker) overlap() error {
	order := make([]int, len(t.batches))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(t.batches[i].From, t.batches[j].From) })
	for k := 1; k < len(order); k++ {
		a, b := t.batches[order[k-1]], t.batches[order[k]]
		if b.From < a.Next {
			return record.Errorf(t.pos[order[k]], "the batch %s overlaps the batch %s (%s): arrival numbers are given once",
				b.Numbers(), a.Numbers(), a.Where)
		}
	}
	return nil
}

// errSameBatch stops bandindex add at the header of a batch the index
// holds already.
var errSameBatch = errors.New("the batch is in the index already")

// batchPos is where the manifest's batch line i is.
func (ix *Index) batchPos(i int) record.Pos {
	return record.Pos{File: filepath.Join(ix.Dir, manifestName), Line: int64(1 + len(ix.m.headers) + i + 1)}
}

// Batches returns the numbered batches the index holds, oldest first,
// each placed at its line of the manifest.
func (ix *Index) Batches() []input.Batch {
	bs := slices.Clone(ix.m.batches)
	for i := range bs {
		bs[i].Where = "the band index's batch at " + ix.batchPos(i).String()
	}
	return bs
}

// ReadBatches returns the numbered batches the index in dir holds, from
// its manifest alone.
func ReadBatches(dir string) ([]input.Batch, error) {
	m, err := readManifest(osFS{}, dir)
	if err != nil {
		return nil, err
	}
	return m.batches, nil
}

// CheckBatch checks the header line h of a batch of band records, read at
// pos, against the batches the index holds: a numbered shingle header
// must number from the end of the index's numbers on. same reports a
// batch the index holds already (the same from= and inputs=, all bound).
func (ix *Index) CheckBatch(h record.Header, pos record.Pos) (same bool, err error) {
	if h.Stage != "shingle" {
		return false, nil
	}
	b, ok, err := input.BatchOf(h)
	if err != nil || !ok {
		return false, recordErr(pos, err)
	}
	for i, o := range ix.m.batches {
		if b.Same(o) {
			return true, nil
		}
		if b.From < o.Next {
			return false, record.Errorf(pos, "the batch is numbered from %d, but the index %s holds the batch %s (%s:%d, inputs=%s): a batch is numbered from where the last one ended (shingle --number-from %d)",
				b.From, ix.Dir, o.Numbers(), filepath.Join(ix.Dir, manifestName), ix.batchPos(i).Line, input.FormatInputs(o.Inputs), ix.nextNumber())
		}
	}
	return false, nil
}

// nextNumber is the number after the last the index's batches hold.
func (ix *Index) nextNumber() int64 {
	var n int64
	for _, b := range ix.m.batches {
		n = max(n, b.Next)
	}
	return n
}

// SameBatchNote says on stderr, as stage, that the batch paired or added
// is one the index holds already.
func SameBatchNote(stderr io.Writer, stage string, ix *Index, pos record.Pos, what string) {
	fmt.Fprintf(stderr, "%s: the batch of %s is one the index %s holds already (the same from= and inputs=): %s\n", stage, pos.File, ix.Dir, what)
}

func recordErr(pos record.Pos, err error) error {
	if err == nil {
		return nil
	}
	return record.Errorf(pos, "%v", err)
}
