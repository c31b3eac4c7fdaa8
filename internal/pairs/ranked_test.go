package pairs

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/neardup/neardup/internal/record"
)

// writeRanked writes the pairs of all parts once each, in order, as ids:
// the same bytes on any number of cores, with pieces cut across parts
// and pairs repeated within a part and across them; a writer's error
// stops it.
func TestWriteRanked(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const nids = 3000
	ids := make([]string, nids)
	order := make([]uint32, nids)
	for i := range ids {
		ids[i] = fmt.Sprintf("doc%05d", i)
		order[i] = uint32(nids - 1 - i) // rank r is ids[nids-1-r]
	}
	pair := func() uint64 {
		a, b := rng.Uint32N(nids), rng.Uint32N(nids)
		return uint64(min(a, b))<<32 | uint64(max(a, b))
	}
	for _, sizes := range [][]int{{}, {0, 5}, {100}, {5 * rankedPiece, 3 * rankedPiece}, {40_000, 40_000, 100, 0}, {20_000, 20_000, 20_000, 20_000}} {
		parts := make([][]uint64, len(sizes))
		var all []uint64
		for i, n := range sizes {
			for range n {
				p := pair()
				if len(all) > 0 && rng.IntN(10) == 0 {
					p = all[rng.IntN(len(all))] // a pair of another part, or this one
				}
				parts[i] = append(parts[i], p)
				all = append(all, p)
			}
			slices.Sort(parts[i])
		}
		slices.Sort(all)
		var want []byte
		for _, p := range slices.Compact(all) {
			want = record.AppendPair(want, ids[order[p>>32]], ids[order[p&0xffffffff]])
		}
		for _, jobs := range []int{1, 2, 5} {
			var got bytes.Buffer
			counted := &failing{w: &got, after: -1}
			if err := writeRanked(counted, parts, ids, order, jobs); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("parts of %v, -j %d: %d bytes, want %d (%d pairs)", sizes, jobs, got.Len(), len(want), len(slices.Compact(all)))
			}
			// On more cores each write is a piece, held until written:
			// of about rankedPiece pairs (18 bytes each here), however
			// many parts.
			if jobs > 1 && counted.largest > 2*rankedPiece*18 {
				t.Errorf("parts of %v, -j %d: a piece of %d bytes, want at most %d", sizes, jobs, counted.largest, 2*rankedPiece*18)
			}
			for _, after := range []int{0, 2} {
				if counted.writes > after {
					w := &failing{w: &bytes.Buffer{}, after: after}
					if err := writeRanked(w, parts, ids, order, jobs); !errors.Is(err, errWrite) {
						t.Errorf("parts of %v, -j %d, a writer that fails after %d writes: %v", sizes, jobs, after, err)
					}
				}
			}
		}
	}
}

var errWrite = errors.New("write failed")

// failing writes to w and counts its writes (and the largest), and fails
// those after the first after (none when after < 0).
type failing struct {
	w                      *bytes.Buffer
	after, writes, largest int
}

func (f *failing) Write(b []byte) (int, error) {
	if f.after >= 0 && f.writes >= f.after {
		return 0, errWrite
	}
	f.writes++
	f.largest = max(f.largest, len(b))
	return f.w.Write(b)
}
