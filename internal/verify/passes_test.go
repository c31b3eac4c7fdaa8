package verify

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/stream"
)

// tableOf builds the pair table of pair lines over documents named d0, d1, …
func tableOf(t *testing.T, numbered bool, lines string) *pairTable {
	t.Helper()
	tb := newPairTable(numbered, 1)
	var nl *numberedLines
	if numbered {
		nl = parseNumbered([]byte(lines))
	}
	tb.add(&stream.Chunk{FirstOrdinal: 1, Data: []byte(lines)}, nl)
	tb.done(2)
	return tb
}

// runPasses reads the documents in order, pass after pass, as the stage
// does, and returns the number of passes.
func runPasses(t *testing.T, p *passes, order []string, sets map[string][]uint64) int {
	t.Helper()
	for n := 1; ; n++ {
		p.begin()
		for _, id := range order {
			d, ok := p.t.lookup([]byte(id))
			if !ok {
				continue
			}
			if r := p.rank[d]; n > 1 && r != noRank && r < p.start {
				continue // the scratch holds only what comes after start
			}
			has := p.needs(d)
			if err := p.take(d, sets[id], appendHist(nil, sets[id]), has, 0); err != nil {
				t.Fatal(err)
			}
			if n > 1 && p.idle() {
				break
			}
		}
		if !p.end(nil) {
			return n
		}
		if n > len(order)+1 {
			t.Fatal("the passes make no progress")
		}
	}
}

func TestPassesScoreEveryPair(t *testing.T) {
	// Random pairs among 60 documents of random sets, scored with budgets
	// from all to one document a pass: every intersection is exact, and a
	// smaller budget never means fewer passes.
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 60
	sets := map[string][]uint64{}
	var order []string
	for i := range n {
		id := fmt.Sprintf("%012d", i)
		order = append(order, id)
		var s []uint64
		for v := range uint64(200) {
			if rng.IntN(3) == 0 {
				s = append(s, v)
			}
		}
		sets[id] = s
	}
	checkPasses(t, rng, order, sets)
}

func TestPassesNearDuplicates(t *testing.T) {
	// Variants of one set, each lacking some of its values and adding
	// some of its own, from none to a third of them (near one another, as
	// scoreGroup counts them through a reference, and far): every
	// intersection is exact, whichever document is the reference.
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 60
	var base []uint64
	for v := range uint64(2000) {
		if rng.IntN(2) == 0 {
			base = append(base, v)
		}
	}
	sets := map[string][]uint64{}
	var order []string
	for i := range n {
		id := fmt.Sprintf("%012d", i)
		order = append(order, id)
		differ := []float64{0, 0.005, 0.01, 0.03, 0.06, 0.1, 0.3}[rng.IntN(7)]
		var s []uint64
		for _, v := range base {
			if rng.Float64() >= differ {
				s = append(s, v)
			}
		}
		// The values added come from a few, so that variants share some.
		added := int(differ * float64(len(base)))
		for range added {
			s = append(s, 2000+rng.Uint64N(uint64(2*added)))
		}
		slices.Sort(s)
		sets[id] = slices.Compact(s)
	}
	checkPasses(t, rng, order, sets)
}

// checkPasses scores random pairs of the documents of order with budgets
// from all to one document a pass, each on a pool of goroutines and off
// it, against intersect.
func checkPasses(t *testing.T, rng *rand.Rand, order []string, sets map[string][]uint64) {
	t.Helper()
	n := len(order)
	var b strings.Builder
	b.WriteString("#neardup stage=pairs\n")
	type pair struct{ a, b string }
	var pairs []pair
	for range 5 * n / 2 {
		x, y := rng.IntN(n), rng.IntN(n)
		if x == y {
			continue
		}
		pairs = append(pairs, pair{order[x], order[y]})
		fmt.Fprintf(&b, "%s\t%s\n", order[x], order[y])
	}
	b.WriteString("bad line\n")
	for _, numbered := range []bool{true, false} {
		last := 0
		// A document's cost held, on average: 20,000 bytes hold about 32
		// of the random sets, 1,000 about one and a half.
		total := 0
		for _, s := range sets {
			total += len(s)
		}
		unit := heldCost(total/n) * 5 / 8
		for k, budget := range []int64{1 << 30, 32 * unit, 8 * unit, 8 * unit / 5, 1} {
			tb := tableOf(t, numbered, b.String())
			p := newPasses(tb, budget)
			// The counts made on a pool of goroutines, off the sink: the same.
			p.score = newScorer(k % 3)
			defer p.score.close()
			got := runPasses(t, p, order, sets)
			if got < last {
				t.Errorf("budget %d: %d passes, fewer than %d with more", budget, got, last)
			}
			last = got
			if p.maxHeld > budget && budget > 8*unit/5 {
				t.Errorf("budget %d: held %d", budget, p.maxHeld)
			}
			for i, pr := range pairs {
				line := i + 1 // after the header
				want := intersect(sets[pr.a], sets[pr.b])
				if int(tb.inter[line]) != want {
					t.Fatalf("numbered %v budget %d: pair %s %s: %d, want %d", numbered, budget, pr.a, pr.b, tb.inter[line], want)
				}
			}
			if tb.inter[0] != unscored || tb.inter[len(tb.inter)-1] != unscored {
				t.Error("a header or a bad line was scored")
			}
			if budget == 1<<30 && got != 1 {
				t.Errorf("everything fits: %d passes", got)
			}
		}
		if last < 10 {
			t.Errorf("numbered %v: a budget of one document took %d passes", numbered, last)
		}
	}
}

func TestPassesEvict(t *testing.T) {
	// A chain a-b, b-c, c-d, …: each set is let go once its last partner
	// came, so no more than two are held, whatever the length.
	var b strings.Builder
	var order []string
	sets := map[string][]uint64{}
	for i := range 100 {
		id := fmt.Sprintf("d%03d", i)
		order = append(order, id)
		sets[id] = []uint64{uint64(i), uint64(i + 1), uint64(i + 2)}
		if i > 0 {
			fmt.Fprintf(&b, "%s\t%s\n", order[i-1], id)
		}
	}
	tb := tableOf(t, false, b.String())
	p := newPasses(tb, 1<<30)
	if n := runPasses(t, p, order, sets); n != 1 {
		t.Fatalf("%d passes", n)
	}
	if max := int64(2 * (3*8 + heldDocBytes)); p.maxHeld > max {
		t.Errorf("held %d bytes at most, want at most %d", p.maxHeld, max)
	}
	for i, v := range tb.inter {
		if v != 2 {
			t.Errorf("line %d: %d", i, v)
		}
	}
	// A document missing from the corpus: its pair stays unscored, and
	// the other is held to the end, but the pass ends.
	tb = tableOf(t, false, "d000\tgone\nd000\td001\n")
	p = newPasses(tb, 1)
	if n := runPasses(t, p, order[:2], sets); n != 1 || tb.inter[0] != unscored || tb.inter[1] != 2 {
		t.Errorf("%d passes, %v", n, tb.inter)
	}
}

func TestPassesNeeds(t *testing.T) {
	// Once the block is closed, a document is shingled only when a
	// partner is in the block.
	tb := tableOf(t, false, "a\tb\nc\td\na\td\n")
	p := newPasses(tb, 8*3+heldDocBytes)
	p.begin()
	doc := func(id string) uint32 { d, _ := tb.lookup([]byte(id)); return d }
	set := []uint64{1, 2, 3}
	for _, id := range []string{"a", "c"} { // a held, c closes the block
		if !p.needs(doc(id)) {
			t.Fatalf("%s not needed", id)
		}
		if err := p.take(doc(id), set, nil, true, 0); err != nil {
			t.Fatal(err)
		}
	}
	if p.closed.Load() != 1 {
		t.Fatalf("closed at %d", p.closed.Load())
	}
	if p.needs(doc("b")) != true || p.needs(doc("d")) != true {
		t.Error("b and d have a partner held")
	}
	if err := p.take(doc("b"), set, nil, true, 0); err != nil {
		t.Fatal(err)
	}
	if err := p.take(doc("b"), set, nil, true, 0); err == nil {
		t.Error("a document read twice in a pass was taken")
	}
	if !slices.Equal(tb.inter, []uint32{3, unscored, unscored}) {
		t.Errorf("%v", tb.inter)
	}
}

// A numbered table finds the document of each number, the count of the
// distinct numbers below it, for dense numbers (a bit for each, rank) and
// sparse ones (sorted, searched), across blocks of the lists; numbers no
// pair names, and ids of another form, are in no document.
func TestNumberDocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct {
		lines     int
		from, gap uint64
		dense     bool
	}{
		{10, 0, 1, true},
		{100_000, 1_000_000, 3, true},
		{1000, 5, 16, true},
		{1000, 5, 200, false},
		{40_007, 1 << 40, 1 << 20, false},
	} {
		tb := newPairTable(true, 0)
		want := map[uint64]bool{}
		var as, bs []uint64
		for range c.lines {
			a, b := c.from+c.gap*rng.Uint64N(uint64(c.lines)), c.from+c.gap*rng.Uint64N(uint64(c.lines))
			if rng.IntN(50) == 0 {
				a = math.MaxUint64 // an id of another form
			} else {
				want[a] = true
			}
			want[b] = true
			as, bs = append(as, a), append(bs, b)
		}
		// In blocks of uneven sizes, as chunks of lines give them.
		for i := 0; i < len(as); {
			n := min(1+rng.IntN(20_000), len(as)-i)
			tb.a64.addBlock(slices.Clone(as[i : i+n]))
			tb.b64.addBlock(slices.Clone(bs[i : i+n]))
			i += n
		}
		tb.done(3)
		if dense := tb.rank != nil; dense != c.dense {
			t.Errorf("%+v: dense %v", c, dense)
		}
		if len(tb.nums) != len(want) || !slices.IsSorted(tb.nums) {
			t.Fatalf("%+v: %d documents, want %d, sorted %v", c, len(tb.nums), len(want), slices.IsSorted(tb.nums))
		}
		for d, n := range tb.nums {
			if got, ok := tb.lookupNumber(n); !ok || got != uint32(d) {
				t.Fatalf("%+v: number %d: document %d (%v), want %d", c, n, got, ok, d)
			}
		}
		for _, n := range []uint64{c.from - 1, c.from + 1, c.from + c.gap*uint64(c.lines) + 1, math.MaxUint64} {
			if want[n] {
				continue
			}
			if got, ok := tb.lookupNumber(n); ok || got != noDoc {
				t.Fatalf("%+v: number %d in no pair: document %d (%v)", c, n, got, ok)
			}
		}
		for i := range as {
			if as[i] == math.MaxUint64 && tb.a[i] != noDoc || as[i] != math.MaxUint64 && tb.nums[tb.a[i]] != as[i] || tb.nums[tb.b[i]] != bs[i] {
				t.Fatalf("%+v: line %d names the wrong documents", c, i)
			}
		}
	}
}

// TestPassesBound: at a threshold, a pair far below it is left at its
// histograms' bound (below need, at least the intersection), unmerged;
// a near pair is merged and exact.
func TestPassesBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	common := make([]uint64, 1000)
	for i := range common {
		common[i] = rng.Uint64()
	}
	set := func(shared, own int) []uint64 {
		s := slices.Clone(common[:shared])
		for range own {
			s = append(s, rng.Uint64())
		}
		slices.Sort(s)
		return s
	}
	sets := map[string][]uint64{"d0": set(1000, 0), "d1": set(500, 500), "d2": set(990, 10)}
	tb := tableOf(t, false, "d0\td1\nd0\td2\n")
	p := newPasses(tb, 1<<30)
	p.threshold = 0.8
	runPasses(t, p, []string{"d0", "d1", "d2"}, sets)
	far, near := need(1000, 1000, 0.8, false), intersect(sets["d0"], sets["d2"])
	if got := int(tb.inter[0]); got >= far || got < 500 || p.boundedPairs != 1 {
		t.Errorf("the far pair: %d in common (500 exactly, need %d), %d pair(s) bounded", got, far, p.boundedPairs)
	}
	if got := int(tb.inter[1]); got != near {
		t.Errorf("the near pair: %d in common, want %d", got, near)
	}
}

// A document's set gets a histogram from its fourth pair in the part on.
func TestHistWanted(t *testing.T) {
	tb := tableOf(t, false, "a\tb\na\tc\na\td\na\te\nb\tc\n")
	p := newPasses(tb, 1<<30)
	for id, want := range map[string]bool{"a": true, "b": false, "e": false} {
		if d, _ := tb.lookup([]byte(id)); p.histWanted(d) != want {
			t.Errorf("%s: histWanted %v", id, !want)
		}
	}
}
