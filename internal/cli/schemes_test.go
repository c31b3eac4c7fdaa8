package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/record"
)

// pinnedSchemes maps every scheme name a header of a stored value can carry
// (the shingle, sketch and band headers, and the leader index of cluster
// --state) to the package whose known_test.go pins its values.
var pinnedSchemes = map[string]string{
	"shingle unit=char":                   "shingle",
	"shingle unit=word":                   "shingle",
	"shingle unit=stopword":               "shingle",
	"shingle stopwords=english":           "shingle",
	"shingle hash=tok64":                  "shingle",
	"shingle hash=xxh64":                  "shingle",
	"shingle normalize=none":              "shingle",
	"shingle normalize=width":             "shingle",
	"shingle normalize=punct":             "shingle",
	"shingle normalize=width,punct":       "shingle",
	"sketch method=minhash":               "minhash",
	"sketch family=mixmuladd64":           "minhash",
	"sketch method=oph":                   "minhash",
	"sketch densify=optimal":              "minhash",
	"sketch method=bottomk":               "minhash",
	"sketch method=modm":                  "minhash",
	"sketch method=simhash":               "simhash",
	"sketch bits=splitmix64":              "simhash",
	"sketch weight=tf":                    "simhash",
	"sketch weight=logtf":                 "simhash",
	"sketch weight=binary":                "simhash",
	"sketch weight=idf":                   "simhash",
	"sketch method=hyperplane":            "vector",
	"sketch vectors=splitmix64-boxmuller": "vector",
	"band scheme=minhash":                 "lsh",
	"band key=xxh64":                      "lsh",
	"band scheme=hamming":                 "lsh",
	"cluster index=banding":               "minhash",
	"cluster values=low32":                "minhash",
	"cluster index=hamming":               "simhash",
}

// TestSchemesPinned runs the stages whose records or files keep hash values
// under every scheme they offer, and checks that each scheme name in their
// headers has known-answer vectors: a new name needs its own, and a changed
// value a new name (which then needs them too).
func TestSchemesPinned(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	var headers []string
	stage := func(out string, name string, args ...string) string {
		t.Helper()
		stdout, stderr, status := run(t, name, args...)
		if status != 0 {
			t.Fatalf("%s %s: status %d: %s", name, strings.Join(args, " "), status, stderr)
		}
		headers = append(headers, stdout)
		return file(out, stdout)
	}
	docs := file("docs.tsv", "a\tthe quick brown fox jumps over the lazy dog\nb\tthe quick brown fox jumped over a lazy dog\n")
	for _, hash := range []string{"tok64", "xxh64"} {
		for _, unit := range []string{"char", "word", "stopword"} {
			stage("s.tsv", "shingle", "--hash", hash, "--unit", unit, docs)
		}
		for _, norm := range []string{"none", "punct"} {
			stage("s.tsv", "shingle", "--hash", hash, "--normalize", norm, docs)
		}
	}
	shingles := stage("shingles.tsv", "shingle", "--counts", docs)
	df := stage("df.tsv", "docfreq", shingles)
	for _, method := range []string{"oph", "bottomk", "modm"} {
		stage("k.tsv", "sketch", "--method", method, shingles)
	}
	for _, f := range []string{"64", "128"} {
		for _, weight := range []string{"tf", "logtf", "binary"} {
			stage("fp.tsv", "sketch", "--method", "simhash", "-f", f, "--weight", weight, shingles)
		}
		stage("fp.tsv", "sketch", "--method", "simhash", "-f", f, "--weight", "idf", "--df", df, shingles)
	}
	vectors := file("vectors.tsv", "a\t1 0 0.5\nb\t1 0.01 0.5\n")
	for _, bits := range []string{"64", "128"} {
		stage("vfp.tsv", "sketch", "--method", "hyperplane", "--bits", bits, vectors)
	}
	fp := stage("fp.tsv", "sketch", "--method", "simhash", shingles)
	minhash := stage("minhash.tsv", "sketch", shingles)
	stage("keys.tsv", "band", minhash)
	stage("keys.tsv", "band", "--hamming", "3", fp)
	stage("keys.tsv", "band", "--hamming", "3", "--tables", "pigeonhole", fp)
	for _, sketches := range []string{minhash, fp} {
		state := filepath.Join(dir, "leaders.state")
		os.Remove(state)
		stage("clusters.tsv", "cluster", "--method", "leader", "--state", state, sketches)
		b, err := os.ReadFile(state)
		if err != nil {
			t.Fatal(err)
		}
		headers = append(headers, string(b))
	}

	pairs := regexp.MustCompile(`(?m)^#neardup stage=(\w+) (.*)$`)
	checksum := regexp.MustCompile(`^[0-9a-f]{16}$`)
	seen := map[string]bool{}
	for _, out := range headers {
		for _, m := range pairs.FindAllStringSubmatch(out, -1) {
			for _, kv := range strings.Fields(m[2]) {
				key, value, _ := strings.Cut(kv, "=")
				if strings.Trim(value, "0123456789.,") == "" || checksum.MatchString(value) || key == "counts" ||
					record.IsDocumentKey(m[1], key) || m[1] == "cluster" && key != "index" && key != "values" || m[1] == "docfreq" {
					continue // a number, a checksum, a count, how documents were read, or no stored value's scheme
				}
				seen[m[1]+" "+kv] = true
			}
		}
	}
	for name := range seen {
		pkg, ok := pinnedSchemes[name]
		if !ok {
			t.Errorf("the header name %s has no known-answer vectors: pin its values in the package that computes them and add it to pinnedSchemes (a changed value needs a new scheme name)", name)
			continue
		}
		known, err := os.ReadFile(filepath.Join("..", pkg, "known_test.go"))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		_, value, _ := strings.Cut(name, "=")
		if !strings.Contains(string(known), value) {
			t.Errorf("%s: internal/%s/known_test.go pins no values of %s (a changed value needs a new scheme name)", name, pkg, value)
		}
	}
	for name := range pinnedSchemes {
		if !seen[name] {
			t.Errorf("no header names %s any more: take it out of pinnedSchemes", name)
		}
	}
}
