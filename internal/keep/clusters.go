package keep

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/neardup/neardup/internal/intern"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

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

// clusterRule keeps a member of each cluster of the cluster file: the one
// Prefer says.
type clusterRule struct {
	ruleDefaults
	cm       *clusterMap
	file     string
	prefer   string
	annotate bool
	// seen[m]: member m is among the documents; decided[m]: it was
	// decided in the pass that writes, and a document with its id again is
	// one of repeated, decided as its first.
	seen, decided []bool
	repeated      int64
	// done[c]: a member of cluster c has been written; keptIn[c], the
	// member kept of a done cluster (PreferFirst).
	done   []bool
	keptIn []uint32
	// choices are the first pass's choice per cluster (but PreferFirst).
	choices []choice
}

func newClusterRule(cm *clusterMap, o *Options) *clusterRule {
	n := cm.names.Len()
	r := &clusterRule{cm: cm, file: o.Clusters, prefer: o.Prefer, annotate: o.Annotate,
		seen: make([]bool, cm.members.Len()), decided: make([]bool, cm.members.Len()), done: make([]bool, n), keptIn: make([]uint32, n)}
	if o.Prefer != PreferFirst {
		r.choices = make([]choice, n)
	}
	return r
}

func (r *clusterRule) find(id []byte) (int64, uint32, uint64) {
	if m, ok := r.cm.members.Lookup(id); ok {
		return int64(r.cm.clusterOf[m]), m, 0
	}
	return notInCluster, 0, 0
}

// twoPass: the first pass finds each cluster's choice among the members
// present, but for PreferFirst.
func (r *clusterRule) twoPass() bool { return r.choices != nil }

// note notes document n as its cluster's choice if it is better than the
// one held. Documents come in input order, so on a tie the first stays; a
// document that repeats an id is not a choice (its first is).
func (r *clusterRule) note(d doc, n int64, _ []byte) error {
	if d.cluster < 0 || r.seen[d.member] {
		return nil
	}
	r.seen[d.member] = true
	ch := &r.choices[d.cluster]
	better := !ch.found
	if !better {
		byID := r.cm.members.Compare(d.member, ch.member)
		switch r.prefer {
		case PreferID:
			better = byID < 0
		case PreferLongest:
			better = d.length > ch.length || d.length == ch.length && byID < 0
		case PreferShortest:
			better = d.length < ch.length || d.length == ch.length && byID < 0
		}
	}
	if better {
		*ch = choice{found: true, member: d.member, length: d.length, doc: n}
	}
	return nil
}

// decide says whether document n, a member of a cluster, stays, and names
// the member of its cluster that stays. A document that repeats an id is
// decided as its first: it stays when its first did.
func (r *clusterRule) decide(d doc, n int64, _ []byte) (verdict, error) {
	if d.cluster < 0 {
		return verdict{}, nil
	}
	r.seen[d.member] = true
	c := d.cluster
	var stays bool
	var kept uint32
	switch {
	case r.decided[d.member]:
		r.repeated++
		if r.choices == nil {
			kept = r.keptIn[c]
		} else {
			kept = r.choices[c].member
		}
		stays = kept == d.member
	case r.choices == nil:
		stays = !r.done[c]
		if stays {
			r.done[c], r.keptIn[c] = true, d.member
		}
		kept = r.keptIn[c]
	default:
		ch := r.choices[c]
		stays = !r.done[c] && ch.found && ch.doc == n
		if stays {
			r.done[c] = true
		}
		kept = ch.member
	}
	r.decided[d.member] = true
	name := r.cm.members.ID(kept)
	return verdict{in: true, stays: stays, name: name,
		dropped: record.Dropped{Dropped: r.cm.members.ID(d.member), Via: name, Similarity: math.NaN()}}, nil
}

func (r *clusterRule) idsMet() idCount {
	return idCount{file: r.file, total: len(r.seen), missing: missing(r.seen), reportMissing: true,
		first: func() []byte { return r.cm.members.ID(0) }}
}

func (r *clusterRule) repeats() int64 { return r.repeated }

func (r *clusterRule) summary(stderr io.Writer, t *tally, stats bool) {
	if !stats {
		return
	}
	t.keptDropped(stderr)
	missing := 0
	for c, d := range r.done {
		if !d && (r.choices == nil || !r.choices[c].found) {
			missing++
		}
	}
	fmt.Fprintf(stderr, "keep: %d documents read, %d in %d clusters; %d written\n", t.docs, t.inClusters, r.cm.names.Len(), t.written)
	if missing > 0 && !r.annotate {
		fmt.Fprintf(stderr, "keep: %d cluster(s) had no member among the documents\n", missing)
	}
}
