package keep

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// ownIDs carries the documents' own ids when the ids are arrival numbers
// (input.DocParser.OwnID): the report's last three columns, the own ids of
// dropped, kept and via (the arrival and kept rules of --pairs), and the
// map "number TAB own id" of every document read (WriteIDMap), which a
// later batch reads back (IDMaps) for the documents of this one that its
// report names. What is held: the own ids of the documents that the report
// names as kept or via, those of the input as they are met and those of
// earlier batches read from the maps at the start; the maps stream.
type ownIDs struct {
	// columns: the report gets the own ids (the numbered rule).
	columns bool
	// named are the numbers the report names as kept or via, sorted, and
	// ids their own ids once met.
	named   []uint64
	ids     [][]byte
	unknown int64
	cols    [3][]byte

	idMap *disk.File
	w     *bufio.Writer
	line  []byte
}

func newOwnIDs(ctx context.Context, o *Options, r rule) (*ownIDs, error) {
	own := &ownIDs{}
	if nr, ok := r.(*numberedRule); ok && o.Report != "" {
		own.columns = true
		own.named = append(append([]uint64(nil), nr.n.via...), nr.n.root...)
		slices.Sort(own.named)
		own.named = slices.Compact(own.named)
		own.ids = make([][]byte, len(own.named))
		if err := own.load(ctx, o.IDMaps, uint64(o.reading.NumberFrom)); err != nil {
			return nil, err
		}
	}
	if o.WriteIDMap != "" {
		f, err := disk.Create(disk.OS{}, disk.Target{Name: o.WriteIDMap, Mode: 0o644, InPlace: true})
		if err != nil {
			return nil, err
		}
		own.idMap, own.w = f, bufio.NewWriterSize(f, 1<<16)
	}
	return own, nil
}

// load reads the maps "number TAB own id" of earlier batches for the named
// numbers below from.
func (o *ownIDs) load(ctx context.Context, maps []string, from uint64) error {
	if len(maps) == 0 {
		return nil
	}
	sc := stream.NewScanner(stream.NewLines(maps))
	defer sc.Close()
	for n := 1; sc.Scan(); n++ {
		num, id, ok := record.Cut(sc.Line())
		v, isNum := input.ParseNumber(num)
		if !ok || !isNum || len(id) == 0 {
			return record.Errorf(sc.Pos(), "--id-map reads \"number TAB own id\" (keep --write-id-map), the number of %d digits", input.NumberDigits)
		}
		if i, found := slices.BinarySearch(o.named, v); found && v < from {
			o.ids[i] = append([]byte(nil), id...)
		}
		if n%(1<<16) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return sc.Err()
}

// document takes the next document read, its id (an arrival number) and
// its own id.
func (o *ownIDs) document(id, own []byte) error {
	if o.columns {
		if v, ok := input.ParseNumber(id); ok {
			if i, found := slices.BinarySearch(o.named, v); found {
				o.ids[i] = append(o.ids[i][:0], own...)
			}
		}
	}
	if o.w == nil {
		return nil
	}
	o.line = append(append(append(append(o.line[:0], id...), '\t'), own...), '\n')
	_, err := o.w.Write(o.line)
	return err
}

// of returns the own ids of a report's line: own, the dropped document's,
// and those of its kept and via, "-" when not known (counted).
func (o *ownIDs) of(own []byte, d record.Dropped) [][]byte {
	if !o.columns {
		return nil
	}
	o.cols[0] = own
	for i, id := range [][]byte{d.Kept, d.Via} {
		o.cols[i+1] = o.lookup(id)
	}
	return o.cols[:]
}

func (o *ownIDs) lookup(id []byte) []byte {
	if v, ok := input.ParseNumber(id); ok {
		if i, found := slices.BinarySearch(o.named, v); found && o.ids[i] != nil {
			return o.ids[i]
		}
	}
	o.unknown++
	return []byte{'-'}
}

// finish commits the map and says on stderr how many own ids were not known.
func (o *ownIDs) finish(stderr io.Writer) error {
	if o.unknown > 0 {
		fmt.Fprintf(stderr, "keep: %d own id(s) of kept or via documents not known (of an earlier batch, in no --id-map): written \"-\" in the report\n", o.unknown)
	}
	if o.w == nil {
		return nil
	}
	if err := o.w.Flush(); err != nil {
		return err
	}
	return o.idMap.Commit()
}

func (o *ownIDs) abort() {
	if o.idMap != nil {
		o.idMap.Abort()
	}
}
