package cluster

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/neardup/neardup/internal/band"
	"github.com/neardup/neardup/internal/lsh"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
)

// Methods.
const (
	Components = "components"
	Leader     = "leader"
	Greedy     = "greedy"
)

// Representatives of greedy clusters.
const (
	RepresentFirst   = "first"
	RepresentPopular = "popular"
)

// Options configure the stage.
type Options struct {
	Method string

	// IDs names a record file whose first field is a document id (a
	// shingle or sketch file). With Singletons, the documents it holds that
	// are in no pair are written as clusters of their own.
	IDs        string
	Singletons bool
	// Split turns on the chaining guard: a member stays in a component's
	// cluster only if its pair with the representative was verified with
	// a similarity of at least MinSimilarity; see splitStars.
	Split         bool
	MinSimilarity float64
	// Report names a file for one line per cluster: its size, how many
	// members have a verified similarity to the representative, and the
	// smallest of those similarities.
	Report string
	// MemoryBytes bounds the documents components holds; beyond it their
	// pairs spill to sorted runs in TempDir (spill.go). 0 is stream's
	// default (Resolve).
	MemoryBytes int64
	TempDir     string

	// Threshold is the least estimated similarity with which a document
	// joins a cluster (leader, greedy).
	Threshold float64
	// B and R give the banding of the leader index; when both are 0 it is
	// chosen from Threshold and the signature length.
	B, R int
	// Hamming is the distance within which a SimHash fingerprint joins a
	// leader, and Blocks the blocks of the Hamming tables of the leader
	// index (0: Hamming+3).
	Hamming, Blocks int
	// State names the file that holds the leaders between runs.
	State string
	// Topics, when above 0, names each cluster of the leader method by its
	// Topics most characteristic words, tf-idf against the DF table of
	// single words, reading the Documents the sketches were made from in
	// their order; the lines go to TopicsOut (topics.go).
	Topics    int
	DF        string
	Documents []string
	TopicsOut string
	// UpdateCentre moves the centre of each cluster of the leader method
	// with its members: for SimHash fingerprints their per-bit majority
	// (centres.go), for hyperplane fingerprints the fingerprint of their
	// mean vector, the vectors read from Documents, in the JSON Lines
	// field VectorField ("": vector), the ids in IDField ("": id, and a
	// document without one is then its line number) (means.go).
	UpdateCentre bool
	VectorField  string
	IDField      string
	// Represent is RepresentFirst or RepresentPopular (greedy); S is the
	// number of values of a popular representative (0: the sketch length).
	Represent string
	S         int

	// Stats prints the number of clusters, their sizes and the largest on
	// Stderr at the end.
	Stats bool

	stream.Common
}

// Resolve checks the options and fills in their defaults (-j, --memory of
// components), the one place where both are done: Run calls it. Its
// errors are usage errors.
func (o *Options) Resolve() error {
	jobs, err := stream.Jobs(o.Jobs)
	if err != nil {
		return err
	}
	o.Jobs = jobs
	if err := status.Finite(status.Float{Flag: "--threshold", Value: o.Threshold},
		status.Float{Flag: "--min-similarity-to-representative", Value: o.MinSimilarity}); err != nil {
		return err
	}
	switch o.Method {
	case Components:
		o.MemoryBytes = stream.Memory(o.MemoryBytes)
		if o.Singletons != (o.IDs != "") {
			return status.Usagef("--singletons needs --ids FILE, the list of all documents (and --ids is for --singletons)")
		}
		if o.Split && (o.MinSimilarity < 0 || o.MinSimilarity > 1) {
			return status.Usagef("--min-similarity-to-representative %g: want a similarity between 0 and 1", o.MinSimilarity)
		}
		if o.State != "" {
			return status.Usagef("--state is for --method leader")
		}
		if o.UpdateCentre {
			return status.Usagef("--update-centre is for --method leader")
		}
		if o.Topics != 0 {
			return status.Usagef("--topics is for --method leader")
		}
		if len(o.Documents) > 0 || o.DF != "" || o.TopicsOut != "" || o.VectorField != "" || o.IDField != "" {
			return status.Usagef("--documents, --df, --topics-out, --vector-field and --id-field are for --method leader")
		}
	case Leader, Greedy:
		if o.MemoryBytes != 0 || o.TempDir != "" {
			return status.Usagef("--memory and --temp-dir are for --method components (leader and greedy hold their leaders or clusters)")
		}
		if o.Singletons || o.IDs != "" || o.Split || o.Report != "" {
			return status.Usagef("--singletons, --ids, --min-similarity-to-representative and --report are for --method components (leader and greedy write every document)")
		}
		if o.Threshold <= 0 || o.Threshold > 1 {
			return status.Usagef("--threshold %g: want a similarity above 0 and at most 1", o.Threshold)
		}
		if o.Method == Greedy {
			if o.State != "" {
				return status.Usagef("--state is for --method leader")
			}
			if o.UpdateCentre {
				return status.Usagef("--update-centre is for --method leader")
			}
			if o.Topics != 0 {
				return status.Usagef("--topics is for --method leader")
			}
			if len(o.Documents) > 0 || o.DF != "" || o.TopicsOut != "" || o.VectorField != "" || o.IDField != "" {
				return status.Usagef("--documents, --df, --topics-out, --vector-field and --id-field are for --method leader")
			}
			if o.Represent != RepresentFirst && o.Represent != RepresentPopular {
				return status.Usagef("--represent %q: want first or popular", o.Represent)
			}
			if o.S < 0 {
				return status.Usagef("-s %d: want 0 (the sketch length) or more", o.S)
			}
		}
		if (o.B == 0) != (o.R == 0) || o.B < 0 || o.R < 0 {
			return status.Usagef("give both -b and -r (positive), or neither")
		}
		if err := band.CheckBanding(o.B, o.R); err != nil {
			return err
		}
		if o.Method == Leader {
			if err := o.checkTopics(); err != nil {
				return err
			}
			// The Hamming tables of the leader index, for SimHash
			// fingerprints.
			if err := (&lsh.HammingOptions{K: o.Hamming, Blocks: o.Blocks}).Check(); err != nil {
				return status.Usage(err)
			}
		}
	default:
		return status.Usagef("unknown --method %q: want components, leader or greedy", o.Method)
	}
	return nil
}

// checkTopics checks the flags of --topics.
func (o *Options) checkTopics() error {
	switch {
	case o.Topics < 0:
		return status.Usagef("--topics %d: want the number of words of a topic", o.Topics)
	case o.Topics == 0 && (o.DF != "" || o.TopicsOut != ""):
		return status.Usagef("--df and --topics-out are for --topics N")
	case o.Topics == 0 && len(o.Documents) > 0 && !o.UpdateCentre:
		return status.Usagef("--documents is for --topics N, or for the mean vectors of --update-centre over hyperplane fingerprints")
	case (o.VectorField != "" || o.IDField != "") && (!o.UpdateCentre || len(o.Documents) == 0):
		return status.Usagef("--vector-field and --id-field name the fields of the vectors of --documents for --update-centre over hyperplane fingerprints: give them with both")
	case o.Topics > 0 && (o.DF == "" || len(o.Documents) == 0 || o.TopicsOut == ""):
		return status.Usagef("--topics needs --df FILE (the document frequencies of single words), --documents FILE (the documents of the sketches) and --topics-out FILE")
	case o.Topics > 0 && o.State != "":
		return status.Usagef("--topics and --state: the clusters' words are not kept in the state, so a later run could not go on naming them")
	}
	for _, name := range append([]string{o.DF}, o.Documents...) {
		if o.Topics > 0 && sameFile(name, o.TopicsOut) {
			return status.Usagef("--topics-out %s is a file --topics reads: it would be overwritten", o.TopicsOut)
		}
	}
	return nil
}

// sameFile reports whether two names are one file: the same file if both
// exist, else the same absolute name.
func sameFile(a, b string) bool {
	ai, aerr := os.Stat(a)
	bi, berr := os.Stat(b)
	if aerr == nil && berr == nil {
		return os.SameFile(ai, bi)
	}
	x, xerr := filepath.Abs(a)
	y, yerr := filepath.Abs(b)
	return xerr == nil && yerr == nil && x == y
}

// Header returns the stage's header line (the Beam pipeline's components
// write it too).
func (o *Options) Header() record.Header { return o.header() }

// header returns the stage's header line for the parameters that decide the
// clustering.
func (o *Options) header(kv ...string) record.Header {
	h := record.NewHeader("cluster", "method", o.Method)
	switch o.Method {
	case Components:
		if o.Split {
			h.Params = append(h.Params, record.Param{Key: "min-similarity-to-representative", Value: formatFloat(o.MinSimilarity)})
		}
	case Leader, Greedy:
		h.Params = append(h.Params, record.Param{Key: "threshold", Value: formatFloat(o.Threshold)})
	}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Params = append(h.Params, record.Param{Key: kv[i], Value: kv[i+1]})
	}
	return h
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Run reads the named inputs (standard input when there are none): pairs for
// Components, sketches for Leader and Greedy; it writes cluster records to
// stdout.
func Run(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) error {
	if err := opt.Resolve(); err != nil {
		return err
	}
	switch opt.Method {
	case Components:
		return runComponents(ctx, opt, inputs, stdout, stderr)
	}
	return runSketches(ctx, opt, inputs, stdout, stderr)
}
