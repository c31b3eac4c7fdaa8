package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const wordShingles = "#neardup stage=shingle unit=word k=1 hash=tok64 seed=0 normalize=width counts=yes format=jsonl id-field=id text-field=text ids=given\n"

// topicsRun clusters fingerprints (id, fingerprint) of the documents in
// docs (JSON Lines) with --topics 2 against a table where no word has a
// document yet, so that the words rank by occurrences, then bytewise.
func topicsRun(t *testing.T, docs string, fps ...string) (string, string, string, error) {
	t.Helper()
	dir := t.TempDir()
	df := filepath.Join(dir, "df.tsv")
	os.WriteFile(df, []byte("#neardup stage=shingle unit=word k=1 hash=tok64 seed=0 normalize=width\n#neardup stage=docfreq docs=10\n"), 0o644)
	documents := filepath.Join(dir, "docs.jsonl")
	os.WriteFile(documents, []byte(docs), 0o644)
	var in strings.Builder
	in.WriteString(wordShingles)
	in.WriteString("#neardup stage=sketch method=simhash f=64 weight=tf seed=0 bits=splitmix64\n")
	for i := 0; i+1 < len(fps); i += 2 {
		in.WriteString(fps[i] + "\t3\t" + fps[i+1] + "\n")
	}
	opt := defaults(Leader)
	opt.Hamming = 3
	opt.UpdateCentre = true
	opt.Topics, opt.DF, opt.Documents = 2, df, []string{documents}
	opt.TopicsOut = filepath.Join(dir, "topics.tsv")
	out, stderr, err := run(t, opt, in.String())
	topics, _ := os.ReadFile(opt.TopicsOut)
	return out, string(topics), stderr, err
}

// A topic line is written when a cluster starts and each time a member
// changes its two best words; a document without a sketch is passed over
// and counted.
func TestTopicsAsClustersForm(t *testing.T) {
	docs := `{"id": "a", "text": "Apple apple banana"}
{"id": "x", "text": "no sketch came for this one"}
{"id": "b", "text": "river stone stone"}
{"id": "c", "text": "cherry cherry cherry banana"}
{"id": "d", "text": "apple"}
`
	out, topics, stderr, err := topicsRun(t, docs,
		"a", "00000000000000ff", "b", "ffffffff00000000", "c", "00000000000000fe", "d", "00000000000000ff")
	if err != nil {
		t.Fatal(err)
	}
	if want := "a\ta\nb\tb\na\tc\na\td\n"; out != want {
		t.Fatalf("clusters %q, want %q", out, want)
	}
	// The headers of the input, and the stage's with the topics' length.
	want := wordShingles + "#neardup stage=sketch method=simhash f=64 weight=tf seed=0 bits=splitmix64\n" +
		"#neardup stage=cluster method=leader hamming=3 index=hamming f=64 blocks=6 centre=majority topics=2\n" +
		"a\tapple banana\nb\tstone river\na\tcherry apple\na\tapple cherry\n"
	if topics != want {
		t.Errorf("topics:\n%s\nwant\n%s", topics, want)
	}
	if !strings.Contains(stderr, "1 document(s) of --documents had no sketch") {
		t.Errorf("stderr %q does not count the document passed over", stderr)
	}
}

func TestTopicsRefusals(t *testing.T) {
	_, _, _, err := topicsRun(t, `{"id": "a", "text": "apple"}`+"\n", "a", "00000000000000ff", "b", "00000000000000ff")
	if err == nil || !strings.Contains(err.Error(), "docs.jsonl:1: document b is not in --documents") {
		t.Errorf("a document not in the file: err = %v", err)
	}
	dir := t.TempDir()
	df := filepath.Join(dir, "df.tsv")
	os.WriteFile(df, []byte("#neardup stage=shingle unit=word k=5 hash=tok64 seed=0 normalize=width\n#neardup stage=docfreq docs=10\n"), 0o644)
	opt := defaults(Leader)
	opt.Hamming = 3
	opt.Topics, opt.DF, opt.Documents, opt.TopicsOut = 2, df, []string{df}, filepath.Join(dir, "t.tsv")
	in := wordShingles + "#neardup stage=sketch method=simhash f=64 weight=tf seed=0 bits=splitmix64\na\t3\t00000000000000ff\n"
	if _, _, err := run(t, opt, in); err == nil || !strings.Contains(err.Error(), "single words") {
		t.Errorf("a table of 5-word shingles: err = %v", err)
	}
	for _, c := range []struct {
		change func(o *Options)
		msg    string
	}{
		{func(o *Options) { o.State = "s" }, "--topics and --state"},
		{func(o *Options) { o.TopicsOut = "" }, "--topics needs"},
		{func(o *Options) { o.Topics = 0 }, "are for --topics N"},
		{func(o *Options) { o.Method = Greedy }, "--topics is for --method leader"},
		{func(o *Options) { o.TopicsOut = o.DF }, "--topics-out " + df + " is a file --topics reads"},
	} {
		o := opt
		c.change(&o)
		if err := o.Resolve(); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("want %q: err = %v", c.msg, err)
		}
	}
}
