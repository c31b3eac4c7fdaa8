package pairs

import (
	"fmt"
	"maps"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/band"
	"github.com/neardup/neardup/internal/lsh"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/simhash"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/testutil"
)

// TestHammingCap: Hamming band records with a crowded group (40 variants
// within 2 bits of one fingerprint) and --max-bucket 5: both modes write
// the same pairs, within k bits, every variant paired with the group's
// first ids, and the pairs not made are counted.
func TestHammingCap(t *testing.T) {
	opts := &lsh.HammingOptions{K: 3}
	fps, in := hammingGroup(t, opts, 2, 4, 40, 3, 30)
	opt := Options{MaxBucket: 5, Hamming: opts, Common: stream.Common{NoHeader: true}, TempDir: t.TempDir()}
	mem, sorted := modes(t, opt, string(in))
	if mem != sorted {
		t.Fatalf("memory and sorted modes differ")
	}
	// The five smallest ids of the group are g00..g04: each other variant
	// is paired with each of them that is within 3 bits.
	for _, l := range strings.Split(strings.TrimSuffix(mem, "\n"), "\n") {
		a, b, _ := strings.Cut(l, "\t")
		if d := bits.OnesCount64(fps[a] ^ fps[b]); d > 3 {
			t.Fatalf("pair %s %s at %d bits", a, b, d)
		}
	}
	for i := 5; i < 40; i++ {
		g := fmt.Sprintf("g%02d", i)
		if bits.OnesCount64(fps["g00"]^fps[g]) <= 3 && !strings.Contains(mem, "g00\t"+g+"\n") {
			t.Errorf("%s is within 3 bits of g00 but not paired with it", g)
		}
	}
	_, stderr, err := runStage(t, opt, testutil.WriteFile(t, "keys.tsv", string(in)))
	if err != nil || !strings.Contains(stderr, "held more than --max-bucket 5 ids (the largest ") {
		t.Errorf("stderr %q, %v", stderr, err)
	}
}

// hammingGroup returns fingerprints (a group of group variants within
// flips-1 bits of one fingerprint, ids g00.., and random ones, ids r..,
// from the seeds) and their Hamming band records under opts, by id.
func hammingGroup(t *testing.T, opts *lsh.HammingOptions, seed1, seed2 uint64, group, flips, random int) (map[string]uint64, []byte) {
	t.Helper()
	scheme, err := opts.Scheme(64)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed1, seed2))
	base := rng.Uint64()
	fps := map[string]uint64{}
	for i := range group {
		fp := base
		for range rng.IntN(flips) {
			fp ^= 1 << rng.IntN(64)
		}
		fps[fmt.Sprintf("g%02d", i)] = fp
	}
	for i := range random {
		fps[fmt.Sprintf("r%03d", i)] = rng.Uint64()
	}
	var in, key []byte
	for _, id := range slices.Sorted(maps.Keys(fps)) {
		fp := simhash.Fingerprint{Hi: fps[id]}
		for tb := range scheme.Tables {
			key = band.AppendHammingKey(key[:0], tb, scheme.Key(tb, fp), 64)
			in = record.AppendHammingBand(in, key, []byte(id), fps[id], 0, 64)
		}
	}
	return fps, in
}
