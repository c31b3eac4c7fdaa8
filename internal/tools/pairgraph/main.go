// Command pairgraph prints the connected components of a file of pairs
// (records "a TAB b …": candidate or verified pairs), the shape that decides
// how verify --documents can split its work into bins:
//
//	go run ./internal/tools/pairgraph pairs.tsv [verified.tsv]
//	go run ./internal/tools/pairgraph -sketches sketches.tsv -min 0.5 pairs.tsv verified.tsv
//
// With -sketches (shingle --sketch or sketch output for the same ids) it
// also keeps only the pairs whose signatures agree in at least -min of
// their values (the MinHash estimate of their Jaccard similarity), and
// prints the components of those, and how many pairs of verified.tsv they
// lose.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"slices"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/minhash"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/unionfind"
)

type pair struct{ a, b uint32 }

// ids numbers the ids as they come.
type ids map[string]uint32

func (m ids) number(id []byte) uint32 {
	n, ok := m[string(id)]
	if !ok {
		n = uint32(len(m))
		m[string(id)] = n
	}
	return n
}

// lines calls fn with each record line of name (headers left out).
func lines(name string, fn func(line []byte) error) error {
	f, err := input.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for n := 1; sc.Scan(); n++ {
		if record.IsHeader(sc.Bytes()) {
			continue
		}
		if err := fn(sc.Bytes()); err != nil {
			return fmt.Errorf("%s:%d: %v", name, n, err)
		}
	}
	return sc.Err()
}

func readPairs(name string, m ids) ([]pair, error) {
	var ps []pair
	err := lines(name, func(line []byte) error {
		// The first two fields: a candidate pair or a scored one.
		a, rest, ok := record.Cut(line)
		b, _, _ := record.Cut(rest)
		if !ok || len(a) == 0 || len(b) == 0 {
			return fmt.Errorf("want idA TAB idB …")
		}
		ps = append(ps, pair{m.number(a), m.number(b)})
		return nil
	})
	return ps, err
}

// describe prints the documents, components and the largest of them.
func describe(name string, ps []pair, n int) {
	u := unionfind.New(n)
	in := make([]bool, n)
	for _, p := range ps {
		u.Union(p.a, p.b)
		in[p.a], in[p.b] = true, true
	}
	var sizes []int
	docs := 0
	for d := range n {
		if !in[d] {
			continue
		}
		docs++
		if u.Find(uint32(d)) == uint32(d) {
			sizes = append(sizes, int(u.Size[d]))
		}
	}
	slices.Sort(sizes)
	slices.Reverse(sizes)
	fmt.Printf("%s: %d pairs, %d documents in them, %d components, the largest %v\n", name, len(ps), docs, len(sizes), sizes[:min(3, len(sizes))])
}

func main() {
	sketches := flag.String("sketches", "", "sketch records of the pairs' ids: keep only the pairs whose estimate is at least -min")
	least := flag.Float64("min", 0.5, "with -sketches, the least estimate kept")
	bbit := flag.Float64("bbit", 0, "with -sketches, keep instead the pairs that verify --bbit keeps at this threshold (their 4-bit signatures not far below it)")
	flag.Parse()
	if flag.NArg() < 1 || flag.NArg() > 2 {
		fmt.Fprintln(os.Stderr, "usage: pairgraph [-sketches S -min M] PAIRS [VERIFIED]")
		os.Exit(2)
	}
	if err := run(flag.Args(), *sketches, *least, *bbit); err != nil {
		fmt.Fprintln(os.Stderr, "pairgraph:", err)
		os.Exit(1)
	}
}

func run(args []string, sketches string, least, bbit float64) error {
	m := ids{}
	ps, err := readPairs(args[0], m)
	if err != nil {
		return err
	}
	var ver []pair
	if len(args) == 2 {
		if ver, err = readPairs(args[1], m); err != nil {
			return err
		}
	}
	describe(args[0], ps, len(m))
	if ver != nil {
		describe(args[1], ver, len(m))
	}
	if sketches == "" {
		return nil
	}
	sig := make([][]uint64, len(m))
	bits := make([][]byte, len(m))
	size := make([]int, len(m))
	var s record.Sketch
	err = lines(sketches, func(line []byte) error {
		if err := record.ParseSketch(&s, line); err != nil {
			return err
		}
		if d, ok := m[string(s.ID)]; ok {
			sig[d] = slices.Clone(s.Values)
			bits[d] = minhash.AppendBits(nil, s.Values)
			size[d] = int(s.Size)
		}
		return nil
	})
	if err != nil {
		return err
	}
	verified := map[pair]bool{}
	for _, p := range ver {
		verified[pair{min(p.a, p.b), max(p.a, p.b)}] = true
	}
	var kept []pair
	lost := 0
	for _, p := range ps {
		x, y := sig[p.a], sig[p.b]
		if x == nil || y == nil {
			return fmt.Errorf("no sketch of a pair's id in %s", sketches)
		}
		keep := minhash.Similarity(x, y) >= least
		if bbit > 0 {
			keep = !minhash.FarBelow(bits[p.a], bits[p.b], size[p.a], size[p.b], bbit, true)
		}
		if keep {
			kept = append(kept, p)
		} else if verified[pair{min(p.a, p.b), max(p.a, p.b)}] {
			lost++
		}
	}
	if bbit > 0 {
		describe(fmt.Sprintf("pairs not far below %g by their 4-bit signatures", bbit), kept, len(m))
	} else {
		describe(fmt.Sprintf("pairs estimated at %g or more", least), kept, len(m))
	}
	fmt.Printf("verified pairs among those left out: %d\n", lost)
	return nil
}
