// Command pipecost measures what the text record format costs between
// shingle and sketch, the link that carries the most bytes: the CPU time of
// shingling and signing a corpus held in memory, (A) passing hashes
// directly, (B) writing shingle records as text and parsing them back in
// one goroutine, (C) writing them into an OS pipe that another goroutine
// reads, parses and signs, as two stages joined by | do. B-A is the cost of
// encoding and parsing, C-A adds the pipe. B and C are measured for the
// records as shingle writes them (hex, 17 bytes a hash) and for a more
// compact text layout weighed against it (11 base-64 digits and a space,
// 12 bytes, in an alphabet that sorts as the values do).
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
	a := measure(func() {
		for _, d := range docs {
			fam.Signature(sig, distinct(d))
		}
	})
	fmt.Printf("A  hashes passed directly                 %6.2f s CPU\n", a.Seconds())
	for _, e := range []encoding{
		{"hex (16 digits and a space)", record.AppendShingles, func(dst []uint64, line []byte) []uint64 {
			_, field, _ := record.SplitShingles(line)
			dst, _, _ = record.ParseShingles(dst, nil, field)
			return dst
		}},
		{"base 64 (11 digits and a space)", appendBase64Record, parseBase64Record},
	} {
		var line []byte
		var parsed []uint64
		var textBytes int64
		b := measure(func() {
			for _, d := range docs {
				line = e.append(line[:0], []byte("id"), distinct(d))
				textBytes += int64(len(line))
				parsed = e.parse(parsed[:0], line[:len(line)-1])
				fam.Signature(sig, parsed)
			}
		})
		c := measure(func() { throughPipe(docs, e, distinct, fam, *n) })
		fmt.Printf("%s: %.1f MB of records\n", e.name, float64(textBytes)/1e6)
		fmt.Printf("B  text, encoded and parsed               %6.2f s CPU  (+%.2f s, %.0f%% of B)\n", b.Seconds(), (b - a).Seconds(), 100*(b-a).Seconds()/b.Seconds())
		fmt.Printf("C  text through an OS pipe                %6.2f s CPU  (+%.2f s, %.0f%% of C)\n", c.Seconds(), (c - a).Seconds(), 100*(c-a).Seconds()/c.Seconds())
	}
}

// encoding is a text layout of shingle records: append writes one record,
// its line end included; parse reads the hashes of a line without it.
type encoding struct {
	name   string
	append func(dst, id []byte, hashes []uint64) []byte
	parse  func(dst []uint64, line []byte) []uint64
}

// throughPipe writes the records of docs into an OS pipe that another
// goroutine reads, parses and signs, as two stages joined by | do.
func throughPipe(docs [][]byte, e encoding, distinct func([]byte) []uint64, fam *minhash.Family, n int) {
	r, w, err := os.Pipe()
	if err != nil {
		fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		br := bufio.NewReaderSize(r, 1<<20)
		sig := make([]uint64, n)
		var l []byte
		var parsed []uint64
		for {
			var err error
			l, err = readLine(br, l[:0])
			if err != nil {
				return
			}
			parsed = e.parse(parsed[:0], l[:len(l)-1])
			fam.Signature(sig, parsed)
		}
	}()
	bw := bufio.NewWriterSize(w, 1<<20)
	var line []byte
	for _, d := range docs {
		line = e.append(line[:0], []byte("id"), distinct(d))
		bw.Write(line)
	}
	bw.Flush()
	w.Close()
	<-done
	r.Close()
}

// digits64 are the digits of the base-64 layout, in ASCII order, so that
// the text of two hashes sorts as their values do.
const digits64 = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"

var value64 = func() (t [256]uint8) {
	for i := range t {
		t[i] = 0xff
	}
	for i := range len(digits64) {
		t[digits64[i]] = uint8(i)
	}
	return t
}()

// appendBase64Record writes a shingle record with each hash as 11 base-64
// digits (4 bits, then 6 each), the layout weighed against hex.
func appendBase64Record(dst, id []byte, hashes []uint64) []byte {
	dst = append(dst, id...)
	dst = append(dst, '\t')
	for i, h := range hashes {
		if i > 0 {
			dst = append(dst, ' ')
		}
		var b [11]byte
		for j := 10; j >= 0; j-- {
			b[j] = digits64[h&63]
			h >>= 6
		}
		dst = append(dst, b[:]...)
	}
	return append(dst, '\n')
}

// parseBase64Record reads the hashes appendBase64Record wrote (no checks:
// the measure is of the work a checked parser cannot avoid).
func parseBase64Record(dst []uint64, line []byte) []uint64 {
	tab := 0
	for line[tab] != '\t' {
		tab++
	}
	field := line[tab+1:]
	for len(field) >= 11 {
		var h uint64
		for _, c := range field[:11] {
			h = h<<6 | uint64(value64[c])
		}
		dst = append(dst, h)
		field = field[min(12, len(field)):]
	}
	return dst
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
