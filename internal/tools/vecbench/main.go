// Command vecbench makes clustered vectors and finds their near pairs by
// brute force, for examples/vectors-bench.sh.
//
//	vecbench gen -n 100000 -dim 256 -seed 1 > v.jsonl
//	vecbench brute -threshold 0.9 v.jsonl > truth.tsv
//
// gen writes JSON Lines {"id":"vN","vector":[...]}: groups of 1 to 8
// vectors around random centres, each a centre plus Gaussian noise of a
// spread drawn per group, so that the cosines within a group run from
// about 0.75 to 0.999. brute writes every pair at cosine >= threshold,
// idA TAB idB TAB cosine (idA < idB bytewise), and on standard error the
// pairs it compared a second.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "gen":
		gen(os.Args[2:])
	case "brute":
		brute(os.Args[2:])
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: vecbench gen [-n N] [-dim D] [-seed S] | vecbench brute (-threshold C | -distance R) FILE")
	os.Exit(2)
}

func gen(args []string) {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	n := fs.Int("n", 100000, "vectors")
	dim := fs.Int("dim", 256, "dimension")
	seed := fs.Uint64("seed", 1, "seed")
	fs.Parse(args)
	rng := rand.New(rand.NewPCG(*seed, 0x7665636265))
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	centre := make([]float64, *dim)
	buf := []byte{}
	for i := 0; i < *n; {
		for d := range centre {
			centre[d] = rng.NormFloat64()
		}
		size := 1 + rng.IntN(8)
		spread := 0.02 + 0.5*rng.Float64()
		for m := 0; m < size && i < *n; m++ {
			buf = append(buf[:0], `{"id":"v`...)
			buf = strconv.AppendInt(buf, int64(i), 10)
			buf = append(buf, `","vector":[`...)
			for d, c := range centre {
				if d > 0 {
					buf = append(buf, ',')
				}
				buf = strconv.AppendFloat(buf, c+spread*rng.NormFloat64(), 'g', 6, 64)
			}
			buf = append(buf, "]}\n"...)
			w.Write(buf)
			i++
		}
	}
}

type vec struct {
	id string
	v  []float64
}

func brute(args []string) {
	fs := flag.NewFlagSet("brute", flag.ExitOnError)
	threshold := fs.Float64("threshold", 0.9, "least cosine")
	distance := fs.Float64("distance", 0, "with it, the pairs within this Euclidean distance instead")
	fs.Parse(args)
	euclid := *distance > 0
	r2 := *distance * *distance
	if fs.NArg() != 1 {
		usage()
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		fail(err)
	}
	var vs []vec
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for line := 1; sc.Scan(); line++ {
		var d struct {
			ID     string    `json:"id"`
			Vector []float64 `json:"vector"`
		}
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			fail(fmt.Errorf("%s:%d: %v", fs.Arg(0), line, err))
		}
		if !euclid {
			norm := 0.0
			for _, x := range d.Vector {
				norm += x * x
			}
			norm = math.Sqrt(norm)
			for i := range d.Vector {
				d.Vector[i] /= norm
			}
		}
		vs = append(vs, vec{d.ID, d.Vector})
	}
	if err := sc.Err(); err != nil {
		fail(err)
	}
	start := time.Now()
	workers := runtime.GOMAXPROCS(0)
	found := make([][]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(vs); i += workers {
				a := vs[i].v
				for j := i + 1; j < len(vs); j++ {
					b := vs[j].v
					var score float64
					if euclid {
						d2 := 0.0
						for k := range a {
							d := a[k] - b[k]
							d2 += d * d
						}
						if d2 > r2 {
							continue
						}
						score = math.Sqrt(d2)
					} else {
						for k := range a {
							score += a[k] * b[k]
						}
						if score < *threshold {
							continue
						}
					}
					x, y := vs[i].id, vs[j].id
					if y < x {
						x, y = y, x
					}
					found[w] = append(found[w], x+"\t"+y+"\t"+strconv.FormatFloat(score, 'f', 6, 64))
				}
			}
		}()
	}
	wg.Wait()
	var all []string
	for _, f := range found {
		all = append(all, f...)
	}
	slices.Sort(all)
	w := bufio.NewWriter(os.Stdout)
	for _, l := range all {
		fmt.Fprintln(w, l)
	}
	w.Flush()
	n := float64(len(vs))
	secs := time.Since(start).Seconds()
	fmt.Fprintf(os.Stderr, "vecbench: %d vectors, %.0f pairs compared in %.1f s on %d cores: %.3g pairs a CPU-second\n", len(vs), n*(n-1)/2, secs, workers, n*(n-1)/2/secs/float64(workers))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "vecbench:", err)
	os.Exit(1)
}
