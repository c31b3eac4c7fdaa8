// Package truth is the containtruth command (see its doc).
package truth

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
)

// Main runs the command with args (without the program name) and returns
// its exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("containtruth", flag.ContinueOnError)
	fs.SetOutput(stderr)
	threshold := fs.Float64("t", 0.9, "containment threshold `T`")
	least := fs.Int("min", 10, "least number of shingles of the contained document")
	verified := fs.String("verified", "", "verify --containment output `FILE` to score")
	candidates := fs.String("candidates", "", "pairs output `FILE` to count")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := run(*threshold, *least, *verified, *candidates, fs.Args(), stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "containtruth:", err)
		return 1
	}
	return 0
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

func run(threshold float64, least int, verified, candidates string, files []string, stdout, stderr io.Writer) error {
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
	w := bufio.NewWriterSize(stdout, 1<<20)
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
	fmt.Fprintf(stderr, "containtruth: %d documents, %d directed pairs with c >= %g (|A| >= %d)\n", len(ids), len(truth), threshold, least)
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
		fmt.Fprintf(stderr, "containtruth: verified: %d directed pairs with c >= %g, %d of them true: recall %.4f, precision %.4f\n", claimed, threshold, found, recall, precision)
	}
	if candidates != "" {
		n := 0
		if err := lines([]string{candidates}, func(string) error { n++; return nil }); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "containtruth: %d candidate pairs, %.2f per true directed pair\n", n, float64(n)/float64(max(len(truth), 1)))
	}
	return nil
}
