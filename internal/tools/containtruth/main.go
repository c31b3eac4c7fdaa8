// Command containtruth computes containment exactly, independently of band
// --containment (no prefix, no document-frequency order): it reads shingle
// records, builds an inverted index from each shingle to the documents that
// hold it, and for every document A counts, through the index, the
// shingles it shares with every other document B. It writes every directed
// pair with c(A,B) = |A∩B|/|A| ≥ T and |A| ≥ the least size as
//
//	A TAB B TAB c(A,B)
//
// and, given -verified (verify --containment output, "idA TAB idB TAB j TAB
// c(A,B) TAB c(B,A)") and -candidates (pairs output), how many of those
// pairs the pipeline found (recall), how many of its verified directed
// pairs are true (precision), and the candidates per true pair:
//
//	go run ./internal/tools/containtruth -t 0.9 -verified v.tsv -candidates c.tsv shingles.tsv > truth.tsv
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
)

func main() {
	threshold := flag.Float64("t", 0.9, "containment threshold `T`")
	least := flag.Int("min", 10, "least number of shingles of the contained document")
	verified := flag.String("verified", "", "verify --containment output `FILE` to score")
	candidates := flag.String("candidates", "", "pairs output `FILE` to count")
	flag.Parse()
	if err := run(*threshold, *least, *verified, *candidates, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "containtruth:", err)
		os.Exit(1)
	}
}

// lines calls fn with every record line of the files (header lines
// skipped).
func lines(names []string, fn func(line string) error) error {
	for _, name := range names {
		f, err := input.Open(name)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<30)
		for sc.Scan() {
			if record.IsHeader(sc.Bytes()) {
				continue
			}
			if err := fn(sc.Text()); err != nil {
				f.Close()
				return err
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return err
		}
	}
	return nil
}

func run(threshold float64, least int, verified, candidates string, files []string) error {
	var ids []string
	var sets [][]uint64
	err := lines(files, func(line string) error {
		id, field, err := record.SplitShingles([]byte(line))
		if err != nil {
			return err
		}
		hs, _, err := record.ParseShingles(nil, nil, field)
		if err != nil {
			return err
		}
		ids = append(ids, string(id))
		sets = append(sets, hs)
		return nil
	})
	if err != nil {
		return err
	}
	postings := map[uint64][]int32{}
	for d, s := range sets {
		for _, h := range s {
			postings[h] = append(postings[h], int32(d))
		}
	}
	count := make([]int32, len(sets))
	var touched []int32
	truth := map[[2]string]bool{}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	for a, s := range sets {
		if len(s) < least {
			continue
		}
		touched = touched[:0]
		for _, h := range s {
			for _, b := range postings[h] {
				if int(b) == a {
					continue
				}
				if count[b] == 0 {
					touched = append(touched, b)
				}
				count[b]++
			}
		}
		for _, b := range touched {
			if c := float64(count[b]) / float64(len(s)); c >= threshold {
				fmt.Fprintf(w, "%s\t%s\t%.6f\n", ids[a], ids[b], c)
				truth[[2]string{ids[a], ids[b]}] = true
			}
			count[b] = 0
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "containtruth: %d documents, %d directed pairs with c >= %g (|A| >= %d)\n", len(ids), len(truth), threshold, least)
	size := map[string]int{}
	for i, id := range ids {
		size[id] = len(sets[i])
	}
	if verified != "" {
		found, claimed, wrong := 0, 0, 0
		err := lines([]string{verified}, func(line string) error {
			f := strings.Split(line, "\t")
			if len(f) != 5 {
				return fmt.Errorf("%s: want idA idB j c(A,B) c(B,A), got %q", verified, line)
			}
			for _, d := range []struct {
				a, b, c string
			}{{f[0], f[1], f[3]}, {f[1], f[0], f[4]}} {
				c, err := strconv.ParseFloat(d.c, 64)
				if err != nil {
					return err
				}
				if c < threshold || size[d.a] < least {
					continue
				}
				claimed++
				if truth[[2]string{d.a, d.b}] {
					found++
				} else {
					wrong++
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		recall, precision := 1.0, 1.0
		if len(truth) > 0 {
			recall = float64(found) / float64(len(truth))
		}
		if claimed > 0 {
			precision = float64(claimed-wrong) / float64(claimed)
		}
		fmt.Fprintf(os.Stderr, "containtruth: verified: %d directed pairs with c >= %g, %d of them true: recall %.4f, precision %.4f\n", claimed, threshold, found, recall, precision)
	}
	if candidates != "" {
		n := 0
		if err := lines([]string{candidates}, func(string) error { n++; return nil }); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "containtruth: %d candidate pairs, %.2f per true directed pair\n", n, float64(n)/float64(max(len(truth), 1)))
	}
	return nil
}
