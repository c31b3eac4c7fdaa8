// Command pipecost measures what the text record format costs between
// shingle and sketch, the link that carries the most bytes: the CPU time of
// shingling and signing a corpus held in memory, (A) passing hashes
// directly, (B) writing shingle records as text and parsing them back in
// one goroutine, (C) writing them into an OS pipe that another goroutine
// reads, parses and signs, as two stages joined by | do. B-A is the cost of
// encoding and parsing, C-A adds the pipe.
//
//	go run ./internal/tools/pipecost [-unit word -k 5 -n 128] [DIR|FILE...]
//
// The default corpus is every file of $(go env GOROOT)/src.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/neardup/neardup/internal/hashsort"
	"github.com/neardup/neardup/internal/minhash"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/shingle"
)

func main() {
	unitName := flag.String("unit", "word", "shingle unit")
	k := flag.Int("k", 5, "shingle length")
	n := flag.Int("n", 128, "signature length")
	flag.Parse()
	unit, err := shingle.ParseUnit(*unitName)
	if err != nil {
		fatal(err)
	}
	roots := flag.Args()
	if len(roots) == 0 {
		roots = []string{filepath.Join(runtime.GOROOT(), "src")}
	}
	var docs [][]byte
	var bytes int64
	for _, root := range roots {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if b, err := os.ReadFile(path); err == nil {
					docs = append(docs, b)
					bytes += int64(len(b))
				}
			}
			return nil
		})
	}
	fmt.Printf("corpus: %d documents, %.1f MB; %s %d-shingles, n = %d; one goroutine per side\n",
		len(docs), float64(bytes)/1e6, unit, *k, *n)

	sh := shingle.New(shingle.Options{Unit: unit, K: *k})
	fam := minhash.NewFamily(*n, 0)
	var sorter hashsort.Sorter
	var hashes, set []uint64
	sig := make([]uint64, *n)
	distinct := func(text []byte) []uint64 {
		hashes = sh.Append(hashes[:0], text)
		set = sorter.AppendSet(set[:0], hashes)
		return set
	}
	var textBytes int64
	record1 := func(dst []byte, set []uint64) []byte {
		dst = append(dst, "id\t"...)
		for i, h := range set {
			if i > 0 {
				dst = append(dst, ' ')
			}
			dst = record.AppendHex64(dst, h)
		}
		return append(dst, '\n')
	}

	a := measure(func() {
		for _, d := range docs {
			fam.Signature(sig, distinct(d))
		}
	})
	var line []byte
	var parsed []uint64
	b := measure(func() {
		for _, d := range docs {
			line = record1(line[:0], distinct(d))
			textBytes += int64(len(line))
			_, field, _ := record.SplitShingles(line[:len(line)-1])
			parsed, _, _ = record.ParseShingles(parsed[:0], nil, field)
			fam.Signature(sig, parsed)
		}
	})
	c := measure(func() {
		r, w, err := os.Pipe()
		if err != nil {
			fatal(err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			br := bufio.NewReaderSize(r, 1<<20)
			sig2 := make([]uint64, *n)
			var l []byte
			var parsedVals []uint64
			for {
				var err error
				l, err = readLine(br, l[:0])
				if err != nil {
					return
				}
				_, field, _ := record.SplitShingles(l[:len(l)-1])
				parsedVals, _, _ = record.ParseShingles(parsedVals[:0], nil, field)
				fam.Signature(sig2, parsedVals)
			}
		}()
		bw := bufio.NewWriterSize(w, 1<<20)
		for _, d := range docs {
			line = record1(line[:0], distinct(d))
			bw.Write(line)
		}
		bw.Flush()
		w.Close()
		<-done
		r.Close()
	})
	fmt.Printf("shingle records: %.1f MB of text\n", float64(textBytes)/1e6)
	fmt.Printf("A  hashes passed directly        %6.2f s CPU\n", a.Seconds())
	fmt.Printf("B  text, encoded and parsed      %6.2f s CPU  (+%.2f s, %.0f%% of B)\n", b.Seconds(), (b - a).Seconds(), 100*(b-a).Seconds()/b.Seconds())
	fmt.Printf("C  text through an OS pipe       %6.2f s CPU  (+%.2f s, %.0f%% of C)\n", c.Seconds(), (c - a).Seconds(), 100*(c-a).Seconds()/c.Seconds())
}

// readLine appends the next line to dst, however long it is.
func readLine(br *bufio.Reader, dst []byte) ([]byte, error) {
	for {
		part, err := br.ReadSlice('\n')
		dst = append(dst, part...)
		if err != bufio.ErrBufferFull {
			return dst, err
		}
	}
}

// measure returns the CPU time (user and system, all threads) f takes.
func measure(f func()) time.Duration {
	runtime.GC()
	before := cpu()
	f()
	return cpu() - before
}

func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "pipecost:", err)
	os.Exit(1)
}
