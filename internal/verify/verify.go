// Package verify is the verify stage: it reads candidate pairs and writes
// those whose similarity reaches a threshold, with the similarity: exact
// Jaccard (and containment) computed from shingle sets, or the estimate of
// sketches; or those whose SimHash fingerprints are within a Hamming
// distance, with the distance.
package verify

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/neardup/neardup/internal/minhash"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/store"
	"github.com/neardup/neardup/internal/stream"
)

// Options configure the stage.
type Options struct {
	// Shingles names a shingle file for exact similarity; Sketches a sketch
	// file for estimates. Exactly one is given.
	Shingles, Sketches string
	Threshold          float64
	// Containment adds c(A,B) and c(B,A) and keeps a pair when either
	// reaches the threshold.
	Containment bool
	// Hamming scores pairs by the Hamming distance of the SimHash
	// fingerprints in Sketches and keeps those within MaxDistance bits
	// (hamming.go).
	Hamming     bool
	MaxDistance int

	// MemoryBytes bounds the candidate pairs read ahead to learn which
	// documents to load; past it every document of the file is loaded.
	MemoryBytes int64

	Jobs         int
	SkipBad      bool
	NoHeader     bool
	LineBuffered bool
	Progress     bool
}

// measure computes the scores of a pair of stored documents.
type measure interface {
	// score returns Jaccard (or its estimate) and, when containment is
	// known, c(A,B) and c(B,A).
	score(a, b int) (j, cab, cba float64)
	name() string
}

type exact struct{ s *store.Store }

func (m exact) name() string { return MeasureExact }

func (m exact) score(a, b int) (float64, float64, float64) {
	return Exact(m.s.Values(a), m.s.Values(b))
}

// Exact returns the Jaccard similarity of two ascending sets and their
// containments c(A,B) = |A∩B|/|A| and c(B,A). The Beam pipeline scores its
// pairs with it too.
func Exact(x, y []uint64) (j, cab, cba float64) {
	inter := intersect(x, y)
	union := len(x) + len(y) - inter
	if union > 0 {
		j = float64(inter) / float64(union)
	}
	if len(x) > 0 {
		cab = float64(inter) / float64(len(x))
	}
	if len(y) > 0 {
		cba = float64(inter) / float64(len(y))
	}
	return j, cab, cba
}

// intersect counts the values common to two ascending lists.
func intersect(a, b []uint64) int {
	if len(a) > len(b) {
		a, b = b, a
	}
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		x, y := a[i], b[j]
		if x == y {
			n++
			i++
			j++
		} else if x < y {
			i++
		} else {
			j++
		}
	}
	return n
}

type signatures struct{ s *store.Store }

func (m signatures) name() string { return "minhash-estimate" }

func (m signatures) score(a, b int) (float64, float64, float64) {
	if m.s.Size(a) == 0 || m.s.Size(b) == 0 {
		// Two empty sets agree everywhere, but share nothing: 0, as
		// their exact Jaccard similarity is taken to be.
		return 0, -1, -1
	}
	j := minhash.Similarity(m.s.Values(a), m.s.Values(b))
	return j, -1, -1
}

type bottomK struct {
	s *store.Store
	k int
}

func (m bottomK) name() string { return "bottomk-estimate" }

func (m bottomK) score(a, b int) (float64, float64, float64) {
	return minhash.BottomKResemblance(m.s.Values(a), m.s.Values(b), m.k), -1, -1
}

type modM struct{ s *store.Store }

func (m modM) name() string { return "modm-estimate" }

func (m modM) score(a, b int) (float64, float64, float64) {
	x, y := m.s.Values(a), m.s.Values(b)
	return minhash.ModMResemblance(x, y), minhash.ModMContainment(x, y), minhash.ModMContainment(y, x)
}

// Run reads candidate pairs and writes scored pairs.
func Run(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) error {
	if opt.Hamming {
		return runHamming(ctx, opt, inputs, stdout, stderr)
	}
	if (opt.Shingles == "") == (opt.Sketches == "") {
		return fmt.Errorf("give --shingles FILE or --sketches FILE")
	}
	var w *record.Writer
	out := &stream.Output{Stage: "verify", Stderr: stderr}
	var m measure
	// The writer needs the stage's header, which names the measure; the
	// measure is known once the file is loaded, so the writer is made with
	// a header filled in afterwards.
	w = record.NewWriter(stdout, opt.NoHeader, opt.LineBuffered)
	out.W = w
	src := newReadAhead(stream.NewLines(inputs), opt.MemoryBytes)
	defer src.Close()
	if err := src.fill(ctx); err != nil {
		return err
	}
	needed := src.needed()
	if opt.Shingles != "" {
		s, _, err := load(ctx, opt.Shingles, false, needed, &opt, w, out)
		if err != nil {
			return err
		}
		m = exact{s}
	} else {
		s, headers, err := load(ctx, opt.Sketches, true, needed, &opt, w, out)
		if err != nil {
			return err
		}
		method, k := "minhash", 0
		for _, h := range headers {
			if h.Header.Stage == "sketch" {
				method, _ = h.Header.Get("method")
				k = h.Header.Int("s", 0)
			}
		}
		switch method {
		case "minhash", "oph":
			m = signatures{s}
		case "bottomk":
			m = bottomK{s, k}
		case "modm":
			m = modM{s}
		default:
			return fmt.Errorf("%s: verify can't estimate from %s sketches", opt.Sketches, method)
		}
		if opt.Containment && method != "modm" {
			return fmt.Errorf("--containment needs --shingles, or --sketches made by sketch --method modm (the file holds %s sketches)", method)
		}
	}
	w.SetOwn(Header(m.name(), opt.Threshold, opt.Containment))

	if opt.Progress {
		stop := stream.StartProgress("verify", stderr, src, out.Records)
		defer stop()
	}
	newWorker := func() stream.Worker { return &worker{opt: &opt, m: m, st: storeOf(m)} }
	if err := stream.Run(ctx, src, stream.Config{Jobs: opt.Jobs, SkipBad: opt.SkipBad}, newWorker, out.Sink); err != nil {
		return err
	}
	return out.Finish()
}

func storeOf(m measure) *store.Store {
	switch m := m.(type) {
	case exact:
		return m.s
	case signatures:
		return m.s
	case bottomK:
		return m.s
	case modM:
		return m.s
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

type worker struct {
	opt *Options
	m   measure
	st  *store.Store
}

func (w *worker) Process(c *stream.Chunk, r *stream.Result) {
	c.Lines(r, w.opt.SkipBad, func(line []byte, _ int64) error {
		a, b, ok := record.Cut(line)
		if !ok {
			return record.Bad("want idA TAB idB, found no TAB")
		}
		if i := bytes.IndexByte(b, '\t'); i >= 0 {
			if i != len(b)-1 {
				return record.Bad("want idA TAB idB, found more fields")
			}
			b = b[:i] // the empty last field Hadoop Streaming adds
		}
		cmp := bytes.Compare(a, b)
		if cmp == 0 {
			return record.Bad("a pair of %s with itself", a)
		}
		if cmp > 0 {
			a, b = b, a
		}
		ia, ok := w.st.Lookup(a)
		if !ok {
			return record.Bad("id %s is not in %s", a, w.source())
		}
		ib, ok := w.st.Lookup(b)
		if !ok {
			return record.Bad("id %s is not in %s", b, w.source())
		}
		j, cab, cba := w.m.score(ia, ib)
		r.Out = AppendScored(r.Out, a, b, j, cab, cba, w.opt.Threshold, w.opt.Containment)
		return nil
	})
}

// Header returns the stage's header line.
func Header(measure string, threshold float64, containment bool) record.Header {
	return record.NewHeader("verify",
		"measure", measure,
		"threshold", strconv.FormatFloat(threshold, 'g', -1, 64),
		"containment", yesNo(containment))
}

// MeasureExact names the exact Jaccard measure in the header.
const MeasureExact = "jaccard"

// AppendScored appends the scored pair record of a and b (a < b) when its
// Jaccard similarity j, or with containment either containment, reaches
// threshold; otherwise it returns dst unchanged. Scores have 6 decimals.
func AppendScored(dst, a, b []byte, j, cab, cba, threshold float64, containment bool) []byte {
	keep := j >= threshold
	if containment {
		keep = keep || cab >= threshold || cba >= threshold
	}
	if !keep {
		return dst
	}
	dst = append(dst, a...)
	dst = append(dst, '\t')
	dst = append(dst, b...)
	dst = append(dst, '\t')
	dst = appendScore(dst, j)
	if containment {
		dst = append(dst, '\t')
		dst = appendScore(dst, cab)
		dst = append(dst, '\t')
		dst = appendScore(dst, cba)
	}
	return append(dst, '\n')
}

func (w *worker) source() string {
	if w.opt.Shingles != "" {
		return w.opt.Shingles
	}
	return w.opt.Sketches
}

// appendScore writes a similarity with 6 decimals.
func appendScore(dst []byte, v float64) []byte {
	return strconv.AppendFloat(dst, v, 'f', 6, 64)
}
