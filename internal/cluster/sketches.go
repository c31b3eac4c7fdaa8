package cluster

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"

	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/document"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/lsh"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
)

// assigner places sketches in clusters one at a time, in input order.
type assigner interface {
	// assign returns the name of the cluster the sketch joins (its own id
	// when it starts one). The result is valid until the next call.
	assign(id []byte, size uint64, values []uint64) []byte
	stats(s *sizeStats)
	// held returns the bytes its structures hold (their arrays whole), the
	// number of clusters and what they are called.
	held() (bytes, n int64, what string)
}

// releaseGrowth is how much the structures grow before the memory their
// old arrays held is handed back to the operating system: a grown array
// leaves the old one behind, resident until the collector and the
// scavenger get to it, so that without this the process held up to 2.7
// times its structures. The structures grow by doubling, so this happens a
// few dozen times in a run.
const releaseGrowth = 8 << 20

// fixedBytes is the memory of the stage besides its structures: the Go
// runtime and the input chunks and parsed batches in flight, about 24 MiB,
// and 4 MiB per job (measured, examples/degenerate-bench.sh); jobs is
// resolved (Options.Resolve).
func fixedBytes(jobs int) int64 {
	return 24<<20 + 4<<20*int64(jobs)
}

// memoryLine is what --stats says about memory: what the structures hold,
// and the peak resident memory that comes with them, twice that (an array
// that grows by doubling is held beside its copy, and the collector lets
// garbage reach a share of what is live before it runs) and the fixed part.
func memoryLine(a assigner, jobs int) string {
	total, n, what := a.held()
	if n == 0 {
		return "no " + what
	}
	return fmt.Sprintf("%d %s, %d bytes each, %.1f MiB; peak resident memory about %.0f MiB",
		n, what, total/n, float64(total)/(1<<20), float64(2*total+fixedBytes(jobs))/(1<<20))
}

// sketchKind is what the input's sketch header says.
type sketchKind struct {
	method string // minhash, oph, bottomk, modm, simhash; "" without a header
	n      int    // the signature length or sample size, 64-bit words of a fingerprint; -1 if unknown
	pos    record.Pos
	header record.Header
}

func inputKind(headers []stream.HeaderAt, first []byte) sketchKind {
	k := sketchKind{n: -1}
	for _, h := range headers {
		if h.Header.Stage != "sketch" {
			continue
		}
		k.method, _ = h.Header.Get("method")
		k.pos, k.header = h.Pos, h.Header
		switch k.method {
		case "minhash", "oph":
			k.n = h.Header.Int("n", -1)
		case "bottomk":
			k.n = h.Header.Int("s", -1)
		case "simhash", "hyperplane":
			if f := h.Header.Int("f", -1); f == 64 || f == 128 {
				k.n = f / 64
			}
		}
	}
	if k.n < 0 && first != nil && record.IsFingerprints(k.method) {
		var s record.SimSketch
		if record.ParseSimSketch(&s, first) == nil {
			k.n = s.F / 64
		}
	}
	if k.n < 0 && first != nil && (k.method == "" || k.method == "minhash" || k.method == "oph") {
		var s record.Sketch
		if record.ParseSketch(&s, first) == nil {
			k.n = len(s.Values)
		}
	}
	return k
}

// check refuses sketches the method can't use.
func (k sketchKind) check(method string) error {
	switch k.method {
	case "", "minhash", "oph":
		return nil
	case "simhash", "hyperplane":
		if method == Leader {
			return record.CheckHammingBits(k.header, k.pos, "cluster --method leader")
		}
	case "bottomk":
		if method == Greedy {
			return nil
		}
	}
	want := "minhash or oph signatures or simhash or hyperplane fingerprints"
	if method == Greedy {
		want = "minhash or oph signatures or bottomk samples"
	}
	return record.Errorf(k.pos, "cluster --method %s needs %s; the input holds %s sketches", method, want, k.method)
}

// runSketches is the leader and greedy methods.
func runSketches(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) (err error) {
	src := stream.NewLines(inputs)
	defer func() {
		// After a sink error stream.Run returns while its reader may still
		// read src: closing src then would pull the file from under it.
		if err == nil {
			err = src.Close()
		}
	}()
	headers, first, err := src.Peek()
	if err != nil {
		return err
	}
	kind := inputKind(headers, first)
	if err := kind.check(opt.Method); err != nil {
		return err
	}
	if err := checkCentres(opt, kind); err != nil {
		return err
	}
	fixed := kind.method != "bottomk" // every sketch has n values
	var a assigner
	var own record.Header
	var lead *leaders
	var means *meanCentres // the vectors to read, with mean centres
	switch opt.Method {
	case Leader:
		if record.IsFingerprints(kind.method) {
			lead, own, err = hammingLeaders(opt, kind, first != nil, stderr)
			if err != nil {
				return err
			}
			a = lead
			if mc, ok := lead.centres.(*meanCentres); ok && first != nil {
				docs, err := vectorDocuments(opt)
				if err != nil {
					return err
				}
				defer func() { docs.close(stderr) }()
				mc.docs, mc.field, means = docs, vectorField(opt), mc
			}
			break
		}
		n := max(kind.n, 1) // an empty input has nothing to index
		banding := lsh.Banding{B: opt.B, R: opt.R}
		if opt.B == 0 {
			c := lsh.ChooseBanding(n, opt.Threshold, 0.5, 0.5, 0.995)
			banding = c.Banding
			if first != nil {
				fmt.Fprintf(stderr, "cluster: leader index: %d-value signatures, %d bands of %d rows; a leader at similarity %.3g is proposed with probability %.4f\n",
					n, c.B, c.R, opt.Threshold, c.AtThreshold)
			}
		} else if err := banding.Check(n); err != nil && first != nil {
			return err
		}
		own = opt.header("index", "banding", "n", strconv.Itoa(n), "b", strconv.Itoa(banding.B), "r", strconv.Itoa(banding.R), "values", "low32")
		lead = &leaders{index: NewBandingIndex(n, banding), threshold: opt.Threshold}
		a = lead
	case Greedy:
		g := newGreedy(opt, kind)
		own = opt.header("represent", opt.Represent, "s", strconv.Itoa(g.s))
		a = g
	}
	var tp *topics
	if opt.Topics > 0 && first != nil {
		if kind.method == "hyperplane" {
			return record.Errorf(kind.pos, "--topics names a cluster by the words of its documents, read and hashed as the sketches' shingle header says: hyperplane sketches are of vectors, made without shingles")
		}
		reading, rerr := readingOf(headers)
		if rerr != nil {
			return rerr
		}
		if tp, err = newTopics(ctx, opt, reading, own); err != nil {
			return err
		}
		defer func() {
			if cerr := tp.close(stderr); err == nil {
				err = cerr
			}
		}()
	}
	out := stream.NewOutput("cluster", opt.Common, stdout, stderr, own)
	w := out.W
	// An empty input leaves the state alone.
	useState := lead != nil && opt.State != "" && first != nil
	if useState {
		// Held from the load to the save: two runs at once would each
		// save their own batch over the other's.
		unlock, err := disk.Lock(opt.State+".lock", "another cluster run is changing this state")
		if err != nil {
			return err
		}
		defer unlock()
		if err := restore(opt.State, lead, own, w); err != nil {
			return err
		}
	}
	defer out.Watch(src)()
	var line []byte
	var released int64 // what the structures held when memory was last released
	sink := func(r *stream.Result) error {
		for _, h := range r.Headers {
			if h.Header.Stage == "sketch" {
				k := inputKind([]stream.HeaderAt{h}, nil)
				if k.method != kind.method || k.n != kind.n {
					// A different sketch header is refused by w.Header
					// with both values named; a first one after records
					// must still fit the method.
					if err := k.check(opt.Method); err != nil {
						return err
					}
				}
			}
			if err := w.Header(h.Header, h.Pos); err != nil {
				return err
			}
			if tp != nil {
				if err := tp.header(h.Header, h.Pos); err != nil {
					return err
				}
			}
		}
		w.Touch()
		b := r.Value.(*batch)
		for i := range b.sizes {
			id := b.id(i)
			if means != nil {
				if err := means.next(id, b.values(i)); err != nil {
					return err
				}
			}
			name := a.assign(id, b.sizes[i], b.values(i))
			if lead != nil && lead.err != nil {
				return lead.err
			}
			line = record.AppendMember(line[:0], name, id)
			if _, err := w.Write(line); err != nil {
				return err
			}
			if tp != nil {
				if err := tp.add(name, id); err != nil {
					return err
				}
			}
		}
		if tp != nil {
			if err := tp.flush(); err != nil {
				return err
			}
		}
		if held, _, _ := a.held(); held-released >= releaseGrowth && held >= released+released/8 {
			debug.FreeOSMemory()
			released = held
		}
		out.Count(r.Records)
		out.Skip(r.Skipped, r.NSkipped)
		return r.Err
	}
	newWorker := func() stream.Worker {
		return &sketchWorker{n: kind.n, fixed: fixed, simhash: record.IsFingerprints(kind.method), skipBad: opt.SkipBad}
	}
	runErr := stream.Run(ctx, src, opt.Common, newWorker, sink)
	if useState && (runErr == nil || ctx.Err() != nil) {
		// Interrupted, the documents assigned so far are kept: their
		// lines have been written.
		if err := w.Flush(); err != nil && runErr == nil {
			runErr = err
		}
		all := append(append([]record.Header(nil), w.Upstream().All()...), own)
		if err := saveState(opt.State, lead, all); err != nil {
			return err
		}
	}
	if runErr != nil {
		return runErr
	}
	if opt.Stats {
		st := newSizeStats()
		a.stats(st)
		st.print(stderr, 0, false)
		fmt.Fprintf(stderr, "cluster: memory: %s\n", memoryLine(a, opt.Jobs))
		if tp != nil {
			fmt.Fprintf(stderr, "cluster: topics: %d distinct words over %d clusters, about %.1f MiB\n", tp.words, len(tp.byName), float64(tp.bytes())/(1<<20))
		}
	}
	return out.Finish()
}

// restore loads the state file into l and checks that it was made with the
// same parameters: the stage's own header must be the same, and the input's
// headers go to w to be checked against those of the state.
func restore(name string, l *leaders, own record.Header, w *record.Writer) error {
	pos := record.Pos{File: name}
	return loadState(name, l, func(headers []record.Header) error {
		for _, h := range headers {
			if h.Stage == "cluster" {
				var set record.HeaderSet
				set.Add(h, pos)
				if _, err := set.Add(own, record.Pos{File: "this run"}); err != nil {
					return fmt.Errorf("%s: the state was made with other parameters: %v", name, err)
				}
				continue
			}
			if err := w.Secondary(h, pos); err != nil {
				return err
			}
		}
		return nil
	})
}

// batch is a chunk's sketches, parsed by a worker.
type batch struct {
	ids    []byte
	idEnds []int
	sizes  []uint64
	vals   []uint64
	ends   []int
}

func (b *batch) id(i int) []byte {
	start := 0
	if i > 0 {
		start = b.idEnds[i-1]
	}
	return b.ids[start:b.idEnds[i]]
}

func (b *batch) values(i int) []uint64 {
	start := 0
	if i > 0 {
		start = b.ends[i-1]
	}
	return b.vals[start:b.ends[i]]
}

type sketchWorker struct {
	n       int
	fixed   bool
	simhash bool // fingerprints: n words each
	skipBad bool
	sk      record.Sketch
	sim     record.SimSketch
	canon   []byte
}

// parse parses one sketch record into w.sk (a fingerprint as its words).
func (w *sketchWorker) parse(line []byte) error {
	if !w.simhash {
		return record.ParseSketch(&w.sk, line)
	}
	if err := record.ParseSimSketch(&w.sim, line); err != nil {
		return err
	}
	if w.n > 0 && w.sim.F != 64*w.n {
		return record.Bad("fingerprint has %d bits, the first had %d: fingerprints of one clustering have one width", w.sim.F, 64*w.n)
	}
	w.sk.ID, w.sk.Size = w.sim.ID, w.sim.Size
	w.sk.Values = append(w.sk.Values[:0], w.sim.Hi)
	if w.sim.F == 128 {
		w.sk.Values = append(w.sk.Values, w.sim.Lo)
	}
	return nil
}

func (w *sketchWorker) Process(c *stream.Chunk, r *stream.Result) {
	b := &batch{}
	if w.fixed && w.n > 0 {
		lines := bytes.Count(c.Data, []byte{'\n'})
		b.vals = make([]uint64, 0, lines*w.n)
		b.sizes = make([]uint64, 0, lines)
		b.idEnds = make([]int, 0, lines)
		b.ends = make([]int, 0, lines)
	}
	c.Lines(r, w.skipBad, func(line []byte, _ int64) error {
		if err := w.parse(line); err != nil {
			return err
		}
		if len(w.sk.ID) == 0 {
			return record.Bad("empty id")
		}
		if w.fixed && len(w.sk.Values) != w.n {
			return record.Bad("sketch has %d values, the first had %d: signatures of one clustering have one length", len(w.sk.Values), w.n)
		}
		w.canon = record.CanonicalID(w.canon[:0], w.sk.ID)
		b.ids = append(b.ids, w.canon...)
		b.idEnds = append(b.idEnds, len(b.ids))
		b.sizes = append(b.sizes, w.sk.Size)
		b.vals = append(b.vals, w.sk.Values...)
		b.ends = append(b.ends, len(b.vals))
		return nil
	})
	r.Value = b
}

// hammingLeaders sets up the leader method over SimHash fingerprints: a
// document joins the nearest leader (with --update-centre, centre) within
// opt.Hamming bits, found through Hamming tables.
func hammingLeaders(opt Options, kind sketchKind, haveInput bool, stderr io.Writer) (*leaders, record.Header, error) {
	f := 64 * max(kind.n, 1)
	blocks := opt.Blocks
	if blocks == 0 {
		blocks = opt.Hamming + 3
	}
	scheme, err := lsh.NewHamming(f, opt.Hamming, blocks)
	if err != nil {
		return nil, record.Header{}, fmt.Errorf("leader index: %v", err)
	}
	if haveInput {
		fmt.Fprintf(stderr, "cluster: leader index: %d-bit fingerprints, %d blocks, %d tables; a document joins the nearest leader within %d bits\n",
			f, blocks, len(scheme.Tables), opt.Hamming)
	}
	own := record.NewHeader("cluster", "method", opt.Method, "hamming", strconv.Itoa(opt.Hamming),
		"index", "hamming", "f", strconv.Itoa(f), "blocks", strconv.Itoa(blocks))
	index := NewHammingIndex(scheme)
	// Similarity is 1 - d/f, exact in floating point for f = 64 and 128.
	l := &leaders{index: index, threshold: 1 - float64(opt.Hamming)/float64(f)}
	switch {
	case opt.UpdateCentre && kind.method == "hyperplane":
		mc, err := newMeanCentres(index, kind)
		if err != nil {
			return nil, record.Header{}, err
		}
		own.Params = append(own.Params, record.Param{Key: "centre", Value: "mean"})
		l.centres = mc
	case opt.UpdateCentre:
		own.Params = append(own.Params, record.Param{Key: "centre", Value: "majority"})
		l.centres = &centres{index: index, f: f}
	}
	return l, own, nil
}

// checkCentres refuses --update-centre for sketches it has no centre for,
// and the documents of mean centres where there are none.
func checkCentres(opt Options, kind sketchKind) error {
	if !opt.UpdateCentre {
		return nil
	}
	switch kind.method {
	case "simhash":
		if opt.Topics == 0 && len(opt.Documents) > 0 {
			return status.Usagef("--documents without --topics is for the mean vectors of hyperplane fingerprints: --update-centre of simhash fingerprints (%s) needs no documents", kind.pos)
		}
		if opt.VectorField != "" || opt.IDField != "" {
			return status.Usagef("--vector-field and --id-field are for the mean vectors of hyperplane fingerprints: the input holds simhash fingerprints (%s)", kind.pos)
		}
		return nil
	case "hyperplane":
		if len(opt.Documents) == 0 {
			return record.Errorf(kind.pos, "cluster --update-centre of hyperplane fingerprints moves each centre to its members' mean vector, which a fingerprint does not give: give --documents FILE, the documents the sketches were made from (and --vector-field NAME)")
		}
		return nil
	}
	what := kind.method
	if what == "" {
		what = "minhash"
	}
	return record.Errorf(kind.pos, "cluster --update-centre needs simhash fingerprints (sketch --method simhash; their centre is a per-bit majority) or hyperplane fingerprints (their centre is the mean vector); the input holds %s sketches", what)
}

// vectorField is the JSON Lines field of the documents' vectors.
func vectorField(opt Options) string {
	if opt.VectorField == "" {
		return "vector"
	}
	return opt.VectorField
}

// vectorDocuments opens the documents of mean centres, read as sketch
// --method hyperplane reads them: TSV "id TAB numbers", JSON Lines with
// the vector and the id in their fields, or lines, the format from each
// file's name.
func vectorDocuments(opt Options) (*docReader, error) {
	r := input.DefaultReading()
	if opt.IDField != "" {
		r.IDField, r.IDRequired = opt.IDField, true
	}
	r, err := document.VectorReading(r, vectorField(opt))
	if err != nil {
		return nil, status.Usage(err)
	}
	return newDocReader(opt.Documents, r)
}
