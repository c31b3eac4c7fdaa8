// Command indexbench measures the fingerprint index on random 64-bit
// fingerprints: build time and bytes per fingerprint, online query latency
// (median, p99) with planted neighbours, batch throughput, and a brute-force
// popcount scan in the same run; and checks every answer it times against
// the scan of a sample.
//
//	go run ./internal/tools/indexbench -n 10000000 -queries 100000 -batch 1000000
package main

import (
	"flag"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"time"

	"github.com/neardup/neardup/internal/index"
	"github.com/neardup/neardup/internal/stream"
)

func main() {
	n := flag.Int("n", 1000000, "stored fingerprints")
	k := flag.Int("k", 3, "distance")
	blocks := flag.Int("blocks", 0, "blocks (0: the index's choice)")
	blockSize := flag.Int("block-size", index.DefaultBlockSize, "fingerprints per block")
	queries := flag.Int("queries", 100000, "online queries timed")
	batch := flag.Int("batch", 1000000, "queries of the batch run")
	brute := flag.Int("brute", 20, "queries answered by a brute-force scan (and checked)")
	jobs := flag.Int("j", 1, "jobs for build and batch (0: one per core)")
	dir := flag.String("dir", os.TempDir(), "directory for the index file")
	keep := flag.Bool("keep", false, "keep the index file")
	reuse := flag.Bool("reuse", false, "use the index file a run with -keep left, if there is one")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to `FILE`")
	batchProfile := flag.String("batchprofile", "", "write a CPU profile of the (first) batch run to `FILE`")
	runs := flag.Int("runs", 1, "measure online and batch `N` times (the machine may be shared: the spread)")
	flag.Parse()
	var err error
	if *jobs, err = stream.Jobs(*jobs); err != nil {
		fail(err)
	}
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			fail(err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}

	rng := rand.New(rand.NewPCG(uint64(*n), 42))
	fps := make([]uint64, *n)
	recs := &index.Records{}
	for i := range fps {
		fps[i] = rng.Uint64()
		recs.Add(fps[i], []byte("d"+strconv.Itoa(i)))
	}
	path := filepath.Join(*dir, fmt.Sprintf("indexbench-%d.idx", *n))
	runtime.GC()
	start := time.Now()
	if _, err := os.Stat(path); !*reuse || err != nil {
		if err := index.Build(path, recs, index.BuildOptions{K: *k, Blocks: *blocks, BlockSize: *blockSize, Jobs: *jobs}); err != nil {
			fail(err)
		}
	}
	buildTime := time.Since(start)
	recs = nil
	if !*keep {
		defer os.Remove(path)
	}
	ix, err := index.Open(path)
	if err != nil {
		fail(err)
	}
	defer ix.Close()
	fmt.Printf("fingerprints %d, k %d, %d blocks, %d tables, %d per block, -j %d\n", *n, *k, ix.Scheme.Blocks, len(ix.Scheme.Tables), ix.BlockSize, *jobs)
	fmt.Printf("build: %.2f s\n", buildTime.Seconds())
	index.Stats(ix, false, os.Stdout)

	// Planted neighbours: a stored fingerprint with 0..k bits flipped.
	planted := func(r *rand.Rand) uint64 {
		q := fps[r.IntN(len(fps))]
		for range r.IntN(*k + 1) {
			q ^= 1 << r.IntN(64)
		}
		return q
	}
	s := ix.NewSearcher()
	qrng := rand.New(rand.NewPCG(7, 7))
	// Warm the page cache and the directory.
	for range 1000 {
		if _, err := s.Search(nil, planted(qrng), *k); err != nil {
			fail(err)
		}
	}
	var onlineRates, batchRates, ratios []float64
	for run := range *runs {
		if *runs > 1 {
			fmt.Printf("run %d:\n", run+1)
		}
		o := measureOnline(s, *queries, *k, func() uint64 { return planted(qrng) })
		fmt.Printf("online: %d planted queries, %.2f answers each; median %.1f µs, p99 %.1f µs, mean %.1f µs (%.0f queries/s, one thread; CPU %.1f µs a query)\n",
			o.n, o.answers, us(o.median), us(o.p99), us(o.mean), o.rate, us(o.cpu))
		onlineRates = append(onlineRates, o.rate)
		if run == 0 {
			bruteForce(s, fps, *brute, *k, func() uint64 { return planted(qrng) })
			fmt.Printf("resident after the online queries: %s\n", resident(ix))
		}
		if *batch == 0 {
			continue
		}
		// Half planted, half random.
		qs := make([]uint64, *batch)
		for i := range qs {
			if i%2 == 0 {
				qs[i] = planted(qrng)
			} else {
				qs[i] = qrng.Uint64()
			}
		}
		var prof *os.File
		if *batchProfile != "" && run == 0 {
			if prof, err = os.Create(*batchProfile); err != nil {
				fail(err)
			}
		}
		b := measureBatch(ix, qs, *k, *jobs, prof)
		rate := float64(len(qs)) / b.wall.Seconds()
		fmt.Printf("batch: %d queries (half planted) in %.2f s (CPU %.2f s), %.0f queries/s, %d answers, -j %d: %.1f× the online rate\n",
			len(qs), b.wall.Seconds(), b.cpu.Seconds(), rate, b.rs.Len(), *jobs, rate/o.rate)
		batchRates = append(batchRates, rate)
		ratios = append(ratios, rate/o.rate)
		if run == 0 {
			checkBatch(s, qs, *k, b.rs)
			fmt.Printf("resident after the batch: %s\n", resident(ix))
		}
	}
	if *runs > 1 {
		fmt.Printf("%d runs: online %s queries/s; batch %s queries/s; batch / online %s\n",
			*runs, spread(onlineRates, "%.0f"), spread(batchRates, "%.0f"), spread(ratios, "%.1f×"))
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	fmt.Printf("heap in use at the end: %.1f MB (the fingerprints of the test itself: %.1f MB)\n", float64(m.HeapInuse)/1e6, float64(8*len(fps))/1e6)
}

// online is a measurement of online queries.
type online struct {
	n                      int
	answers, rate          float64
	median, p99, mean, cpu time.Duration
}

// measureOnline times n queries, each with the lookup of its answers' ids.
func measureOnline(s *index.Searcher, n, k int, query func() uint64) online {
	var ms []index.Match
	var ids [][]byte
	lat := make([]time.Duration, n)
	found := 0
	cpu0 := cpuTime()
	for i := range lat {
		q := query()
		t0 := time.Now()
		var err error
		ms, err = s.Search(ms[:0], q, k)
		if err != nil {
			fail(err)
		}
		for _, m := range ms {
			ids, err = s.IDs(ids[:0], m.FP)
			if err != nil {
				fail(err)
			}
			found += len(ids)
		}
		lat[i] = time.Since(t0)
	}
	cpu := cpuTime() - cpu0
	slices.Sort(lat)
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	return online{
		n: n, answers: float64(found) / float64(n), rate: float64(n) / sum.Seconds(),
		median: lat[n/2], p99: lat[n*99/100], mean: sum / time.Duration(n), cpu: cpu / time.Duration(n),
	}
}

// bruteForce times a popcount scan and checks the index's answers with it.
func bruteForce(s *index.Searcher, fps []uint64, n, k int, query func() uint64) {
	var bruteTime time.Duration
	for range n {
		q := query()
		t0 := time.Now()
		var want []uint64
		for _, fp := range fps {
			if bits.OnesCount64(fp^q) <= k {
				want = append(want, fp)
			}
		}
		bruteTime += time.Since(t0)
		ms, err := s.Search(nil, q, k)
		if err != nil {
			fail(err)
		}
		var got []uint64
		for _, m := range ms {
			got = append(got, m.FP)
		}
		slices.Sort(got)
		slices.Sort(want)
		want = slices.Compact(want)
		if !slices.Equal(got, want) {
			fail(fmt.Errorf("query %016x: index %x, brute force %x", q, got, want))
		}
	}
	if n > 0 {
		fmt.Printf("brute force: %.2f ms per query (popcount scan of %d, one thread); the index's answers equal it on %d queries\n",
			float64(bruteTime.Microseconds())/1000/float64(n), len(fps), n)
	}
}

// batchRun is a measurement of a batch.
type batchRun struct {
	rs        *index.BatchResults
	wall, cpu time.Duration
}

// measureBatch times SearchBatch, with a CPU profile if prof is not nil.
func measureBatch(ix *index.Index, qs []uint64, k, jobs int, prof *os.File) batchRun {
	runtime.GC()
	if prof != nil {
		pprof.StartCPUProfile(prof)
	}
	cpu0 := cpuTime()
	t0 := time.Now()
	rs, err := ix.SearchBatch(qs, k, jobs)
	if err != nil {
		fail(err)
	}
	b := batchRun{rs: rs, wall: time.Since(t0), cpu: cpuTime() - cpu0}
	if prof != nil {
		pprof.StopCPUProfile()
		prof.Close()
	}
	return b
}

// checkBatch compares the batch's answers to the first queries with the
// online answers.
func checkBatch(s *index.Searcher, qs []uint64, k int, rs *index.BatchResults) {
	sample := min(len(qs), 20000)
	cnt := 0
	for _, q := range qs[:sample] {
		ms, err := s.Search(nil, q, k)
		if err != nil {
			fail(err)
		}
		cnt += len(ms)
	}
	got := 0
	for i := range rs.Len() {
		if int(rs.Result(i).Q) < sample {
			got++
		}
	}
	if got != cnt {
		fail(fmt.Errorf("batch found %d answers for the first %d queries, online %d", got, sample, cnt))
	}
}

// spread formats the median of xs and their range.
func spread(xs []float64, format string) string {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return fmt.Sprintf(format+" (%s to %s)", xs[len(xs)/2], fmt.Sprintf(format, xs[0]), fmt.Sprintf(format, xs[len(xs)-1]))
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "indexbench:", err)
	os.Exit(1)
}
