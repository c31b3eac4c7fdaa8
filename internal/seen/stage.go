package seen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/document"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/parts"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/shingle"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/token"
)

// Defaults of the options.
const (
	DefaultK         = 13
	DefaultThreshold = 0.8
	DefaultRate      = 0.01
	// MaxBits bounds a filter: 128 GiB.
	MaxBits = 1 << 40
)

// Options configure the stage.
type Options struct {
	// K is the n-gram length in word tokens; Norm the normalization of
	// the text before tokens are taken (shingle's, normalize=).
	K    int
	Norm token.Normalization
	// Threshold: a paragraph is seen when at least this fraction of its
	// n-grams is in the filter (0 < Threshold ≤ 1).
	Threshold float64
	// MinTokens leaves out (counted) paragraphs of fewer word tokens: not
	// looked up, not added. 0 means K.
	MinTokens int
	// By is how documents are cut: parts.ByParagraph (or "") or
	// parts.ByWindow, windows of Tokens word tokens every Stride (0:
	// Tokens), as the parts stage cuts them.
	By             string
	Tokens, Stride int
	// Expected, Rate and Memory size a new filter (Size): two of them, or
	// Expected or Memory with Rate's default.
	Expected int64
	Rate     float64
	Memory   int64
	// State names the file the filter is loaded from, when it exists, and
	// saved to at the end.
	State string
	// Commit, when set, is called once the run has succeeded and its
	// output is flushed, before the state is saved: the command line
	// puts its -o file in place (and closes a compressor) there, so that
	// a state is never saved ahead of the output it goes with. An error
	// from it leaves the state as it was.
	Commit func() error

	// Reading is how the documents are read, as shingle reads them (empty
	// fields: the defaults, id and text).
	input.Reading

	stream.Common

	// fsys holds the state file (nil: the operating system's); maxBits
	// bounds a filter (0: MaxBits); machine is the machine's memory in
	// bytes (0: stream.MachineMemory); keys, when set, replaces the filter by
	// another set of keys (the tests' exact reference).
	fsys    disk.FS
	maxBits uint64
	machine int64
	keys    keySet
}

// keySet is what the stage asks of its filter: how many of some keys it
// holds (Has), and to add them, saying how many were new (Add).
type keySet interface {
	CountHas(keys []uint64) int
	AddAll(keys []uint64) int
}

// Resolve checks the options and fills in their defaults (-j), the one
// place where both are done: Run calls it. Its errors are usage errors.
func (o *Options) Resolve() error {
	jobs, err := stream.Jobs(o.Jobs)
	if err != nil {
		return err
	}
	o.Jobs = jobs
	if err := status.Finite(status.Float{Flag: "--threshold", Value: o.Threshold}, status.Float{Flag: "--fp", Value: o.Rate}); err != nil {
		return err
	}
	if err := shingle.CheckK(o.K); err != nil {
		return err
	}
	if !(o.Threshold > 0 && o.Threshold <= 1) {
		return status.Usagef("--threshold %g: want more than 0, at most 1", o.Threshold)
	}
	if o.MinTokens < 0 {
		return status.Usagef("--min-tokens %d can't be negative", o.MinTokens)
	}
	if o.Expected < 0 || o.Memory < 0 {
		return status.Usagef("--expected and --memory can't be negative")
	}
	if o.Rate != 0 && !(o.Rate > 0 && o.Rate < 1) {
		return status.Usagef("--fp %g: want a rate between 0 and 1", o.Rate)
	}
	if o.Expected > 0 && o.Memory > 0 && o.Rate != 0 {
		return status.Usagef("--expected, --memory and --fp: give two of them; the third follows")
	}
	if o.Memory > 0 && uint64(o.Memory) > o.bitsCap()/8 {
		return status.Usagef("--memory %d: a filter is at most %d bytes", o.Memory, o.bitsCap()/8)
	}
	po := o.partsOptions()
	if err := po.Resolve(); err != nil {
		return err
	}
	if po.By == parts.ByWindow && o.Tokens < o.minTokens() {
		return status.Usagef("--tokens %d is fewer than --min-tokens (%d; by default -k): every window would be left out", o.Tokens, o.minTokens())
	}
	return nil
}

// by is how documents are cut.
func (o *Options) by() string {
	if o.By == "" {
		return parts.ByParagraph
	}
	return o.By
}

// bitsCap is the largest filter allowed, in bits.
func (o *Options) bitsCap() uint64 {
	if o.maxBits == 0 {
		return MaxBits
	}
	return o.maxBits
}

// checkMachine refuses (a usage error) a new filter larger than the
// machine's memory (MemTotal, or the cgroup's limit when lower), which it
// would be allocated in at once, naming the size and the flag to change.
func (o *Options) checkMachine(sizing Sizing) error {
	machine := o.machine
	if machine == 0 {
		machine = stream.MachineMemory()
	}
	need := sizing.Bits / 8
	if machine <= 0 || need <= uint64(machine) {
		return nil
	}
	if o.Memory > 0 {
		return status.Usagef("--memory %s: the filter would be %d bytes, more than this machine's memory (%d bytes, MemTotal or the cgroup's limit): give a smaller --memory", stream.FormatSize(o.Memory), need, machine)
	}
	return status.Usagef("a filter for %d n-grams (--expected) at a false-positive rate of %.3g (--fp) needs %d bytes, more than this machine's memory (%d bytes, MemTotal or the cgroup's limit): give a smaller --expected or a larger --fp", sizing.Expected, sizing.Rate, need, machine)
}

// minTokens is the fewest tokens of a paragraph looked up.
func (o *Options) minTokens() int {
	if o.MinTokens == 0 {
		return o.K
	}
	return o.MinTokens
}

// partsOptions are the options of the parts stage that cuts documents as
// this stage does: by paragraph or window, those under the minimum left
// out.
func (o *Options) partsOptions() parts.Options {
	return parts.Options{By: o.by(), Tokens: o.Tokens, Stride: o.Stride, MinTokens: o.minTokens(),
		Reading: o.Reading, Common: o.Common}
}

// ngrams are the options of the n-grams: word shingles of K tokens, tok64,
// seed 0.
func (o *Options) ngrams() shingle.Options {
	return shingle.Options{Unit: shingle.Word, K: o.K, Scheme: shingle.Tok64, Norm: o.Norm}
}

// ngramHeader is how the n-grams are made: the keys the state records.
func (o *Options) ngramHeader() record.Header {
	return record.NewHeader("seen", "unit", "word", "k", strconv.Itoa(o.K), "hash", "tok64", "seed", "0",
		"normalize", o.Norm.String())
}

// Header returns the stage's own header line: the n-grams, the threshold,
// the minimum tokens and the filter.
func (o *Options) Header(f *Filter) record.Header {
	h := o.ngramHeader()
	h.Params = append(h.Params,
		record.Param{Key: "threshold", Value: strconv.FormatFloat(o.Threshold, 'g', -1, 64)},
		record.Param{Key: "min-tokens", Value: strconv.Itoa(o.minTokens())},
		record.Param{Key: "bits", Value: strconv.FormatUint(f.Bits(), 10)},
		record.Param{Key: "hashes", Value: strconv.Itoa(f.Hashes())})
	return h
}

// open returns the filter the run starts with: the state file's when it
// exists (refused when made otherwise than this run asks), else a new one
// sized by the options. It says on stderr which and its size.
func (o *Options) open(stderr io.Writer) (*State, error) {
	fsys := o.fsys
	if fsys == nil {
		fsys = disk.OS{}
	}
	sized := o.Expected > 0 || o.Memory > 0
	var sizing Sizing
	if sized {
		rate := o.Rate
		if rate == 0 && !(o.Expected > 0 && o.Memory > 0) {
			rate = DefaultRate
		}
		var err error
		if sizing, err = Size(o.Expected, rate, o.Memory); err != nil {
			return nil, status.Usage(err)
		}
		if sizing.Bits > o.bitsCap() {
			return nil, status.Usagef("a filter for %d n-grams at --fp %g would be %d bytes, more than the %d allowed", o.Expected, rate, sizing.Bits/8, o.bitsCap()/8)
		}
		if err := o.checkMachine(sizing); err != nil {
			return nil, err
		}
	}
	want := o.ngramHeader()
	if o.State != "" {
		st, err := LoadState(fsys, o.State, o.bitsCap())
		switch {
		case err == nil:
			mine := &State{Filter: &Filter{bits: st.Filter.bits, hashes: st.Filter.hashes}, Header: want}
			if sized {
				mine.Filter.bits, mine.Filter.hashes = sizing.Bits, sizing.Hashes
			}
			if a, b := st.Identity(), mine.Identity(); a != b {
				return nil, status.Usagef("--state %s holds a filter made with %s; this run asks for %s: continue it with the same -k and --normalize and no sizing flags (or the same), or start a new state file", o.State, a, b)
			}
			fmt.Fprintf(stderr, "seen: Bloom filter of %d bits (%s), %d hash functions, from %s: %d n-grams added so far, sized for %d at a false-positive rate of %.3g\n",
				st.Filter.bits, mib(st.Filter.bits), st.Filter.hashes, o.State, st.Added, st.Sizing.Expected, st.Sizing.Rate)
			return st, nil
		case !errors.Is(err, ErrNoState):
			return nil, err
		}
	}
	if !sized {
		if o.State != "" {
			return nil, status.Usagef("--state %s does not exist yet: give --expected N (or --memory SIZE) to size the new filter", o.State)
		}
		return nil, status.Usagef("give --expected N (the distinct n-grams the filter is to hold) or --memory SIZE to size the filter")
	}
	st := &State{Filter: NewFilter(sizing.Bits, sizing.Hashes), Header: want, Sizing: sizing}
	fmt.Fprintf(stderr, "seen: Bloom filter of %d bits (%s), %d hash functions: %d n-grams at a false-positive rate of %.3g\n",
		sizing.Bits, mib(sizing.Bits), sizing.Hashes, sizing.Expected, sizing.Rate)
	return st, nil
}

// Run reads documents from the named inputs (standard input when there
// are none) and writes the paragraphs seen before to stdout; with a state
// file it continues its filter and saves it at the end (not when the run
// fails: the file stays as it was).
func Run(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) error {
	if err := opt.Resolve(); err != nil {
		return err
	}
	if opt.State != "" {
		// Held from the load to the save: two runs at once would each
		// save their own batch over the other's.
		unlock, err := disk.Lock(opt.State+".lock", "another seen run is changing this state")
		if err != nil {
			return err
		}
		defer unlock()
	}
	st, err := opt.open(stderr)
	if err != nil {
		return err
	}
	rd := opt.Reading.WithDefaultFields()
	noID := new(atomic.Int64)
	src, unit := document.Source(rd, inputs, opt.SkipBad)
	defer src.Close()
	po := opt.partsOptions()
	out := stream.NewOutput("seen", opt.Common, stdout, stderr, po.Header(), opt.Header(st.Filter))
	out.Unit = unit
	s := &sink{opt: &opt, out: out, state: st, keys: opt.keys, threshold: int64(math.Round(opt.Threshold * 1e9))}
	if s.keys == nil {
		s.keys = st.Filter
	}
	out.Summary = func(stderr io.Writer) {
		document.Report(src, stderr, "seen")
		s.summary(stderr)
	}
	pool := &sync.Pool{New: func() any { return new(batch) }}
	s.pool = pool
	err = func() error {
		defer out.Watch(src)()
		if err := stream.Run(ctx, src, opt.Common, func() stream.Worker {
			return &worker{opt: &opt, docs: document.NewReader(rd, noID, nil, opt.SkipBad), sh: shingle.New(opt.ngrams()), pool: pool}
		}, s.take); err != nil {
			return err
		}
		return out.Finish()
	}()
	document.ReportNoID(stderr, "seen", opt.IDField, noID)
	if err == nil && opt.Commit != nil {
		err = opt.Commit()
	}
	if err != nil || opt.State == "" {
		return err
	}
	st.Added += s.n.added
	fsys := opt.fsys
	if fsys == nil {
		fsys = disk.OS{}
	}
	if err := SaveState(fsys, opt.State, st); err != nil {
		return fmt.Errorf("saving --state %s: %w (the file is as it was before this run)", opt.State, err)
	}
	return nil
}

// mib writes a filter's size: in MiB, or bytes under one.
func mib(bits uint64) string {
	if bits < 8<<20 {
		return strconv.FormatUint(bits/8, 10) + " bytes"
	}
	return strconv.FormatFloat(float64(bits)/8/(1<<20), 'f', 2, 64) + " MiB"
}
