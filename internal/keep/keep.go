// Package keep is the keep stage: it reads the documents again with the
// scored pairs of verify (Pairs: the arrival-order rule of rule.go, a
// document dropped when it has a verified pair with an earlier one) or a
// cluster file ("cluster TAB id", from cluster), and writes the documents
// that remain, byte for byte as they came in: those that stay, or the ones
// removed, or every document annotated with its cluster (named after the
// document kept), and with Report a line per document dropped. Documents in
// no pair or cluster are clusters of their own: they pass through.
//
// With clusters:
// Which member of a cluster stays (Prefer):
//
//	first     the first in input order: one pass, exact, since the first member
//	          met is the first there is
//	id        the smallest id among the members in the input
//	longest   the longest text (bytes, after unescaping or JSON decoding; a
//	          file's bytes), ties to the smallest id, then the first
//	shortest  the shortest, the same ties
//
// id, longest and shortest read the documents twice: the first pass finds
// each cluster's choice among the members actually present, the second
// writes. Standard input is copied to a temporary file for that.
//
// Memory: the cluster map, about 40 bytes plus the id's length per member
// and as much plus the name per cluster (16 more bytes a cluster for the
// two-pass choices); the documents stream.
package keep

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/intern"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/shingle"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
)

// Preferences: which member of a cluster stays.
const (
	PreferFirst    = "first"
	PreferID       = "id"
	PreferLongest  = "longest"
	PreferShortest = "shortest"
)

// Options configure the stage.
type Options struct {
	// Clusters names the cluster file.
	Clusters string
	// Pairs names a file of scored pairs (verify): the arrival-order rule
	// decides instead of clusters (rule.go).
	Pairs string
	// Containment applies the containment rule to Pairs (containment.go):
	// a document is dropped only when a kept one contains it at Threshold
	// (default: verify's threshold, from the pairs' header) or more.
	Containment bool
	Threshold   float64
	Prefer      string
	// Drop writes the documents removed instead of those kept.
	Drop bool
	// Report names a file that gets a line per document dropped:
	// dropped, kept, via, similarity.
	Report string
	// Annotate writes every document with its cluster: a field named
	// ClusterField for JSON Lines, a last column otherwise.
	Annotate     bool
	ClusterField string
	// Related writes the WARC request, metadata and revisit records that
	// concern a document written with it (warc.go); otherwise they are
	// dropped and counted.
	Related bool

	// Format, IDField and TextField read the documents as shingle does.
	// Given, when set, holds the document flags instead: the documents are
	// then read as the shingle header of the cluster file says, unless a
	// flag says otherwise, and a flag that disagrees is refused.
	Format             string
	IDField, TextField string
	Given              input.ReadingFlags
	// TempDir holds the copy of standard input for two-pass choices and
	// the pairs and ids spilled beyond MemoryBytes.
	TempDir string
	// MemoryBytes bounds the pairs held while they are read (numbered.go
	// for arrival numbers, ranked.go for other ids; not with Containment):
	// beyond it they spill to TempDir. 0 means stream.DefaultMemory.
	MemoryBytes int64

	Stats bool

	// DropParts names a file of part ids (parts, doc#START-END): the
	// documents are written with those byte ranges cut out of their texts
	// (dropparts.go); Report then gets the ranges removed.
	DropParts string

	stream.Common

	// reading is how the documents are read, once resolved.
	reading input.Reading
	// ranked makes the tests apply the ranked rule (ranked.go) whatever
	// --memory.
	ranked bool
	// generalRule makes the tests apply the general rule (rule.go) to
	// arrival numbers too, to compare it with the numbered one.
	generalRule bool
}

// Check validates the options; its errors are usage errors. Run calls it.
func (o *Options) Check() error {
	if o.DropParts != "" {
		return o.checkDropParts()
	}
	if o.Clusters == "" && o.Pairs == "" {
		return status.Usagef("give --pairs FILE (scored pairs from verify) or --clusters FILE (cluster records from cluster), or --drop-parts FILE (part ids from parts)")
	}
	if o.Clusters != "" && o.Pairs != "" {
		return status.Usagef("--clusters and --pairs exclude each other")
	}
	if o.Containment && o.Pairs == "" {
		return status.Usagef("--containment is a rule for --pairs FILE (pairs scored by verify --containment)")
	}
	if o.Threshold != 0 && !o.Containment {
		return status.Usagef("--threshold is the containment threshold of --containment")
	}
	if o.Threshold < 0 || o.Threshold > 1 {
		return status.Usagef("--threshold %g: want a containment above 0, at most 1", o.Threshold)
	}
	if o.Pairs != "" && o.Prefer != PreferFirst {
		return status.Usagef("--prefer %s: with --pairs the earliest document of a chain stays (the arrival-order rule); --prefer is for --clusters", o.Prefer)
	}
	switch o.Prefer {
	case PreferFirst, PreferID, PreferLongest, PreferShortest:
	default:
		return status.Usagef("--prefer %q: want first, longest, shortest or id", o.Prefer)
	}
	return nil
}

// clusterMap is what the cluster file says.
type clusterMap struct {
	headers record.HeaderSet
	members *intern.Table
	// clusterOf[m] is the cluster of member m.
	clusterOf []uint32
	names     *intern.Table
}

// loadClusters reads the cluster file.
func loadClusters(ctx context.Context, name string, opt stream.Common, stderr io.Writer) (*clusterMap, error) {
	cm := &clusterMap{members: intern.New(), names: intern.New()}
	sc := stream.NewScanner(stream.NewLines([]string{name}))
	defer sc.Close()
	sc.OnHeader = func(h record.Header, pos record.Pos) error {
		_, err := cm.headers.Add(h, pos)
		return err
	}
	skipBad := opt.SkipBad
	out := stream.NewOutput("keep", opt, nil, stderr)
	var bufName, bufID []byte
	for sc.Scan() {
		name, id, err := record.ParseMember(sc.Line())
		if err == nil {
			bufName = record.CanonicalID(bufName[:0], name)
			bufID = record.CanonicalID(bufID[:0], id)
			c, _ := cm.names.Add(bufName)
			m, added := cm.members.Add(bufID)
			if added {
				cm.clusterOf = append(cm.clusterOf, c)
			} else if old := cm.clusterOf[m]; old != c {
				err = record.Bad("id %s is in cluster %s and in cluster %s", bufID, cm.names.ID(old), bufName)
			}
		}
		if err != nil {
			if err := out.Bad(err, sc.Pos(), skipBad); err != nil {
				return nil, err
			}
		}
		if cm.members.Len()%(1<<16) == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	out.Finish()
	return cm, nil
}

// choice is a cluster's member chosen by the first pass.
type choice struct {
	found  bool
	member uint32
	length int64
	doc    int64 // the document's number in input order
}

// Run reads the cluster file and the documents in the named inputs
// (standard input when there are none) and writes the documents to stdout.
func Run(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) error {
	if err := opt.Check(); err != nil {
		return err
	}
	if opt.DropParts != "" {
		return runDropParts(ctx, opt, inputs, stdout, stderr)
	}
	k := &keeper{opt: &opt, noID: new(atomic.Int64)}
	var twoPass bool
	var headers *record.HeaderSet
	opt.MemoryBytes = stream.Memory(opt.MemoryBytes)
	if opt.Pairs != "" {
		g, nr, err := loadPairs(ctx, &opt, stderr)
		if err != nil {
			return err
		}
		if g.rk != nil {
			// Two passes: the first gives the ranks.
			k.rk = g.rk
			defer k.rk.remove()
			twoPass = true
		} else if nr != nil {
			// One pass: arrival numbers say which document is earlier.
			k.nr = nr
			nr.report(stderr, opt.TempDir)
		} else {
			k.g = g
			k.seen = make([]bool, g.ids.Len())
			// Arrival numbers tell an older document from the input's
			// without a first pass.
			g.numbered, g.from = opt.reading.Number, uint64(opt.reading.NumberFrom)
			// The containment rule decides longest first: it needs every
			// document's length before the first is written.
			twoPass = !g.numbered || g.contain
		}
		headers = &g.headers
	} else {
		cm, err := loadClusters(ctx, opt.Clusters, opt.Common, stderr)
		if err != nil {
			return err
		}
		k.cm, k.done, k.keptIn = cm, make([]bool, cm.names.Len()), make([]uint32, cm.names.Len())
		k.seen, headers = make([]bool, cm.members.Len()), &cm.headers
		twoPass = opt.Prefer != PreferFirst
	}
	if opt.Pairs == "" {
		// (loadPairs resolves it at the first pair.)
		if err := opt.resolveReading(headers, stderr); err != nil {
			return err
		}
	}
	if twoPass {
		spooled, cleanup, err := spool(inputs, opt)
		defer cleanup()
		if err != nil {
			return err
		}
		inputs = spooled
		if k.cm != nil {
			k.choices = make([]choice, k.cm.names.Len())
		}
		k.first = true
		if err := k.pass(ctx, inputs, stream.NewOutput("keep", opt.Common, nil, io.Discard)); err != nil {
			return err
		}
		if k.rk != nil {
			if err := k.rk.join(ctx); err != nil {
				return err
			}
		}
		// Nothing is written yet: a cluster file that names none of the
		// documents stops here.
		if err := k.checkIDs(stderr, false); err != nil {
			return err
		}
		if k.rk != nil {
			if err := k.rk.fetchNames(); err != nil {
				return err
			}
			k.rk.report(stderr)
			k.rk.nr.report(stderr, opt.TempDir)
		}
		if k.g != nil && k.g.contain {
			k.g.decideContainment()
		}
		k.first = false
		k.noID.Store(0)
	}
	if opt.Report != "" {
		rep, err := newReport(opt.Report)
		if err != nil {
			return err
		}
		defer rep.abort()
		k.rep = rep
	}
	// The documents are written as they came, header lines included.
	common := opt.Common
	common.NoHeader = true
	out := stream.NewOutput("keep", common, stdout, stderr)
	if err := k.pass(ctx, inputs, out); err != nil {
		return err
	}
	if k.rep != nil {
		if err := k.rep.commit(); err != nil {
			return err
		}
	}
	if opt.reading.Format == input.FormatParquet {
		if err := k.closeParquet(inputs, out.W, stderr); err != nil {
			return err
		}
	}
	shingle.ReportNoID(stderr, "keep", opt.reading.IDField, k.noID)
	if err := k.checkIDs(stderr, true); err != nil {
		return err
	}
	k.summary(stderr)
	if k.g != nil || k.nr != nil || k.rk != nil {
		return out.W.Close()
	}
	return k.finish(out.W, stderr)
}

// summary reports what the rule counted and, with Stats, how many
// documents were kept and dropped.
func (k *keeper) summary(stderr io.Writer) {
	if k.g != nil {
		k.g.report(stderr)
		if k.opt.Stats {
			fmt.Fprintf(stderr, "keep: %d documents read, %d in %d verified pairs\n", k.docs, k.inClusters, len(k.g.adj)/2)
		}
	}
	if k.rk != nil {
		// What graph.report says.
		if e := k.rk.nr.external; e > 0 {
			fmt.Fprintf(stderr, "keep: %d pair(s) with documents not in the input, taken as seen before\n", e)
		}
		if k.rk.repeated > 0 {
			fmt.Fprintf(stderr, "keep: %d document(s) repeat an id met before: each decided as its first\n", k.rk.repeated)
		}
		if k.opt.Stats {
			fmt.Fprintf(stderr, "keep: %d documents read, %d in %d verified pairs\n", k.docs, k.inClusters, k.rk.pairs)
		}
	}
	if k.nr != nil {
		// What graph.report says; numbers repeat no id.
		if k.nr.external > 0 {
			fmt.Fprintf(stderr, "keep: %d pair(s) with documents not in the input, taken as seen before\n", k.nr.external)
		}
		if k.opt.Stats {
			fmt.Fprintf(stderr, "keep: %d documents read, %d in %d verified pairs\n", k.docs, k.inClusters, k.nr.pairs)
		}
	}
	if k.opt.Stats {
		fmt.Fprintf(stderr, "keep: %d kept, %d dropped\n", k.docs-k.dropped, k.dropped)
	}
}

// resolveReading decides how the documents are read: from the flags given
// and the shingle header of the cluster file.
func (o *Options) resolveReading(headers *record.HeaderSet, stderr io.Writer) error {
	r, err := o.Given.ForStage("keep", headers, input.ReadingOf(o.Format, o.IDField, o.TextField), stderr)
	if err != nil {
		return err
	}
	o.reading = r
	o.Format, o.IDField, o.TextField = r.Format, r.IDField, r.TextField
	if r.Format == input.FormatParquet && o.Annotate {
		return status.Usagef("--annotate and Parquet documents: keep writes Parquet back with its own schema, which has no cluster column (give --report FILE for the clusters)")
	}
	return nil
}

// checkIDs compares the ids of the cluster file with those of the
// documents read: none in common is an error (the ids were made in another
// way), some missing are counted on stderr (report: after the last pass).
func (k *keeper) checkIDs(stderr io.Writer, report bool) error {
	total := len(k.seen)
	missing := 0
	for _, s := range k.seen {
		if !s {
			missing++
		}
	}
	name, first := k.opt.Clusters, func() []byte { return k.cm.members.ID(0) }
	if k.g != nil {
		name, first = k.opt.Pairs, func() []byte { return k.g.ids.ID(0) }
	}
	if k.rk != nil {
		total, missing = int(k.rk.ids), int(k.rk.ids-k.rk.metIDs)
		name, first = k.opt.Pairs, func() []byte { return k.rk.firstID }
	}
	if k.nr != nil {
		total = k.nr.ids()
		missing = total
		if k.nr.metIDs > 0 {
			missing = 0 // (only none met is checked)
		}
		name, first = k.opt.Pairs, func() []byte { return appendNumber(nil, k.nr.lo) }
	}
	if total == 0 || k.sample == nil && !k.anyDoc {
		return nil
	}
	if missing == total {
		return status.Usagef("the ids do not match: none of the %d ids in %s is among the documents read (%s has %q, the documents %q); read the documents as shingle did (--format, --id-field, --number-from)",
			total, name, name, first(), k.sample)
	}
	// With --pairs, ids not in the input are documents seen before: the
	// rule counts them (graph.report).
	if report && missing > 0 && k.g == nil && k.rk == nil {
		fmt.Fprintf(stderr, "keep: %d of the %d ids in %s are not in the input\n", missing, total, name)
	}
	return nil
}

func (k *keeper) finish(w *record.Writer, stderr io.Writer) error {
	if k.opt.Stats {
		missing := 0
		for c, d := range k.done {
			if !d && (k.choices == nil || !k.choices[c].found) {
				missing++
			}
		}
		fmt.Fprintf(stderr, "keep: %d documents read, %d in %d clusters; %d written\n", k.docs, k.inClusters, k.cm.names.Len(), k.written)
		if missing > 0 && !k.opt.Annotate {
			fmt.Fprintf(stderr, "keep: %d cluster(s) had no member among the documents\n", missing)
		}
	}
	return w.Close()
}

// spool gives the inputs to read when the documents must be read twice:
// each that can't be read twice (standard input, a pipe) copied to a
// temporary file, removed by the returned cleanup or on a signal.
func spool(inputs []string, opt Options) ([]string, func(), error) {
	cleanup := func() {}
	if opt.Format == input.FormatFiles && len(inputs) == 0 {
		// The paths come on standard input: read the list once.
		names, err := readList(os.Stdin)
		return names, cleanup, err
	}
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	copies := &disk.Copies{Dir: opt.TempDir, Pattern: "keep-stdin-*"}
	var out []string
	spooled := false
	for _, name := range inputs {
		if name == "-" {
			if spooled {
				continue // standard input is read once, by the first "-"
			}
			spooled = true
		}
		again, err := copies.Reread(name)
		if err != nil {
			return nil, copies.Remove, err
		}
		out = append(out, again)
	}
	return out, copies.Remove, nil
}

func readList(r io.Reader) ([]string, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var names []string
	for len(data) > 0 {
		i := 0
		for i < len(data) && data[i] != '\n' {
			i++
		}
		if name := string(record.TrimEOL(data[:min(i+1, len(data))])); name != "" {
			names = append(names, name)
		}
		data = data[min(i+1, len(data)):]
	}
	return names, nil
}
