package cluster

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/intern"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/unionfind"
)

// edge is a pair held for the chaining guard or the report.
type edge struct {
	a, b uint32
	sim  float32
}

// components holds what the components method has read.
type components struct {
	opt   *Options
	ids   *intern.Table
	uf    unionfind.Forest
	edges []edge
	// inPairs counts the documents seen in a pair.
	pairs int64
	// sp takes the pairs once the documents held pass --memory
	// (spill.go); canSpill says whether they may (the guard, the report
	// and --singletons hold theirs), and over, when they may not, how
	// far past --memory they went.
	sp       *spiller
	canSpill bool
	over     int64
	// spillErr is an error of the spill (not of the input).
	spillErr error
}

// heldBytes is what the documents held take: the ids interned and the
// union-find forest.
func (c *components) heldBytes() int64 {
	return c.ids.Bytes() + 4*int64(cap(c.uf.Parent)+cap(c.uf.Size))
}

// startSpilling turns the forest read so far into pairs, a document with its
// root (a root with itself), handed to a spiller with the pairs to come.
func (c *components) startSpilling() error {
	sp := newSpiller(c.opt)
	n := c.ids.Len()
	c.uf.Grow(n)
	for i := range uint32(n) {
		if err := sp.add(c.ids.ID(i), c.ids.ID(c.uf.Find(i))); err != nil {
			return err
		}
	}
	sp.held, sp.converted = uint64(n), sp.pairs
	c.sp, c.ids, c.uf = sp, nil, unionfind.Forest{}
	return nil
}

func runComponents(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) error {
	out := stream.NewOutput("cluster", opt.Common, stdout, stderr, opt.header())
	w := out.W
	c := &components{opt: &opt, ids: intern.New()}
	c.canSpill = !opt.Split && opt.Report == "" && !opt.Singletons
	if opt.IDs != "" {
		if err := c.readIDs(ctx, opt.IDs, w, out); err != nil {
			return err
		}
	}
	if err := c.readPairs(ctx, inputs, w, out); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.over > 0 {
		fmt.Fprintf(stderr, "cluster: the documents held %.1f MB, beyond --memory %s: --singletons, --report and --min-similarity-to-representative hold them in memory, not spilled\n",
			float64(c.over)/1e6, stream.FormatSize(opt.MemoryBytes))
	}
	if c.sp != nil {
		var st *sizeStats
		if opt.Stats {
			st = newSizeStats()
		}
		clusters, err := c.sp.finish(ctx, w, st)
		if err != nil {
			return err
		}
		c.sp.report(stderr)
		if st != nil {
			st.print(stderr, clusters, false)
		}
		return out.Finish()
	}
	n := c.ids.Len()
	c.uf.Grow(n)
	order := c.sortedOrder()
	components := 0
	for i := range n {
		if c.uf.Find(uint32(i)) == uint32(i) {
			components++
		}
	}
	var label []uint32
	if opt.Split {
		label = splitStars(n, order, c.edges)
	} else {
		label = c.uf.Parent // flattened by the finds above
	}
	count := c.uf.Size
	docs := group(label, order, count)
	order, c.uf = nil, unionfind.Forest{}

	var buf []byte
	for _, d := range docs {
		buf = record.AppendMember(buf, c.ids.ID(label[d]), c.ids.ID(d))
		if len(buf) >= 1<<16 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if len(buf) > 0 {
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	var sims []float32
	if opt.Report != "" || (opt.Stats && opt.Split) {
		sims = similarityToRepresentative(label, c.edges)
	}
	if opt.Report != "" {
		if err := c.writeReport(docs, label, sims, w); err != nil {
			return err
		}
	}
	if opt.Stats {
		st := newSizeStats()
		forGroups(docs, label, func(rep uint32, members []uint32) {
			st.add(c.ids.ID(rep), members, sims)
		})
		st.print(stderr, components, opt.Split)
	}
	return out.Finish()
}

// readIDs adds the first field of every record of name to the table.
func (c *components) readIDs(ctx context.Context, name string, w *record.Writer, out *stream.Output) error {
	sc := stream.NewScanner(stream.NewLines([]string{name}))
	defer sc.Close()
	sc.OnHeader = w.Secondary
	var buf []byte
	for sc.Scan() {
		id := record.Key(sc.Line())
		if len(id) == 0 {
			if err := out.Bad(record.Bad("empty id"), sc.Pos(), c.opt.SkipBad); err != nil {
				return err
			}
			continue
		}
		buf = record.CanonicalID(buf[:0], id)
		c.ids.Add(buf)
		if c.ids.Len()%(1<<16) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return sc.Err()
}

// readPairs reads the pairs: each joins two components, and is held when
// the guard or the report needs its similarity.
func (c *components) readPairs(ctx context.Context, inputs []string, w *record.Writer, out *stream.Output) error {
	src := stream.NewLines(inputs)
	sc := stream.NewScanner(src)
	defer sc.Close()
	// The stages the input's own headers name (the --ids file's are not
	// the input's).
	stages := map[string]bool{}
	sc.OnHeader = func(h record.Header, pos record.Pos) error {
		stages[h.Stage] = true
		return w.Header(h, pos)
	}
	defer out.Watch(src)()
	needSim := c.opt.Split || c.opt.Report != ""
	checked := false
	var bufA, bufB []byte
	for sc.Scan() {
		if !checked {
			checked = true
			if stages["sketch"] && !stages["pairs"] {
				return record.Errorf(sc.Pos(), "the input holds sketches, not pairs: cluster them with --method leader or greedy, or make pairs with band | pairs")
			}
		}
		out.Count(1)
		err := c.pair(sc.Line(), needSim, &bufA, &bufB)
		if c.spillErr != nil {
			return c.spillErr
		}
		if err != nil {
			if err := out.Bad(err, sc.Pos(), c.opt.SkipBad); err != nil {
				return err
			}
		}
		if c.pairs%(1<<16) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return sc.Err()
}

func (c *components) pair(line []byte, needSim bool, bufA, bufB *[]byte) error {
	a, b, simField, err := record.ParsePairScore(line)
	if err != nil {
		return err
	}
	if len(a) == 0 || len(b) == 0 {
		return record.Bad("empty id")
	}
	var sim float64
	if needSim {
		if len(simField) == 0 {
			return record.Bad("--report and --min-similarity-to-representative need scored pairs (idA TAB idB TAB similarity, from verify); this pair has no similarity")
		}
		if sim, err = record.ParseScore(simField); err != nil {
			return err
		}
	}
	*bufA = record.CanonicalID((*bufA)[:0], a)
	*bufB = record.CanonicalID((*bufB)[:0], b)
	if c.sp != nil {
		c.pairs++
		c.spillErr = c.sp.add(*bufA, *bufB)
		return nil
	}
	ia, err := c.number(*bufA)
	if err != nil {
		return err
	}
	ib, err := c.number(*bufB)
	if err != nil {
		return err
	}
	c.pairs++
	c.uf.Grow(c.ids.Len())
	c.uf.Union(ia, ib)
	if needSim && (!c.opt.Split || sim >= c.opt.MinSimilarity) {
		c.edges = append(c.edges, edge{ia, ib, float32(sim)})
	}
	if c.pairs%64 == 1 {
		if held := c.heldBytes(); held > c.opt.MemoryBytes {
			if c.canSpill {
				c.spillErr = c.startSpilling()
				return nil
			}
			c.over = max(c.over, held)
		}
	}
	return nil
}

// number returns the number of id, adding it unless the documents were
// listed by --ids.
func (c *components) number(id []byte) (uint32, error) {
	if c.opt.Singletons {
		n, ok := c.ids.Lookup(id)
		if !ok {
			return 0, record.Bad("id %s is not in %s", id, c.opt.IDs)
		}
		return n, nil
	}
	n, _ := c.ids.Add(id)
	return n, nil
}

// parseSimilarity parses a similarity between 0 and 1.

// sortedOrder returns the document numbers in the bytewise order of their
// ids.
func (c *components) sortedOrder() []uint32 {
	order := make([]uint32, c.ids.Len())
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return bytes.Compare(c.ids.ID(a), c.ids.ID(b)) })
	return order
}

const unset = ^uint32(0)

// splitStars is the chaining guard. edges hold the pairs whose verified
// similarity reaches the threshold. Going through the documents in id
// order, a document not yet placed becomes the representative of a new
// cluster and takes every document not yet placed with which it has such a
// pair. Every member of a cluster thus has a verified similarity of at least
// the threshold to its representative, which is the cluster's smallest id
// (the documents placed before it were all smaller). It is the same as
// splitting each component by its smallest id and splitting what falls
// below again, recursively, on the pairs among the rest. It returns, for
// each document, its representative.
func splitStars(n int, order []uint32, edges []edge) []uint32 {
	off := make([]uint32, n+1)
	for _, e := range edges {
		off[e.a+1]++
		off[e.b+1]++
	}
	for i := 1; i <= n; i++ {
		off[i] += off[i-1]
	}
	adj := make([]uint32, off[n])
	fill := slices.Clone(off[:n])
	for _, e := range edges {
		adj[fill[e.a]] = e.b
		fill[e.a]++
		adj[fill[e.b]] = e.a
		fill[e.b]++
	}
	fill = nil
	label := make([]uint32, n)
	for i := range label {
		label[i] = unset
	}
	for _, d := range order {
		if label[d] != unset {
			continue
		}
		label[d] = d
		for _, m := range adj[off[d]:off[d+1]] {
			if label[m] == unset {
				label[m] = d
			}
		}
	}
	return label
}

// group puts the documents in output order: clusters by their smallest id,
// members by id. label[d] names d's cluster by any of its members; on return
// it is the cluster's smallest member. order holds the documents by id;
// count is scratch space of the same length.
func group(label, order, count []uint32) []uint32 {
	n := len(label)
	clear(count)
	for _, l := range label {
		count[l]++
	}
	seen := make([]uint64, (n+63)/64)
	cursor := uint32(0)
	for _, d := range order {
		l := label[d]
		if seen[l/64]&(1<<(l%64)) != 0 {
			continue
		}
		seen[l/64] |= 1 << (l % 64)
		c := count[l]
		count[l] = cursor
		cursor += c
	}
	docs := make([]uint32, n)
	for _, d := range order {
		l := label[d]
		docs[count[l]] = d
		count[l]++
	}
	var cur, rep uint32
	for i, d := range docs {
		if l := label[d]; i == 0 || l != cur {
			cur, rep = l, d
		}
		label[d] = rep
	}
	return docs
}

// forGroups calls fn with each cluster of docs (in output order, labelled
// by their representative).
func forGroups(docs, label []uint32, fn func(rep uint32, members []uint32)) {
	for i := 0; i < len(docs); {
		rep := label[docs[i]]
		j := i + 1
		for j < len(docs) && label[docs[j]] == rep {
			j++
		}
		fn(rep, docs[i:j])
		i = j
	}
}

// similarityToRepresentative returns, for each document, the largest
// verified similarity of a pair between it and its cluster's
// representative, or -1 when no such pair was read (the document is in the
// cluster through others).
func similarityToRepresentative(label []uint32, edges []edge) []float32 {
	sims := make([]float32, len(label))
	for i := range sims {
		sims[i] = -1
	}
	for _, e := range edges {
		rep := label[e.a]
		if label[e.b] != rep {
			continue
		}
		m := e.a
		switch rep {
		case e.a:
			m = e.b
		case e.b:
		default:
			continue
		}
		sims[m] = max(sims[m], e.sim)
	}
	return sims
}

// verifiedStats returns how many members other than rep have a verified
// similarity to it and the smallest of those (NaN when none).
func verifiedStats(rep uint32, members []uint32, sims []float32) (int, float64) {
	n, least := 0, math.NaN()
	for _, m := range members {
		if m == rep || sims[m] < 0 {
			continue
		}
		n++
		if s := float64(sims[m]); n == 1 || s < least {
			least = s
		}
	}
	return n, least
}

// writeReport writes one line per cluster: cluster TAB size TAB verified
// TAB min-similarity.
func (c *components) writeReport(docs, label []uint32, sims []float32, main *record.Writer) error {
	h := c.opt.header("report", "yes")
	return disk.WriteFile(disk.OS{}, stateTarget(c.opt.Report), func(f io.Writer) error {
		w := record.NewWriter(f, c.opt.NoHeader, false, h)
		for _, hh := range main.Upstream().All() {
			if err := w.Header(hh, main.Upstream().Pos(hh.Stage)); err != nil {
				return err
			}
		}
		var buf []byte
		var err error
		forGroups(docs, label, func(rep uint32, members []uint32) {
			if err != nil {
				return
			}
			n, least := verifiedStats(rep, members, sims)
			buf = record.AppendClusterReport(buf[:0], record.ClusterReport{
				Cluster: c.ids.ID(rep), Size: uint64(len(members)), Verified: uint64(n), Least: least})
			_, err = w.Write(buf)
		})
		if err != nil {
			return err
		}
		return w.Close()
	})
}
