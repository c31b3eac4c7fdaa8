// Command clusterdiff compares two clusterings of the same documents (two
// files of cluster records "cluster TAB id"; a document missing from one is
// a cluster of its own there):
//
//	go run ./internal/tools/clusterdiff components.tsv leader.tsv
//
// It prints how many documents land in a different cluster, both ways: for
// each cluster of B the cluster of A it shares most documents with; the
// documents of B outside that share are misplaced relative to A. It also
// prints the pairs of documents together in A, in B and in both.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/neardup/neardup/internal/input"
)

func read(name string) (map[string]string, error) {
	f, err := input.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := map[string]string{}
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		line, err := r.ReadString('\n')
		if line != "" && !strings.HasPrefix(line, "#neardup") {
			c, id, ok := strings.Cut(strings.TrimRight(line, "\r\n"), "\t")
			if !ok {
				return nil, fmt.Errorf("%s: bad record %q", name, line)
			}
			m[id] = c
		}
		if err == io.EOF {
			return m, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func pairs(n int64) int64 { return n * (n - 1) / 2 }

// misplaced counts the documents of b's clusters outside their largest share
// with a cluster of a.
func misplaced(ids []string, a, b map[string]string) int64 {
	type key struct{ a, b string }
	shared := map[key]int64{}
	for _, id := range ids {
		shared[key{a[id], b[id]}]++
	}
	best := map[string]int64{}
	for k, n := range shared {
		best[k.b] = max(best[k.b], n)
	}
	var kept int64
	for _, n := range best {
		kept += n
	}
	return int64(len(ids)) - kept
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: clusterdiff A B")
		os.Exit(2)
	}
	a, err := read(os.Args[1])
	if err == nil {
		var b map[string]string
		b, err = read(os.Args[2])
		if err == nil {
			report(a, b)
			return
		}
	}
	fmt.Fprintln(os.Stderr, "clusterdiff:", err)
	os.Exit(1)
}

func report(a, b map[string]string) {
	var ids []string
	for id := range a {
		ids = append(ids, id)
	}
	for id := range b {
		if _, ok := a[id]; !ok {
			ids = append(ids, id)
		}
	}
	for _, m := range []map[string]string{a, b} {
		for _, id := range ids {
			if _, ok := m[id]; !ok {
				m[id] = id
			}
		}
	}
	sizes := func(m map[string]string) map[string]int64 {
		s := map[string]int64{}
		for _, id := range ids {
			s[m[id]]++
		}
		return s
	}
	sa, sb := sizes(a), sizes(b)
	var pa, pb, both int64
	for _, n := range sa {
		pa += pairs(n)
	}
	for _, n := range sb {
		pb += pairs(n)
	}
	type key struct{ a, b string }
	shared := map[key]int64{}
	for _, id := range ids {
		shared[key{a[id], b[id]}]++
	}
	for _, n := range shared {
		both += pairs(n)
	}
	fmt.Printf("documents: %d; clusters: A %d, B %d\n", len(ids), len(sa), len(sb))
	fmt.Printf("documents of B in a different cluster than in A: %d (%.4f%%)\n", misplaced(ids, a, b), 100*float64(misplaced(ids, a, b))/float64(len(ids)))
	fmt.Printf("documents of A in a different cluster than in B: %d (%.4f%%)\n", misplaced(ids, b, a), 100*float64(misplaced(ids, b, a))/float64(len(ids)))
	fmt.Printf("pairs together: A %d, B %d, both %d (B's precision %.4f, recall %.4f against A)\n", pa, pb, both, float64(both)/float64(max(pb, 1)), float64(both)/float64(max(pa, 1)))
}
