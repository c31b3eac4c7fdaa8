package estimate

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/shingle"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
)

// Defaults of the options.
var DefaultFractions = []float64{0.01, 0.02, 0.04}

const (
	DefaultReplicates = 2
	// MaxReplicates and MaxFractions bound the samples: each is a run of
	// the job.
	MaxReplicates = 100
	MaxFractions  = 20
	// maxBucket is pairs' --max-bucket in the job (its default).
	maxBucket = 512
)

// Options configure the estimate.
type Options struct {
	// Fractions are the chances each document has to be in a sample, each
	// above 0 and below 1; Replicates samples are drawn at each, each with
	// its own seed (Seed and the sample's number).
	Fractions  []float64
	Replicates int
	Seed       uint64
	// Dedup is the job's command (examples/dedup.sh), Job the flags it is
	// given besides the sample, -t and -k (-m, --rule, shingle's others).
	Dedup string
	Job   []string
	// Threshold and K are the job's -t and -k (0: not given, the job's
	// defaults), checked here before the corpus is read.
	Threshold float64
	K         int
	// TempDir is where the samples and the job's files go ("": $TMPDIR).
	TempDir string

	// Reading is how the corpus is read.
	input.Reading
	stream.Common
}

// Resolve checks the options and fills in their defaults; its errors are
// usage errors.
func (o *Options) Resolve() error {
	jobs, err := stream.Jobs(o.Jobs)
	if err != nil {
		return err
	}
	o.Jobs = jobs
	if o.Threshold != 0 && !(o.Threshold > 0 && o.Threshold <= 1) {
		return status.Usagef("-t %g: want a similarity above 0, at most 1", o.Threshold)
	}
	if o.K != 0 {
		if err := shingle.CheckK(o.K); err != nil {
			return err
		}
	}
	if len(o.Fractions) == 0 {
		o.Fractions = DefaultFractions
	}
	o.Fractions = slices.Clone(o.Fractions)
	slices.Sort(o.Fractions)
	for i, f := range o.Fractions {
		if !(f > 0 && f < 1) {
			return status.Usagef("--fraction %g: want a share above 0 and below 1", f)
		}
		if i > 0 && f == o.Fractions[i-1] {
			return status.Usagef("--fraction %g given twice: give --replicates for more samples of one fraction", f)
		}
	}
	if o.Replicates == 0 {
		o.Replicates = DefaultReplicates
	}
	if o.Replicates < 1 || o.Replicates > MaxReplicates {
		return status.Usagef("--replicates %d: want 1 to %d", o.Replicates, MaxReplicates)
	}
	if len(o.Fractions) > MaxFractions {
		return status.Usagef("--fraction: %d fractions, want at most %d", len(o.Fractions), MaxFractions)
	}
	if len(o.Fractions)*o.Replicates < 3 {
		return status.Usagef("%d sample(s): want at least 3 (fractions times --replicates) for the fits and their spreads", len(o.Fractions)*o.Replicates)
	}
	return o.reading().Check(true)
}

// jobArgs returns the job's flags, but the sample's.
func (o *Options) jobArgs() []string {
	args := slices.Clone(o.Job)
	if o.Threshold != 0 {
		args = append(args, "-t", strconv.FormatFloat(o.Threshold, 'g', -1, 64))
	}
	if o.K != 0 {
		args = append(args, "-k", strconv.Itoa(o.K))
	}
	return args
}

// reading is how the corpus is read: the ids are arrival numbers (the
// samples are drawn by them), but with --files, where they are paths.
func (o *Options) reading() input.Reading {
	r := o.Reading.WithDefaultFields()
	if r.Format != input.FormatFiles {
		r.Number, r.NumberFrom = true, 0
	}
	return r
}

// FindDedup returns the job's command: dedup beside the program running,
// else on $PATH.
func FindDedup() (string, error) {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "dedup")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	p, err := exec.LookPath("dedup")
	if err != nil {
		return "", fmt.Errorf("the job, dedup (examples/dedup.sh, make install), is neither beside this program nor on $PATH: give --dedup")
	}
	return p, nil
}

// Run reads the corpus in inputs once, drawing the samples, runs the job
// on each and writes the estimates of the whole job to stdout.
func Run(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) error {
	if err := opt.Resolve(); err != nil {
		return err
	}
	if opt.Dedup == "" {
		var err error
		if opt.Dedup, err = FindDedup(); err != nil {
			return err
		}
	}
	dir, err := os.MkdirTemp(opt.TempDir, "neardup-estimate.")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := checkJob(ctx, &opt, dir); err != nil {
		return err
	}
	c, samples, err := drawSamples(ctx, &opt, inputs, dir, stderr)
	if err != nil {
		return err
	}
	if c.Docs == 0 {
		return fmt.Errorf("the corpus holds no document: nothing to estimate")
	}
	fmt.Fprintf(stderr, "estimate: %d documents, %d bytes of text; %d samples (fractions %s, %d of each, seed %d)\n",
		c.Docs, c.Bytes, len(samples), joinFloats(opt.Fractions), opt.Replicates, opt.Seed)
	for _, s := range samples {
		if s.Docs == 0 {
			return status.Usagef("the sample of fraction %g holds no document (of %d): give a larger --fraction", s.F, c.Docs)
		}
	}
	var runs []*run
	for _, s := range samples {
		r, err := runJob(ctx, &opt, s, dir)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "estimate: sample %d, fraction %g: %d documents, %d dropped, %d verified pairs, %s; job %.2f s wall (%s)\n",
			s.Index+1, s.F, s.Docs, r.Dropped, r.Pairs, bucketText(r), r.Wall, stagesText(r))
		runs = append(runs, r)
	}
	// The job gives its stages no --memory: they take this machine's
	// default, which bounds the peaks of pairs, verify and keep.
	p := predict(c, runs, stream.DefaultMemory())
	p.notes(stderr)
	return p.write(stdout, opt.NoHeader)
}

// checkJob runs the job on one document before the corpus is read, so
// that flags it refuses, or a job that can't run, stop estimate at once.
func checkJob(ctx context.Context, opt *Options, dir string) error {
	s := &sample{F: 1, Docs: 1, Path: filepath.Join(dir, "check.tsv")}
	if err := os.WriteFile(s.Path, []byte("0\tone document to check the job's flags with\n"), 0o644); err != nil {
		return err
	}
	_, err := runJob(ctx, opt, s, dir)
	return err
}

func bucketText(r *run) string {
	if r.Capped == 0 {
		return fmt.Sprintf("no bucket above %d", maxBucket)
	}
	return fmt.Sprintf("%d bucket(s) above %d, the largest %d", r.Capped, maxBucket, r.Largest)
}

func stagesText(r *run) string {
	var s []string
	for _, st := range r.Stages {
		s = append(s, fmt.Sprintf("%s %.2f s %.0f MiB", st.Name, st.Wall, st.Peak/1024))
	}
	return strings.Join(s, ", ")
}

func joinFloats(fs []float64) string {
	var s []string
	for _, f := range fs {
		s = append(s, strconv.FormatFloat(f, 'g', -1, 64))
	}
	return strings.Join(s, ",")
}

// quantity is one line of the estimate: a name, the estimate and its
// interval, each printed with digits decimals; NaN prints "-".
type quantity struct {
	name                string
	estimate, low, high float64
	digits              int
}

// prediction is the estimate of the whole job.
type prediction struct {
	lines []quantity
	// capped names the stages whose peak --memory bounds.
	capped []string
	memory int64
	// buckets says whether a sample held a bucket above --max-bucket.
	buckets bool
	fmax    float64
	fit     Share
}

// predict estimates the whole job from its runs on the samples.
func predict(c corpus, runs []*run, memory int64) *prediction {
	p := &prediction{memory: memory}
	n := float64(c.Docs)
	p.add("documents", n, n, n, 0)
	p.add("bytes", float64(c.Bytes), float64(c.Bytes), float64(c.Bytes), 0)

	var hs []Histogram
	for _, r := range runs {
		hs = append(hs, r.Clusters)
		p.fmax = math.Max(p.fmax, r.F)
	}
	p.fit = DroppedShare(c.Docs, hs)
	p.add("dropped", n*p.fit.Estimate, n*p.fit.Low, n*p.fit.High, 0)
	p.add("dropped-share", p.fit.Estimate, p.fit.Low, p.fit.High, 4)

	// Each pair of the corpus is a pair of a sample when both its
	// documents are drawn: f² of them.
	var pairs, f2 float64
	pLow, pHigh := math.Inf(1), math.Inf(-1)
	for _, r := range runs {
		pairs += float64(r.Pairs)
		f2 += r.F * r.F
		e := float64(r.Pairs) / (r.F * r.F)
		pLow, pHigh = math.Min(pLow, e), math.Max(pHigh, e)
	}
	// A bucket above --max-bucket makes fewer pairs than f² scales up
	// (each id past the first 512 is paired with 32 only), in the samples
	// and more so in the corpus: the scaled count is then a high, and the
	// most pairs a sample verified (of the corpus's pairs) a low.
	var most float64
	for _, r := range runs {
		most = math.Max(most, float64(r.Pairs))
	}
	p.buckets = slices.ContainsFunc(runs, func(r *run) bool { return r.Capped > 0 })
	if p.buckets {
		p.add("verified-pairs", math.NaN(), most, pHigh, 0)
	} else {
		p.add("verified-pairs", pairs/f2, pLow, pHigh, 0)
	}

	var bs []float64
	for _, r := range runs {
		if r.Capped > 0 {
			bs = append(bs, float64(r.Largest)/r.F)
		}
	}
	if len(bs) > 0 {
		slices.Sort(bs)
		p.add("largest-bucket", bs[len(bs)/2], bs[0], bs[len(bs)-1], 0)
	} else {
		p.add("largest-bucket", math.NaN(), math.NaN(), maxBucket/p.fmax, 0)
	}

	// Time and memory: each stage's, fitted as c + a·documents. A term
	// in pairs is left out: the samples hold f² of them, a few dozen,
	// whose time is lost in the noise, and a coefficient fitted to it
	// grows by 1/f² at the corpus's (on 200,000 documents, pairs' wall
	// time came out 30 s, 3 to 78, where the job took 8).
	var docs []float64
	for _, r := range runs {
		docs = append(docs, float64(r.Docs))
	}
	var names []string
	for _, r := range runs {
		for _, st := range r.Stages {
			if !slices.Contains(names, st.Name) {
				names = append(names, st.Name)
			}
		}
	}
	// shingle pairs the band records in its process (dedup.sh's shingle
	// --pairs), and holds them as pairs does; a job that runs pairs
	// apart has its peak bounded the same.
	bounded := map[string]bool{"shingle": true, "pairs": true, "verify": true, "keep": true}
	// verify reads every document and shingles again those in a pair:
	// the samples hold f² of the pairs, too few to time, so each document
	// in a pair is taken to cost what shingle's cost (its fitted slope),
	// the reading fitted over the samples. The documents in pairs are
	// those in clusters at the fit, their interval the dropped share's.
	clustered := n * p.fit.Clustered
	var lowScale, highScale float64
	if p.fit.Estimate > 0 {
		lowScale, highScale = p.fit.Low/p.fit.Estimate, p.fit.High/p.fit.Estimate
	}
	var perDoc [2]float64 // shingle's wall and CPU seconds a document (the fits' slopes)
	// added is what verify's documents in pairs add to the wall time.
	var added [3]float64
	var cpuTotal [3]float64
	for _, name := range names {
		of := func(get func(stageTimes) float64) []float64 {
			var ys []float64
			for _, r := range runs {
				var y float64
				for _, st := range r.Stages {
					if st.Name == name {
						y += get(st)
					}
				}
				ys = append(ys, y)
			}
			return ys
		}
		wall := linear(docs, of(func(s stageTimes) float64 { return s.Wall }))
		cpu := linear(docs, of(func(s stageTimes) float64 { return s.CPU }))
		peak := linear(docs, of(func(s stageTimes) float64 { return s.Peak }))
		we, wl, wh := wall.predict(n)
		ce, cl, ch := cpu.predict(n)
		pe, pl, ph := peak.predict(n)
		switch name {
		case "shingle":
			perDoc = [2]float64{wall.perDoc(), cpu.perDoc()}
		case "verify":
			// Its wall time: at one core (the estimate and the high),
			// at shingle's parallelism (the low).
			added = [3]float64{perDoc[1] * clustered, perDoc[0] * clustered * lowScale, perDoc[1] * clustered * highScale}
			we, wl, wh = we+added[0], wl+added[1], wh+added[2]
			ce, cl, ch = ce+perDoc[1]*clustered, cl+perDoc[1]*clustered*lowScale, ch+perDoc[1]*clustered*highScale
		}
		// A peak is no straight line in the documents: buffers fill,
		// the heap grows by steps. It is at least the largest sample's;
		// a stage that streams (its chunks in flight, independent of
		// the corpus) has that as its estimate, the straight line its
		// high; shingle with the band records' pairs, pairs, verify and
		// keep hold what grows with the corpus up to their --memory
		// (their peak on the smallest sample besides): the straight
		// line, at most that, and that their high.
		peaks := of(func(s stageTimes) float64 { return s.Peak })
		seen := slices.Max(peaks)
		switch {
		case bounded[name]:
			limit := float64(memory)/1024 + slices.Min(peaks)
			p.capped = append(p.capped, name)
			pe, pl, ph = math.Max(seen, math.Min(pe, limit)), seen, limit
		default:
			pe, pl, ph = seen, seen, math.Max(seen, ph)
		}
		p.add(name+"-wall-seconds", we, wl, wh, 1)
		p.add(name+"-cpu-seconds", ce, cl, ch, 1)
		p.add(name+"-peak-mib", pe/1024, pl/1024, ph/1024, 0)
		cpuTotal[0] += ce
		cpuTotal[1] += cl
		cpuTotal[2] += ch
	}
	var walls []float64
	for _, r := range runs {
		walls = append(walls, r.Wall)
	}
	we, wl, wh := linear(docs, walls).predict(n)
	p.add("job-wall-seconds", we+added[0], wl+added[1], wh+added[2], 1)
	p.add("job-cpu-seconds", cpuTotal[0], cpuTotal[1], cpuTotal[2], 1)
	return p
}

func (p *prediction) add(name string, est, low, high float64, digits int) {
	p.lines = append(p.lines, quantity{name, est, low, high, digits})
}

// notes says on stderr what the estimates rest on.
func (p *prediction) notes(stderr io.Writer) {
	fmt.Fprintf(stderr, "estimate: the dropped share is fitted to the samples' clusters (χ² %.1f on %d degrees of freedom); its interval is 95%%\n", p.fit.Chi2, p.fit.DOF)
	if w := p.fit.High - p.fit.Low; w > 0.5*p.fit.Estimate && w > 0.01 {
		fmt.Fprintf(stderr, "estimate: the dropped share's interval is wide (%.4f to %.4f): the samples hold f² of the pairs; a larger --fraction narrows it\n", p.fit.Low, p.fit.High)
	}
	if p.fit.Chi2 > 2*float64(p.fit.DOF)+10 {
		fmt.Fprintf(stderr, "estimate: the samples' clusters fit a sampled corpus badly (χ² %.1f on %d): the documents of a cluster are not all near-duplicates of one another, and the dropped share is less sure than its interval says\n", p.fit.Chi2, p.fit.DOF)
	}
	if p.buckets {
		fmt.Fprintf(stderr, "estimate: samples held buckets above --max-bucket %d, whose pairs grow slower than f² scales them: the verified pairs are not estimated, only bounded (the most a sample verified, and the samples' scaled up)\n", maxBucket)
	}
	if !p.buckets {
		fmt.Fprintf(stderr, "estimate: no sample held a bucket above --max-bucket %d: the whole job's largest is likely below %.0f (%d / the largest fraction), not estimated\n", maxBucket, maxBucket/p.fmax, maxBucket)
	}
	if len(p.capped) > 0 {
		fmt.Fprintf(stderr, "estimate: %s hold at most --memory %d MiB (this machine's default; beyond it they spill to TMPDIR): the high of their peaks\n", strings.Join(p.capped, ", "), p.memory>>20)
	}
}

// write prints the estimates: a header line (unless noHeader), then
// quantity TAB estimate TAB low TAB high.
func (p *prediction) write(w io.Writer, noHeader bool) error {
	var b strings.Builder
	if !noHeader {
		b.WriteString("# quantity\testimate\tlow\thigh\n")
	}
	for _, q := range p.lines {
		b.WriteString(q.name)
		for _, v := range []float64{q.estimate, q.low, q.high} {
			b.WriteByte('\t')
			if math.IsNaN(v) {
				b.WriteByte('-')
			} else {
				b.WriteString(strconv.FormatFloat(v, 'f', q.digits, 64))
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
