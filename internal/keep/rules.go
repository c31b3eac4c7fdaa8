package keep

import (
	"context"
	"fmt"
	"io"

	"github.com/neardup/neardup/internal/record"
)

// A rule decides which documents are dropped, and for each the document
// kept that it goes with (the name of its cluster) and what the report
// says. There is one type per rule: the arrival-order rule in memory
// (arrivalRule, rule.go), for arrival numbers (numberedRule, numbered.go)
// and spilled to disk (ranked, ranked.go), the containment rule
// (containmentRule, containment.go) and clusters (clusterRule,
// clusters.go); the kept rule (--rule kept, keptrule.go) is a mode of
// the arrival rule's three. Run chooses one once, as it reads the pairs or
// cluster file (loadRule; for pairs, Options.pairLoader, where a new rule
// is one more case); the keeper then asks it document by document in
// input order.
type rule interface {
	// find returns what the rule needs to decide a document, from its
	// id: its cluster (notInCluster for a document in no pair or cluster;
	// 0 for one in a pair), its member in the file or its arrival number.
	// Workers call it concurrently.
	find(id []byte) (cluster int64, member uint32, num uint64)
	// twoPass says whether the documents are read twice: a first pass
	// (note) gives what the rule needs before it decides.
	twoPass() bool
	// note takes document n of the first pass, with its id.
	note(d doc, n int64, id []byte) error
	// counted ends the first pass.
	counted(ctx context.Context) error
	// ready is called before the pass that writes, once the ids are
	// checked.
	ready(stderr io.Writer) error
	// decide takes document n of the pass that writes.
	decide(d doc, n int64, id []byte) (verdict, error)
	// idsMet counts the ids of the rule's file among the documents read.
	idsMet() idCount
	// repeats counts the documents of the pass that writes that repeat an
	// id of the rule's file met before: each is decided as its first
	// (reportRepeats).
	repeats() int64
	// summary says on stderr what the rule counted, before the counts of
	// documents kept and dropped (with Stats).
	summary(stderr io.Writer, t *tally, stats bool)
	// remove removes what the rule left on disk.
	remove()
}

// verdict is what a rule decides of a document.
type verdict struct {
	// in: the document is in the rule's file (in a pair or a cluster);
	// the others stay, clusters of their own.
	in, stays bool
	// name is the id of the document kept of its cluster, valid until the
	// next decision; dropped, for a document dropped, the report's line
	// but for Kept.
	name    []byte
	dropped record.Dropped
}

// idCount is how many of the ids in a rule's file are among the documents
// read.
type idCount struct {
	file           string
	total, missing int
	// first returns the file's first id, for the message when none is
	// among the documents.
	first func() []byte
	// reportMissing: the ids missing are worth a message (with pairs they
	// are documents seen before, which the rule counts).
	reportMissing bool
}

// tally counts the documents of the pass that writes.
type tally struct {
	docs, inClusters, written, dropped int64
}

// ruleDefaults are the methods of a rule that needs no first pass, nothing
// before the pass that writes, and leaves nothing on disk; a rule embeds it
// and defines those it needs.
type ruleDefaults struct{}

func (ruleDefaults) twoPass() bool                 { return false }
func (ruleDefaults) note(doc, int64, []byte) error { return nil }
func (ruleDefaults) counted(context.Context) error { return nil }
func (ruleDefaults) ready(io.Writer) error         { return nil }
func (ruleDefaults) remove()                       {}

// loadRule reads the pairs or the cluster file and returns the rule they
// make, with the headers read, once it has resolved how the documents are
// read (o.reading).
func loadRule(ctx context.Context, o *Options, stderr io.Writer) (rule, error) {
	if o.Pairs != "" {
		return loadPairs(ctx, o, stderr)
	}
	cm, err := loadClusters(ctx, o.Clusters, o.Common, stderr)
	if err != nil {
		return nil, err
	}
	if err := o.resolveReading(&cm.headers, stderr); err != nil {
		return nil, err
	}
	return newClusterRule(cm, o), nil
}

// keptDropped says on stderr how many documents were kept and dropped.
func (t *tally) keptDropped(stderr io.Writer) {
	fmt.Fprintf(stderr, "keep: %d kept, %d dropped\n", t.docs-t.dropped, t.dropped)
}

// reportRepeats says on stderr how many documents repeat an id of the
// rule's file met before, which every rule decides as its first: kept when
// it was kept, else dropped for the document its first was dropped for.
func reportRepeats(stderr io.Writer, repeated int64) {
	if repeated > 0 {
		fmt.Fprintf(stderr, "keep: %d document(s) repeat an id met before: each decided as its first\n", repeated)
	}
}

// pairStats says, with stats, how many documents were read, in how many
// verified pairs, kept and dropped.
func (t *tally) pairStats(stderr io.Writer, pairs int64, stats bool) {
	if stats {
		fmt.Fprintf(stderr, "keep: %d documents read, %d in %d verified pairs\n", t.docs, t.inClusters, pairs)
		t.keptDropped(stderr)
	}
}

// missing counts the members not seen.
func missing(seen []bool) int {
	n := 0
	for _, s := range seen {
		if !s {
			n++
		}
	}
	return n
}
