package band

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync/atomic"

	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/docfreq"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
)

// Containment keys (band --containment T) are an exact prefix-filter join
// (AllPairs, Bayardo et al. 2007, for containment): the shingles of every
// document are ordered by their document frequency, rarest first (ties by
// hash). If c(A,B) = |A∩B|/|A| ≥ T, then A and B share at least t =
// ceil(T·|A|) shingles, so A's first |A|-t+1 shingles (its prefix) hold one
// that B holds. Each document writes its shingles as containment band
// records (record.ContainBand): those of its prefix as probes, the others
// as index entries (in corpus mode only those a probe can pair: probe.go);
// pairs pairs a probe with every other record of its key
// whose document is large enough (|B| ≥ t). A shingle of one document only
// (df 1) can't be shared, and is not written (but it takes its place in
// the prefix).
//
// Modes (ContainMode), named in the header:
//   - corpus: the documents are those the table counts; the pairs among
//     them are complete.
//   - stored: every shingle of df ≥ 2 (in one pass: the queries to come
//     may probe any), and the prefix's shingles of df 1 too, as probes:
//     the records go into a band index (bandindex) that query batches are
//     paired with (pairs --against), and a query that holds a stored
//     document finds it through them.
//   - query: the documents are not counted in the table (a few queries
//     against a stored corpus): every shingle of df ≥ 1 is written, and
//     the shingles of df 1, which the stored corpus may hold without an
//     index entry, are ordered last, so that the prefix reaches past them.

// ContainmentOptions configure containment keys.
type ContainmentOptions struct {
	// Threshold is T: every pair with c(A,B) ≥ T becomes a candidate.
	Threshold float64
	// DF names the document-frequency table (docfreq) that orders the
	// shingles; "" in corpus mode counts those of the input (count.go).
	DF string
	// Mode is record.ContainCorpus, ContainStored or ContainQuery.
	Mode string
	// TempDir holds the copy of an input that can't be read twice, which
	// corpus mode reads twice (probe.go), and the counting's spilled runs
	// without DF; "" is the system's.
	TempDir string
	// MemoryBytes bounds the counting buffer without DF (docfreq's); 0 is
	// stream's default (Check).
	MemoryBytes int64
}

// Check validates the options.
func (o *ContainmentOptions) Check() error {
	if err := status.Finite(status.Float{Flag: "--containment", Value: o.Threshold}); err != nil {
		return err
	}
	if !(o.Threshold > 0 && o.Threshold <= 1) {
		return status.Usagef("--containment %g: want a containment above 0 and at most 1", o.Threshold)
	}
	switch o.Mode {
	case record.ContainCorpus, record.ContainStored, record.ContainQuery:
	default:
		return status.Usagef("--containment-mode %q: want corpus, stored or query", o.Mode)
	}
	if o.DF != "" {
		if o.MemoryBytes != 0 {
			return status.Usagef("--memory bounds the counting of band --containment without --df: with --df TABLE nothing is counted")
		}
		return nil
	}
	if o.Mode != record.ContainCorpus {
		return status.Usagef("--containment-mode %s needs --df TABLE (docfreq of the corpus's shingles): its keys meet keys ordered by the same table, which is kept for them; only corpus mode counts the document frequencies itself", o.Mode)
	}
	o.MemoryBytes = stream.Memory(o.MemoryBytes)
	return stream.CheckUpFront(o.MemoryBytes)
}

// ContainmentHeader returns band's header for containment keys ordered by
// the table df.
func ContainmentHeader(o ContainmentOptions, df *docfreq.Table) record.Header {
	return record.NewHeader("band", record.SchemeKey, record.SchemeContainment,
		record.ContainmentKey, strconv.FormatFloat(o.Threshold, 'g', -1, 64),
		"order", "df", "df", df.ID, "df-docs", strconv.FormatUint(df.Docs, 10), record.ContainModeKey, o.Mode)
}

func runContainment(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) error {
	co := *opt.Containment
	checkHeader := func(h record.Header, pos record.Pos) error {
		if h.Stage == "sketch" {
			return record.Errorf(pos, "band --containment reads shingle records (shingle, then docfreq for --df); the input holds sketches")
		}
		return nil
	}
	var st containStats
	sp := &spool{tmp: disk.Copies{Dir: co.TempDir, Pattern: "band-input-*"}, copied: &st.copied}
	defer sp.remove()
	var dfm *dfMap
	var df *docfreq.Table
	var err error
	if co.DF == "" {
		dfm, df, err = countDF(ctx, opt, inputs, sp, checkHeader, stderr, &st)
	} else {
		dfm, df, err = loadDF(ctx, co, opt.Jobs)
	}
	if err != nil {
		return err
	}
	out := stream.NewOutput("band", opt.Common, stdout, stderr, ContainmentHeader(co, df))
	out.CheckHeader = func(h record.Header, pos record.Pos) error {
		if h.Stage == "shingle" && co.DF != "" {
			return df.CheckShingles(co.DF, h, pos)
		}
		return checkHeader(h, pos)
	}
	out.Summary = func(stderr io.Writer) { st.report(stderr, co, df) }
	if co.Mode == record.ContainCorpus {
		return runProbed(ctx, opt, inputs, sp, dfm, out, &st)
	}
	src := stream.NewLines(inputs)
	defer src.Close()
	return out.RunPool(ctx, src, ContainWorkers(co, dfm, opt.SkipBad, &st))
}

// containStats count what containment keys leave out.
type containStats struct {
	docs, empty atomic.Int64
	// In corpus mode (probe.go): the probes written, the distinct
	// shingles probed, the index entries of all shingles of df ≥ 2, and
	// those written; the documents read by the second pass and the sums of
	// docSum of each pass; the bytes of input copied for the second.
	probes, probed, allEntries int64
	entries, docs2             atomic.Int64
	sum, sum2                  atomic.Uint64
	copied                     int64
	// counted is what band counted itself (without --df), or nil: of
	// countedDocs documents; kept the shingles of df ≥ 2 it kept.
	counted     *docfreq.Counted
	countedDocs uint64
	kept        int
}

func (s *containStats) report(w io.Writer, co ContainmentOptions, df *docfreq.Table) {
	again := "the second pass"
	if c := s.counted; c != nil {
		again = "the second and third passes"
		spilled := "none spilled"
		if c.Spilled > 0 {
			spilled = fmt.Sprintf("%d sorted runs spilled to --temp-dir under --memory", c.Spilled)
		}
		fmt.Fprintf(w, "band: counted the document frequencies itself, with no table file (no --df): %d documents, %d distinct shingles, %d of them in 2 or more documents kept (%s)\n",
			df.Docs, c.Distinct, s.kept, spilled)
	}
	if e := s.empty.Load(); e > 0 {
		fmt.Fprintf(w, "band: %d document(s) without shingles got no keys: they can't be near-duplicates of anything\n", e)
	}
	if n := s.docs.Load(); co.Mode != record.ContainQuery && uint64(n) > df.Docs {
		fmt.Fprintf(w, "band: warning: %d documents banded, but the --df table counts %d: it can't count them all, and the pairs of a document it does not count may be missed (band the documents the table counts, or --containment-mode query)\n", n, df.Docs)
	}
	if co.Mode == record.ContainCorpus {
		e := s.entries.Load()
		fmt.Fprintf(w, "band: %d probes on %d shingles and %d index entries written; %d index entries left out: no document that theirs is large enough to hold at %g probes their shingle, so they make no pair\n",
			s.probes, s.probed, e, s.allEntries-e, co.Threshold)
	}
	if s.copied > 0 {
		fmt.Fprintf(w, "band: %d bytes of input that can't be read twice (standard input, a pipe) copied to a temporary file (--temp-dir) for %s\n", s.copied, again)
	}
}

// ContainWorkers returns the factory of the workers that turn shingle
// records into containment band records.
func ContainWorkers(co ContainmentOptions, df *dfMap, skipBad bool, st *containStats) stream.WorkerFactory {
	return func() stream.Worker {
		w := newContainWorker(co, df, skipBad, st)
		return &w
	}
}

// newContainWorker returns a worker of containment options co.
func newContainWorker(co ContainmentOptions, df *dfMap, skipBad bool, st *containStats) containWorker {
	return containWorker{co: co, query: co.Mode == record.ContainQuery, df: df, skipBad: skipBad, st: st}
}

type containWorker struct {
	co ContainmentOptions
	// query says co.Mode is record.ContainQuery.
	query   bool
	df      *dfMap
	skipBad bool
	st      *containStats
	hashes  []uint64
	dfs     []uint64
	// ranks and ties are rankDoc's scratch.
	ranks, ties []uint64
	key         []byte
	// touched keeps the sums of dfMap.touch.
	touched uint64
}

// ranked is a shingle and its place in the global order.
type ranked struct {
	rank, hash uint64
}

func (w *containWorker) Process(c *stream.Chunk, r *stream.Result) {
	eachDoc(c, r, w.skipBad, &w.hashes, func(id []byte, _ int64, hashes []uint64) error {
		if w.counted(hashes) {
			r.Out = w.appendDoc(r.Out, id, hashes)
		}
		return nil
	})
}

// counted counts a document read, and says whether it has shingles.
func (w *containWorker) counted(hashes []uint64) bool {
	w.st.docs.Add(1)
	if len(hashes) == 0 {
		w.st.empty.Add(1)
		return false
	}
	return true
}

// eachDoc calls fn with the id, the line ordinal and the distinct
// ascending shingle hashes (held in *hashes, reused) of each shingle record
// of the chunk.
func eachDoc(c *stream.Chunk, r *stream.Result, skipBad bool, hashes *[]uint64, fn func(id []byte, ordinal int64, hashes []uint64) error) {
	c.Lines(r, skipBad, func(line []byte, ordinal int64) error {
		id, field, err := record.SplitShingles(line)
		if err != nil {
			return err
		}
		if *hashes, _, err = record.ParseShingles((*hashes)[:0], nil, field); err != nil {
			return err
		}
		return fn(id, ordinal, *hashes)
	})
}

// appendDoc appends the containment band records of a document with the
// distinct ascending shingles hashes.
func (w *containWorker) appendDoc(dst, id []byte, hashes []uint64) []byte {
	n := uint64(len(hashes))
	last := w.rankDoc(hashes)
	for i, h := range hashes {
		probe := compareRanked(ranked{w.rank(w.dfs[i]), h}, last) <= 0
		if !w.written(w.dfs[i], probe) {
			continue
		}
		w.key = record.AppendHex64(w.key[:0], h)
		dst = record.AppendContainBand(dst, w.key, id, probe, n)
	}
	return dst
}

// touchBlock is how many shingles rankDoc touches (dfMap.touch) before it
// looks them up: their slots stay in the cache in between.
const touchBlock = 256

// rankDoc looks up the document frequency of each of a document's distinct
// shingles (w.dfs, in the order of hashes) and returns the last shingle of
// its prefix in the order: a shingle is in the prefix when it comes no
// later than that. The last shingle's rank is found among the ranks alone,
// then its hash among the hashes of that rank: two selections of integers,
// less work than one of (rank, hash) pairs. The prefix holds the rarest
// shingles, most of a small rank: the ranks below rankHist are counted as
// they are looked up, and the last's rank is read off the counts when it
// is one of them; only a larger one is selected among the larger ranks.
func (w *containWorker) rankDoc(hashes []uint64) ranked {
	n := uint64(len(hashes))
	k := int(n - record.ContainNeed(w.co.Threshold, n)) // the last's place, from 0
	w.dfs = w.dfs[:0]
	var hist [rankHist + 1]int
	for start := 0; start < len(hashes); start += touchBlock {
		block := hashes[start:min(start+touchBlock, len(hashes))]
		if !w.df.prefetch(block) {
			w.touched += w.df.touch(block)
		}
		from := len(w.dfs)
		w.dfs = w.df.appendDFs(w.dfs, block)
		for _, df := range w.dfs[from:] {
			hist[min(w.rank(df), rankHist)]++
		}
	}
	r, below := uint64(0), 0
	for r < rankHist && below+hist[r] <= k {
		below += hist[r]
		r++
	}
	if r == rankHist {
		w.ranks = w.ranks[:0]
		for _, df := range w.dfs {
			if rank := w.rank(df); rank >= rankHist {
				w.ranks = append(w.ranks, rank)
			}
		}
		r = selectKth(w.ranks, k-below)
	}
	before := 0
	w.ties = w.ties[:0]
	for i, df := range w.dfs {
		switch rank := w.rank(df); {
		case rank < r:
			before++
		case rank == r:
			w.ties = append(w.ties, hashes[i])
		}
	}
	return ranked{r, selectKth(w.ties, k-before)}
}

// rankHist is the number of small ranks rankDoc counts.
const rankHist = 64

// selectKth returns the element of place k (from 0) of a in ascending
// order, reordering a (quickselect: linear time on average; the pivot is the
// middle element; equal elements are spread over both sides).
func selectKth(a []uint64, k int) uint64 {
	lo, hi := 0, len(a)-1
	for lo < hi {
		p := a[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for a[i] < p {
				i++
			}
			for a[j] > p {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return a[k] // between j and i all equal p
		}
	}
	return a[k]
}

func compareRanked(a, b ranked) int {
	if c := cmp.Compare(a.rank, b.rank); c != 0 {
		return c
	}
	return cmp.Compare(a.hash, b.hash)
}

// rank places a shingle of document frequency df (0 when the table does not
// hold it, or holds it for fewer documents than it was loaded for) in the
// order: rarest first; in query mode the shingles of df 1 last.
func (w *containWorker) rank(df uint64) uint64 {
	if w.query && df == 1 {
		return math.MaxUint64
	}
	return df
}

// written says whether a shingle of document frequency df (as rank reads
// it) is written, as a probe or not.
func (w *containWorker) written(df uint64, probe bool) bool {
	switch w.co.Mode {
	case record.ContainStored:
		return df >= 2 || probe
	case record.ContainQuery:
		return df >= 1
	}
	return df >= 2
}
