// Command containtruth computes containment exactly, independently of band
// --containment (no prefix, no document-frequency order): it reads shingle
// records, builds an inverted index from each shingle to the documents that
// hold it, and for every document A counts, through the index, the
// shingles it shares with every other document B. It writes every directed
// pair with c(A,B) = |A∩B|/|A| ≥ T and |A| ≥ the least size as
//
//	A TAB B TAB c(A,B)
//
// and, given -verified (verify --containment output, "idA TAB idB TAB j TAB
// c(A,B) TAB c(B,A)") and -candidates (pairs output), how many of those
// pairs the pipeline found (recall), how many of its verified directed
// pairs are true (precision), and the candidates per true pair:
//
//	go run ./internal/tools/containtruth -t 0.9 -verified v.tsv -candidates c.tsv shingles.tsv > truth.tsv
package main

import (
	"os"

	"github.com/neardup/neardup/internal/tools/containtruth/truth"
)

func main() { os.Exit(truth.Main(os.Args[1:], os.Stdout, os.Stderr)) }
