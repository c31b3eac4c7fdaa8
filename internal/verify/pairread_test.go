package verify

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/stream"
)

// pairReader gives the chunks of a numbered table in order, each with its
// lines parsed as parseNumbered parses them, whatever the cores: read
// ahead past the end of one table, they go to the next, which starts
// where it would have with one core. Ids of another form are noted, and
// the chunks read ahead let go.
func TestPairReader(t *testing.T) {
	var b strings.Builder
	num := func(n int) string {
		id, _ := input.AppendNumber(nil, int64(n), 1)
		return string(id)
	}
	for i := range 300_000 { // about 7 MB: chunks past one read-ahead
		switch {
		case i%1000 == 7:
			fmt.Fprintf(&b, "%s\tother%d\n", num(i), i)
		case i%5000 == 9:
			b.WriteString("#neardup stage=pairs\n")
		default:
			fmt.Fprintf(&b, "%s\t%s\n", num(i), num(i+1+i%13))
		}
	}
	path := filepath.Join(t.TempDir(), "pairs.tsv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// tables returns, for each table cut at limit bytes, its first
	// ordinal, its numbers and its other ids; with jobs 0 from the chunks
	// as the lines give them, one at a time.
	tables := func(jobs int, limit int64) []string {
		lines := stream.NewLines([]string{path})
		defer lines.Close()
		r := &pairReader{lines: lines, numbered: true, jobs: jobs}
		defer r.release()
		var got []string
		for eof := false; !eof; {
			tb := newPairTable(true, -1)
			for tb.bytes() < limit {
				var c *stream.Chunk
				var nl *numberedLines
				var err error
				if jobs == 0 {
					if c, err = lines.Next(); c != nil {
						nl = parseNumbered(c.Data)
					}
				} else {
					c, nl, err = r.next()
				}
				if err != nil {
					t.Fatal(err)
				}
				if c == nil {
					eof = true
					break
				}
				if tb.first < 0 {
					tb.first = c.FirstOrdinal
				}
				if want := parseNumbered(c.Data); !slices.Equal(nl.a, want.a) || !slices.Equal(nl.b, want.b) || nl.npairs != want.npairs {
					t.Fatalf("-j %d: chunk %d parsed otherwise than parseNumbered", jobs, c.Seq)
				}
				tb.add(c, nl)
				c.Release()
			}
			var a []uint64
			for _, blk := range tb.a64.blocks {
				a = append(a, blk...)
			}
			got = append(got, fmt.Sprintf("first %d, %d lines, %d pairs, %d others, sum %d", tb.first, len(a), tb.npairs, len(tb.others), sumOf(a)))
		}
		return got
	}
	for _, limit := range []int64{math.MaxInt64, 6 << 20} {
		want := tables(0, limit)
		if limit < math.MaxInt64 && len(want) < 2 {
			t.Fatalf("limit %d: %d table(s), want several", limit, len(want))
		}
		if !strings.Contains(want[0], " 300 others") && limit == math.MaxInt64 {
			t.Errorf("one table: %s, want 300 others", want[0])
		}
		for _, jobs := range []int{1, 2, 3} {
			if got := tables(jobs, limit); !slices.Equal(got, want) {
				t.Errorf("limit %d, -j %d: tables\n%q\nwant (one chunk at a time)\n%q", limit, jobs, got, want)
			}
		}
	}
}

func sumOf(a []uint64) uint64 {
	s := uint64(0)
	for _, x := range a {
		s += x
	}
	return s
}

// release returns while the reader waits for more input, letting go of
// what was read ahead.
func TestPairReaderRelease(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	go func() {
		for i := range 1000 {
			fmt.Fprintf(pw, "%012d\t%012d\n", i, i+1)
		}
		// Not closed: the reader waits for more.
	}()
	lines := stream.NewLines([]string{fmt.Sprintf("/dev/fd/%d", pr.Fd())})
	r := &pairReader{lines: lines, numbered: true, jobs: 2}
	c, nl, err := r.next()
	if err != nil || c == nil || len(nl.a) == 0 {
		t.Fatalf("next: %v, %v", c, err)
	}
	c.Release()
	done := make(chan struct{})
	go func() {
		r.release()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("release waits for the reader")
	}
}
