package band

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/neardup/neardup/internal/docfreq"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/testutil"
)

const shingleHeader = "#neardup stage=shingle unit=word k=5 hash=tok64 seed=0 normalize=width counts=no format=files ids=given\n"

// plantedShingles returns shingle records of 400 documents whose shingles
// are drawn from a pool, the common ones often (document frequencies from 1
// to hundreds), and one document in ten holding all of the one before it
// and more (containment 1), one a shingle of no other, one without
// shingles.
func plantedShingles() string {
	rng := rand.New(rand.NewPCG(11, 12))
	pool := make([]uint64, 6000)
	for i := range pool {
		pool[i] = rng.Uint64()
	}
	var b strings.Builder
	b.WriteString(shingleHeader)
	var prev []uint64
	for d := range 400 {
		set := map[uint64]bool{}
		if d%10 == 9 {
			for _, h := range prev {
				set[h] = true
			}
		}
		for range 20 + rng.IntN(130) {
			u := rng.Float64()
			set[pool[int(float64(len(pool))*u*u*u)]] = true
		}
		if d == 5 {
			set = map[uint64]bool{rng.Uint64(): true}
		}
		if d == 6 {
			clear(set)
		}
		hashes := slices.Sorted(func(yield func(uint64) bool) {
			for h := range set {
				if !yield(h) {
					return
				}
			}
		})
		b.Write(record.AppendShingles(nil, fmt.Appendf(nil, "doc%03d", d), hashes))
		prev = hashes
	}
	return b.String()
}

var spilledLine = regexp.MustCompile(`(?m)^band: counted the document frequencies itself, with no table file \(no --df\): 400 documents, \d+ distinct shingles, \d+ of them in 2 or more documents kept \((\d+) sorted runs spilled to --temp-dir under --memory\)$`)

// TestCountedDF checks that band --containment without --df, in corpus mode,
// writes byte for byte what band --df writes with docfreq's table of the
// same shingles (its header's df= and df-docs= too), at -j1 and -j3, with a
// --memory that makes the counting spill sorted runs, from a file and from
// a FIFO (read once, copied by the counting pass, read twice more).
func TestCountedDF(t *testing.T) {
	dir := t.TempDir()
	in := testutil.WriteFileIn(t, dir, "shingles.tsv", plantedShingles())
	table, _, err := testutil.Run(t, docfreq.Run, docfreq.Options{}, in)
	if err != nil {
		t.Fatal(err)
	}
	df := testutil.WriteFileIn(t, dir, "df.tsv", table)
	for _, jobs := range []int{1, 3} {
		opt := Options{Containment: &ContainmentOptions{Threshold: 0.9, DF: df, Mode: record.ContainCorpus}}
		opt.Jobs = jobs
		want, _, err := testutil.Run(t, Run, opt, in)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(want, "\tdoc009\tp\t") {
			t.Fatalf("-j%d --df: no probe of doc009, which holds doc008:\n%s", jobs, want)
		}
		for _, fifo := range []bool{false, true} {
			name := in
			if fifo {
				name = filepath.Join(t.TempDir(), "fifo")
				if err := syscall.Mkfifo(name, 0o600); err != nil {
					t.Skipf("no FIFO: %v", err)
				}
				go func() {
					f, err := os.OpenFile(name, os.O_WRONLY, 0)
					if err != nil {
						return
					}
					defer f.Close()
					data, _ := os.ReadFile(in)
					f.Write(data)
				}()
			}
			opt := Options{Containment: &ContainmentOptions{Threshold: 0.9, Mode: record.ContainCorpus, MemoryBytes: 1, TempDir: t.TempDir()}}
			opt.Jobs = jobs
			got, stderr, err := testutil.Run(t, Run, opt, name)
			if err != nil {
				t.Fatalf("-j%d, FIFO %v: %v", jobs, fifo, err)
			}
			if got != want {
				t.Fatalf("-j%d, FIFO %v: output without --df differs from docfreq's table with --df:\n%s\nwant:\n%s", jobs, fifo, got, want)
			}
			m := spilledLine.FindStringSubmatch(stderr)
			if m == nil || m[1] == "0" {
				t.Fatalf("-j%d, FIFO %v: stderr does not say it counted and spilled:\n%s", jobs, fifo, stderr)
			}
			if copied := strings.Contains(stderr, "copied to a temporary file"); copied != fifo {
				t.Fatalf("-j%d, FIFO %v: stderr says copied %v:\n%s", jobs, fifo, copied, stderr)
			}
		}
	}
}

// TestCountedHeaders checks that band without --df refuses two different
// shingle headers as docfreq does, and stored and query modes without it.
func TestCountedHeaders(t *testing.T) {
	in := testutil.WriteFile(t, "two.tsv", shingleHeader+"a\t0000000000000001\n"+strings.Replace(shingleHeader, "k=5", "k=3", 1)+"b\t0000000000000001\n")
	_, _, dferr := testutil.Run(t, docfreq.Run, docfreq.Options{}, in)
	_, _, err := testutil.Run(t, Run, Options{Containment: &ContainmentOptions{Threshold: 0.9, Mode: record.ContainCorpus}}, in)
	if dferr == nil || err == nil || err.Error() != dferr.Error() {
		t.Fatalf("band without --df: %v; docfreq: %v", err, dferr)
	}
	for _, mode := range []string{record.ContainStored, record.ContainQuery} {
		_, _, err := testutil.Run(t, Run, Options{Containment: &ContainmentOptions{Threshold: 0.9, Mode: mode}}, in)
		if err == nil || !strings.Contains(err.Error(), "--df") {
			t.Fatalf("--containment-mode %s without --df: %v", mode, err)
		}
	}
}
