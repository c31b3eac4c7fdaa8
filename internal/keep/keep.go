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
	"github.com/neardup/neardup/internal/document"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
)

// The rules of --pairs without --containment.
const (
	RuleArrival = "arrival"
	RuleKept    = "kept"
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
	// (rule.go) or the kept rule (Rule, keptrule.go) decides instead of
	// clusters.
	Pairs string
	// Containment applies the containment rule to Pairs (containment.go):
	// a document is dropped only when a kept one contains it at Threshold
	// (default: verify's threshold, from the pairs' header) or more.
	Containment bool
	Threshold   float64
	// Rule is the rule of Pairs without Containment: RuleArrival (a
	// document goes for any earlier partner) or RuleKept (only for a kept
	// one: keptrule.go).
	Rule string
	// Dropped names the reports of earlier batches (keep --report): with
	// RuleKept, the ids in their first column are documents not in the
	// input that were dropped, so not kept.
	Dropped []string
	Prefer  string
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

	// Reading reads the documents as shingle does: its Format, IDField and
	// TextField (empty for the defaults), set in code. Given, when set,
	// holds the document flags instead: the documents are then read as the
	// shingle header of the cluster file says, unless a flag says
	// otherwise, and a flag that disagrees is refused.
	input.Reading
	Given input.ReadingFlags
	// TempDir holds the copy of standard input for two-pass choices and
	// the pairs and ids spilled beyond MemoryBytes.
	TempDir string
	// MemoryBytes bounds the pairs held while they are read (numbered.go
	// for arrival numbers, ranked.go for other ids; not with Containment):
	// beyond it they spill to TempDir. 0 means stream.DefaultMemory (Resolve).
	MemoryBytes int64

	Stats bool

	// IDMaps name the maps "number TAB own id" of earlier batches
	// (WriteIDMap): with arrival numbers, the report's own ids of their
	// documents come from there (ownids.go). WriteIDMap names the map of
	// the documents read that keep writes.
	IDMaps     []string
	WriteIDMap string

	// DropParts names a file of part ids (parts, doc#START-END): Run is
	// then RunDropParts, the documents written with those byte ranges cut
	// out of their texts; Report gets the ranges removed.
	DropParts string

	stream.Common

	// reading is how the documents are read, once resolved.
	reading input.Reading
	// batches are the numbered batches the headers name, which the
	// documents are checked against (input.CheckNumbered).
	batches []input.Batch
	// ranked makes the tests apply the ranked rule (ranked.go) whatever
	// --memory.
	ranked bool
	// generalRule makes the tests apply the general rule (rule.go) to
	// arrival numbers too, to compare it with the numbered one.
	generalRule bool
}

// lengths says whether the rule weighs the documents' text lengths: the
// containment rule, and clusters' choice of the longest or shortest.
// Without it the texts are not unescaped or extracted to be measured.
func (o *Options) lengths() bool {
	return o.Containment || o.Prefer == PreferLongest || o.Prefer == PreferShortest
}

// Resolve checks the options and fills in their defaults (-j, --memory),
// the one place where both are done: Run calls it. Its errors are usage
// errors.
func (o *Options) Resolve() error {
	jobs, err := stream.Jobs(o.Jobs)
	if err != nil {
		return err
	}
	o.Jobs = jobs
	o.MemoryBytes = stream.Memory(o.MemoryBytes)
	if err := status.Finite(status.Float{Flag: "--threshold", Value: o.Threshold}); err != nil {
		return err
	}
	switch o.Rule {
	case "":
		o.Rule = RuleArrival
	case RuleArrival, RuleKept:
	default:
		return status.Usagef("--rule %q: want arrival or kept", o.Rule)
	}
	if o.Rule == RuleKept && (o.Pairs == "" || o.Containment) {
		return status.Usagef("--rule kept is a rule for --pairs FILE (--containment drops only for a kept document already)")
	}
	if len(o.Dropped) > 0 && o.Rule != RuleKept {
		return status.Usagef("--dropped names the reports of earlier batches for --rule kept: the arrival rule drops for a dropped document too")
	}
	if (len(o.IDMaps) > 0 || o.WriteIDMap != "") && (o.Pairs == "" || o.Containment) {
		return status.Usagef("--id-map and --write-id-map are for --pairs FILE with arrival numbers (the arrival and kept rules)")
	}
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

// Run reads the pairs or the cluster file and the documents in the named
// inputs (standard input when there are none) and writes the documents to
// stdout; with DropParts it is RunDropParts.
func Run(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) error {
	if err := opt.Resolve(); err != nil {
		return err
	}
	if opt.DropParts != "" {
		return RunDropParts(ctx, opt.dropPartsOptions(), inputs, stdout, stderr)
	}
	r, err := loadRule(ctx, &opt, stderr)
	if err != nil {
		return err
	}
	defer r.remove()
	if opt.reading.Number {
		if err := input.CheckNumbered(opt.batches, opt.reading.NumberFrom, inputs, "the documents to keep"); err != nil {
			return err
		}
	}
	k := &keeper{opt: &opt, rule: r, noID: new(atomic.Int64)}
	if r.twoPass() {
		spooled, cleanup, err := spool(inputs, opt)
		defer cleanup()
		if err != nil {
			return err
		}
		inputs = spooled
		if err := k.firstPass(ctx, inputs, stderr); err != nil {
			return err
		}
	}
	if err := r.ready(stderr); err != nil {
		return err
	}
	return k.writePass(ctx, inputs, stdout, stderr)
}

// firstPass reads the documents for the rule to note what it needs.
func (k *keeper) firstPass(ctx context.Context, inputs []string, stderr io.Writer) error {
	k.first = true
	if err := k.pass(ctx, inputs, stream.NewOutput("keep", k.opt.Common, nil, io.Discard)); err != nil {
		return err
	}
	if err := k.rule.counted(ctx); err != nil {
		return err
	}
	// Nothing is written yet: a file that names none of the documents
	// stops here.
	if err := k.checkIDs(stderr, false); err != nil {
		return err
	}
	k.first = false
	k.noID.Store(0)
	return nil
}

// writePass reads the documents and writes them as the rule decides, with the
// report, and says on stderr what was counted.
func (k *keeper) writePass(ctx context.Context, inputs []string, stdout, stderr io.Writer) error {
	if k.opt.Report != "" {
		rep, err := newReport(k.opt.Report)
		if err != nil {
			return err
		}
		defer rep.abort()
		k.rep = rep
	}
	if k.opt.reading.Number && (k.opt.Report != "" || k.opt.WriteIDMap != "") {
		own, err := newOwnIDs(ctx, k.opt, k.rule)
		if err != nil {
			return err
		}
		defer own.abort()
		k.own = own
	}
	// The documents are written as they came, header lines included.
	common := k.opt.Common
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
	if k.own != nil {
		if err := k.own.finish(stderr); err != nil {
			return err
		}
	}
	if k.opt.reading.Format == input.FormatParquet {
		if err := k.closeParquet(inputs, out.W, stderr); err != nil {
			return err
		}
	}
	document.ReportNoID(stderr, "keep", k.opt.reading.IDField, k.noID)
	if err := k.checkIDs(stderr, true); err != nil {
		return err
	}
	reportRepeats(stderr, k.rule.repeats())
	k.rule.summary(stderr, &k.tally, k.opt.Stats)
	return out.W.Close()
}

// resolveReading decides how the documents are read: from the flags given
// and the shingle header of the cluster file; and which numbered batches
// the headers name.
func (o *Options) resolveReading(headers *record.HeaderSet, stderr io.Writer) error {
	r, err := o.Given.ForStage("keep", headers, input.ReadingOf(o.Format, o.IDField, o.TextField), stderr)
	if err != nil {
		return err
	}
	o.reading = r
	for _, h := range headers.All() {
		bs, err := input.BatchesOf(h, headers.Pos(h.Stage))
		if err != nil {
			return err
		}
		o.batches = append(o.batches, bs...)
	}
	o.Format, o.IDField, o.TextField = r.Format, r.IDField, r.TextField
	if r.Format == input.FormatParquet && o.Annotate {
		return status.Usagef("--annotate and Parquet documents: keep writes Parquet back with its own schema, which has no cluster column (give --report FILE for the clusters)")
	}
	return nil
}

// checkIDs compares the ids of the rule's file with those of the
// documents read: none in common is an error (the ids were made in another
// way), some missing are counted on stderr (last: after the last pass).
func (k *keeper) checkIDs(stderr io.Writer, last bool) error {
	c := k.rule.idsMet()
	if c.total == 0 || k.sample == nil && !k.anyDoc {
		return nil
	}
	if c.missing == c.total {
		return status.Usagef("the ids do not match: none of the %d ids in %s is among the documents read (%s has %q, the documents %q); read the documents as shingle did (--format, --id-field, --number-from)",
			c.total, c.file, c.file, c.first(), k.sample)
	}
	if last && c.missing > 0 && c.reportMissing {
		fmt.Fprintf(stderr, "keep: %d of the %d ids in %s are not in the input\n", c.missing, c.total, c.file)
	}
	return nil
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
