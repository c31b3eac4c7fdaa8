package cluster

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/vector"
)

const meanSeed, meanDim = 5, 12

func hyperplaneHeader(f int) string {
	return fmt.Sprintf("#neardup stage=sketch method=hyperplane f=%d seed=%d dim=%d vectors=%s\n", f, meanSeed, meanDim, vector.Scheme)
}

// driftingVectors makes n vectors of meanDim components in groups that
// drift: each group starts at a random point, and each member is the one
// before it moved a small step in a direction the group keeps, plus noise,
// so that a group's late members are far from its first one.
func driftingVectors(rng *rand.Rand, n int) [][]float64 {
	var vs [][]float64
	for len(vs) < n {
		at, step := make([]float64, meanDim), make([]float64, meanDim)
		for j := range at {
			at[j] = rng.NormFloat64()
			step[j] = 0.08 * rng.NormFloat64()
		}
		for range 5 + rng.IntN(20) {
			v := make([]float64, meanDim)
			for j := range v {
				at[j] += step[j]
				v[j] = at[j] + 0.03*rng.NormFloat64()
			}
			vs = append(vs, v)
		}
	}
	return vs[:n]
}

// vectorInput writes the vectors as JSON Lines documents d00000, d00001, …
// in their field "emb", and their f-bit hyperplane sketches.
func vectorInput(t testing.TB, vs [][]float64, f int) (docs, sketches string, fps [][]uint64) {
	t.Helper()
	planes := vector.NewHyperplanes(f, meanDim, meanSeed)
	var d, s strings.Builder
	s.WriteString(hyperplaneHeader(f))
	for i, v := range vs {
		fmt.Fprintf(&d, `{"id": "d%05d", "emb": [`, i)
		for j, x := range v {
			if j > 0 {
				d.WriteString(", ")
			}
			d.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		}
		d.WriteString("]}\n")
		fp, _ := planes.Words(nil, nil, v)
		fps = append(fps, fp)
		s.Write(record.AppendBitSketch(nil, fmt.Appendf(nil, "d%05d", i), uint64(vector.NonZero(v)), fp))
	}
	path := filepath.Join(t.TempDir(), "docs.jsonl")
	if err := os.WriteFile(path, []byte(d.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, s.String(), fps
}

// meanOf returns the fingerprint of the mean of the vectors.
func meanOf(planes *vector.Hyperplanes, vs [][]float64) []uint64 {
	sum := make([]float64, meanDim)
	for _, v := range vs {
		for j, x := range v {
			sum[j] += x
		}
	}
	for j := range sum {
		sum[j] /= float64(len(vs))
	}
	fp, _ := planes.Words(nil, nil, sum)
	return fp
}

// bruteMeans is the leader method with mean centres by its definition: in
// input order, a document joins the nearest centre within k bits (ties to
// the earliest cluster), whose centre becomes the fingerprint of its
// members' mean vector, else it starts a cluster centred on itself.
func bruteMeans(vs [][]float64, fps [][]uint64, f, k int) string {
	planes := vector.NewHyperplanes(f, meanDim, meanSeed)
	type cluster struct {
		first   int
		members [][]float64
		centre  []uint64
	}
	var cs []*cluster
	var out strings.Builder
	for i, fp := range fps {
		best := nearest(cs, fp, k, func(c *cluster) []uint64 { return c.centre })
		if best == nil {
			best = &cluster{first: i}
			cs = append(cs, best)
		}
		best.members = append(best.members, vs[i])
		best.centre = meanOf(planes, best.members)
		fmt.Fprintf(&out, "d%05d\td%05d\n", best.first, i)
	}
	return out.String()
}

func meanOptions(docs string) Options {
	opt := defaults(Leader)
	opt.Hamming = 4
	opt.UpdateCentre = true
	opt.Documents = []string{docs}
	opt.VectorField = "emb"
	return opt
}

// After each document, every cluster's centre in the index is the
// fingerprint of the mean of its members' vectors.
func TestLeaderCentreIsMeanVector(t *testing.T) {
	vs := driftingVectors(rand.New(rand.NewPCG(1, 2)), 400)
	for _, f := range []int{64, 128} {
		_, _, fps := vectorInput(t, vs, f)
		opt := meanOptions("unused")
		h, err := record.ParseHeader([]byte(strings.TrimSpace(hyperplaneHeader(f))))
		if err != nil {
			t.Fatal(err)
		}
		l, _, err := hammingLeaders(opt, sketchKind{method: "hyperplane", n: f / 64, header: h}, false, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		planes := vector.NewHyperplanes(f, meanDim, meanSeed)
		members := map[string][][]float64{}
		moved := 0
		for i, v := range vs {
			l.centres.(*meanCentres).v = v
			name := string(l.assign(fmt.Appendf(nil, "d%05d", i), 1, fps[i]))
			if l.err != nil {
				t.Fatal(l.err)
			}
			members[name] = append(members[name], v)
			for c := range l.sizes {
				want := meanOf(planes, members[string(l.name(uint32(c)))])
				got := l.index.(*HammingIndex).fps[c*f/64 : (c+1)*f/64]
				if !slices.Equal(got, want) {
					t.Fatalf("f=%d, after d%05d: the centre of %s is %x, the fingerprint of its mean %x", f, i, l.name(uint32(c)), got, want)
				}
			}
			if !slices.Equal(meanOf(planes, members[name][:1]), meanOf(planes, members[name])) {
				moved++
			}
		}
		if moved == 0 {
			t.Fatalf("f=%d: no centre left its leader: the stream does not test them", f)
		}
	}
}

// Through the stage: the clusters are those of the definition, and on a
// drifting stream they differ from leaders that stay put (members that
// drift away from the first still join the moving centre).
func TestLeaderMeanCentresEqualDefinition(t *testing.T) {
	vs := driftingVectors(rand.New(rand.NewPCG(3, 4)), 1500)
	for _, f := range []int{64, 128} {
		docs, sketches, fps := vectorInput(t, vs, f)
		opt := meanOptions(docs)
		opt.Hamming = f / 16
		got, _, err := run(t, opt, sketches)
		if err != nil {
			t.Fatalf("f=%d: %v", f, err)
		}
		if want := bruteMeans(vs, fps, f, opt.Hamming); got != want {
			t.Errorf("f=%d: the mean centres assign differently from the definition", f)
		}
		plain := defaults(Leader)
		plain.Hamming = opt.Hamming
		leaders, _, err := run(t, plain, sketches)
		if err != nil {
			t.Fatal(err)
		}
		n, m := strings.Count(got, "\n")-clustersOf(got), strings.Count(leaders, "\n")-clustersOf(leaders)
		if n <= m {
			t.Errorf("f=%d: with centres %d documents joined a cluster, without %d: the drift should join more", f, n, m)
		}
	}
}

// clustersOf counts the clusters of leader output: the lines naming their
// own document.
func clustersOf(out string) int {
	n := 0
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		a, b, _ := strings.Cut(line, "\t")
		if a == b {
			n++
		}
	}
	return n
}

// A clustering continued with --state, its sums saved, writes what one run
// writes.
func TestLeaderMeanCentresStateContinues(t *testing.T) {
	vs := driftingVectors(rand.New(rand.NewPCG(5, 6)), 900)
	docs, sketches, _ := vectorInput(t, vs, 64)
	lines := strings.SplitAfter(sketches, "\n")
	header, body := lines[0], lines[1:]
	opt := meanOptions(docs)
	whole, _, err := run(t, opt, sketches)
	if err != nil {
		t.Fatal(err)
	}
	opt.State = filepath.Join(t.TempDir(), "leaders.state")
	var parts string
	for _, r := range [][2]int{{0, 300}, {300, 301}, {301, len(body)}} {
		// Each run reads the documents from the start, passing over
		// those of the runs before.
		got, _, err := run(t, opt, header+strings.Join(body[r[0]:r[1]], ""))
		if err != nil {
			t.Fatal(err)
		}
		parts += got
	}
	if parts != whole {
		t.Fatal("a run with mean centres continued with --state differs from one run")
	}
	data, err := os.ReadFile(opt.State)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "neardup-leaders 3\n") || !strings.Contains(string(data), "centre=mean") {
		t.Errorf("the state does not start %q with centre=mean in its header", "neardup-leaders 3")
	}
	plain := opt
	plain.UpdateCentre, plain.Documents, plain.VectorField = false, nil, ""
	if _, _, err := run(t, plain, header+body[0]); err == nil || !strings.Contains(err.Error(), "centre") {
		t.Fatalf("a state with mean centres continued without: err = %v", err)
	}
}

// The documents must be those sketched, in their order, with vectors of
// the header's dimension: else the error names the file and line.
func TestLeaderMeanCentresRefusals(t *testing.T) {
	vs := driftingVectors(rand.New(rand.NewPCG(7, 8)), 20)
	docs, sketches, _ := vectorInput(t, vs, 64)
	opt := meanOptions(docs)
	lines := strings.SplitAfter(sketches, "\n")
	swapped := lines[0] + lines[2] + lines[1]
	if _, _, err := run(t, opt, swapped); err == nil || !strings.Contains(err.Error(), "docs.jsonl:20: document d00000 is not in --documents") {
		t.Errorf("sketches out of the documents' order: err = %v", err)
	}
	wrong := opt
	wrong.VectorField = "vector"
	if _, _, err := run(t, wrong, sketches); err == nil || !strings.Contains(err.Error(), `could not be read as a document: `+docs+`:1: no "vector" field`) {
		t.Errorf("another --vector-field: err = %v", err)
	}
	data, _ := os.ReadFile(docs)
	other := strings.Replace(string(data), `"d00003", "emb": [`, `"d00003", "emb": [1, `, 1)
	os.WriteFile(docs, []byte(other), 0o644)
	if _, _, err := run(t, opt, sketches); err == nil || !strings.Contains(err.Error(), "docs.jsonl:4: ") || !strings.Contains(err.Error(), "13 components, want 12") {
		t.Errorf("a vector of another dimension: err = %v", err)
	}
	other = strings.Replace(string(data), `"d00003", "emb": [`+strconv.FormatFloat(vs[3][0], 'g', -1, 64), `"d00003", "emb": [-1000`, 1)
	os.WriteFile(docs, []byte(other), 0o644)
	if _, _, err := run(t, opt, sketches); err == nil || !strings.Contains(err.Error(), "docs.jsonl:4: document d00003: the fingerprint of its vector") {
		t.Errorf("a vector that is not the one sketched: err = %v", err)
	}
	noDocs := opt
	noDocs.Documents, noDocs.VectorField = nil, ""
	if _, _, err := run(t, noDocs, sketches); err == nil || !strings.Contains(err.Error(), "--documents") {
		t.Errorf("no --documents: err = %v", err)
	}
	simhash := opt
	if _, _, err := run(t, simhash, simhashRecords(1, 2)); err == nil || !strings.Contains(err.Error(), "--documents") {
		t.Errorf("--documents for simhash centres: err = %v", err)
	}
	simhash.Topics, simhash.DF, simhash.TopicsOut = 2, "df.tsv", "topics.tsv"
	if _, _, err := run(t, simhash, simhashRecords(1, 2)); err == nil || !strings.Contains(err.Error(), "--vector-field and --id-field are for") {
		t.Errorf("--vector-field for simhash centres: err = %v", err)
	}
	vf := defaults(Leader)
	vf.VectorField = "emb"
	if err := vf.Resolve(); err == nil || !strings.Contains(err.Error(), "--vector-field") {
		t.Errorf("--vector-field without --update-centre: err = %v", err)
	}
}

// The flags of the documents are refused where no method reads them.
func TestDocumentsOnlyForLeader(t *testing.T) {
	for _, method := range []string{Components, Greedy} {
		opt := defaults(method)
		opt.Documents, opt.VectorField = []string{"docs.jsonl"}, "emb"
		if err := opt.Resolve(); err == nil || !strings.Contains(err.Error(), "are for --method leader") {
			t.Errorf("%s: err = %v", method, err)
		}
	}
}

// --topics reads words as the shingle header says; hyperplane fingerprints
// have none, and the refusal says why rather than blaming --no-header.
func TestTopicsOfVectorsRefused(t *testing.T) {
	vs := driftingVectors(rand.New(rand.NewPCG(9, 10)), 5)
	docs, sketches, _ := vectorInput(t, vs, 64)
	opt := defaults(Leader)
	opt.Topics, opt.DF, opt.Documents, opt.TopicsOut = 2, "df.tsv", []string{docs}, filepath.Join(t.TempDir(), "topics.tsv")
	if _, _, err := run(t, opt, sketches); err == nil || !strings.Contains(err.Error(), "in.tsv:1: --topics names a cluster by the words of its documents") {
		t.Errorf("err = %v", err)
	}
}

// The ids of JSON Lines documents are in the field --id-field names.
func TestLeaderMeanCentresIDField(t *testing.T) {
	vs := driftingVectors(rand.New(rand.NewPCG(11, 12)), 50)
	docs, sketches, _ := vectorInput(t, vs, 64)
	opt := meanOptions(docs)
	want, _, err := run(t, opt, sketches)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(docs)
	os.WriteFile(docs, []byte(strings.ReplaceAll(string(data), `{"id": `, `{"doc": `)), 0o644)
	if _, _, err := run(t, opt, sketches); err == nil || !strings.Contains(err.Error(), "document d00000 is not in --documents") {
		t.Errorf("ids in another field: err = %v", err)
	}
	opt.IDField = "doc"
	if got, _, err := run(t, opt, sketches); err != nil || got != want {
		t.Errorf("--id-field doc: err = %v, the clusters are those with ids in id: %v", err, got == want)
	}
}
