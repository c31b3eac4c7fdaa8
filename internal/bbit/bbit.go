// Package bbit reads the b-bit signature files of band --bbit (each
// document's size and its signature at minhash.Bits bits a value) for the
// stages that set aside candidate pairs far below the similarity threshold
// by them: pairs --bbit and verify --bbit.
package bbit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/minhash"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
)

// Key is the parameter of band's header in a b-bit signature file: the
// bits kept of each value.
const Key = "bbit"

// ValuesKey is the parameter of band's header in a b-bit signature file
// whose records hold the values of a finer signature than the sketch
// header's (shingle --sketch oph --band --bbit): their number.
const ValuesKey = "bbit-values"

// File is a b-bit signature file whose headers were checked.
type File struct {
	Name string
	// Densified: the signatures are one-permutation ones with
	// densification (sketch --method oph).
	Densified bool
}

// Open reads the headers of the b-bit signature file name and checks that
// it signs the documents the records of a stage came from: its shingle and
// sketch headers are those upstream gives (the header of a stage, "" when
// there is none), and band's says bbit=4.
func Open(name string, upstream func(stage string) string) (*File, error) {
	f, err := input.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var own []record.Header
	for n := int64(1); ; n++ {
		line, err := br.ReadSlice('\n')
		if len(line) == 0 || !record.IsHeader(line) {
			break
		}
		h, perr := record.ParseHeader(record.TrimEOL(line))
		if perr != nil {
			return nil, record.Errorf(record.Pos{File: name, Line: n}, "%v", perr)
		}
		own = append(own, h)
		if err != nil {
			break
		}
	}
	b := &File{Name: name}
	bits := false
	for _, h := range own {
		switch h.Stage {
		case "band":
			v, _ := h.Get(Key)
			bits = v == strconv.Itoa(minhash.Bits)
		case "sketch":
			m, _ := h.Get("method")
			b.Densified = m == "oph"
		}
	}
	if !bits {
		return nil, status.Usagef("--bbit %s: not a b-bit signature file of band --bbit (no band header with %s=%d)", name, Key, minhash.Bits)
	}
	for _, stage := range []string{"shingle", "sketch"} {
		want, got := upstream(stage), ""
		for _, h := range own {
			if h.Stage == stage {
				got = h.String()
			}
		}
		if want != got {
			return nil, status.Usagef("--bbit %s signs other documents than the input: its %s header is %q, the input's %q", name, stage, got, want)
		}
	}
	return b, nil
}

// Each calls fn with each record of the file, in order, and where it is.
func (b *File) Each(fn func(s *record.Bits, pos record.Pos) error) error {
	f, err := input.Open(b.Name)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var rec record.Bits
	for line := int64(1); ; line++ {
		l, err := br.ReadSlice('\n')
		pos := record.Pos{File: b.Name, Line: line}
		if errors.Is(err, bufio.ErrBufferFull) {
			return record.Errorf(pos, "a line longer than %d bytes", br.Size())
		}
		if len(l) > 0 && !record.IsHeader(l) {
			if perr := record.ParseBits(&rec, record.TrimEOL(l)); perr != nil {
				return record.Errorf(pos, "%v", perr)
			}
			if ferr := fn(&rec, pos); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// Width checks that every signature has as many values as the first:
// it returns the bytes of a signature, fixed by the first call.
type Width int

// Check refuses a signature of another length than the first.
func (w *Width) Check(values []byte, pos record.Pos) error {
	if *w == 0 {
		*w = Width(len(values))
	}
	if len(values) != int(*w) {
		return record.Errorf(pos, "a signature of %d values after one of %d", 2*len(values), 2*int(*w))
	}
	return nil
}

// Counts are what setting pairs aside did.
type Counts struct {
	Pairs, BySize, BySignature, Unsigned int64
}

// Add adds o to c.
func (c *Counts) Add(o Counts) {
	c.Pairs += o.Pairs
	c.BySize += o.BySize
	c.BySignature += o.BySignature
	c.Unsigned += o.Unsigned
}

// Judge tells whether a pair of documents signed a and b, of sa and sb
// distinct shingles, is far below threshold (containment: the least Jaccard
// at which either is contained at threshold in the other), and counts it.
func (c *Counts) Judge(a, b []byte, sa, sb int, threshold float64, containment, densified bool) bool {
	least := threshold
	if containment {
		least = minhash.ContainmentLeast(sa, sb, threshold)
	}
	if least <= 0 || !minhash.FarBelow(a, b, sa, sb, least, densified) {
		return false
	}
	c.count(sa, sb, least)
	return true
}

// JudgeBy is Judge of a Jaccard threshold by j, the FarJudge of the
// signatures at that threshold.
func (c *Counts) JudgeBy(j *minhash.FarJudge, a, b []byte, sa, sb int) bool {
	if !j.Far(a, b, sa, sb) {
		return false
	}
	c.count(sa, sb, j.Least())
	return true
}

// count counts a pair of sizes sa and sb set aside at least.
func (c *Counts) count(sa, sb int, least float64) {
	if float64(min(sa, sb)) < least*float64(max(sa, sb)) {
		c.BySize++
	} else {
		c.BySignature++
	}
}

// Report says on w what was set aside (stage names the stage, what the
// pairs counted), and the pairs that could not be judged.
func (c Counts) Report(w io.Writer, stage, name, what string) {
	fmt.Fprintf(w, "%s: --bbit %s: %d of %d %s set aside: %d by their sizes (below the threshold for certain), %d by their 4-bit signatures (a pair at the threshold is set aside with probability under %.0e)\n",
		stage, name, c.BySize+c.BySignature, c.Pairs, what, c.BySize, c.BySignature, minhash.FarBelowError)
	if c.Unsigned > 0 {
		fmt.Fprintf(w, "%s: --bbit %s: %d candidate pair(s) with a document it has no signature of: kept\n", stage, name, c.Unsigned)
	}
}

// Table holds the signature and size of every document of a file, for
// pairs whose ids come in any order: by arrival number (ids=number), in
// arrays indexed from the first number, or else by id in a map.
type Table struct {
	width    int
	sigs     []byte
	sizes    []uint32 // a document's size plus 1; 0: no signature
	numbered bool
	base     uint64
	index    map[string]uint32
}

// Load reads the file into a table; numbered says the ids are arrival
// numbers.
func Load(b *File, numbered bool) (*Table, error) {
	t := &Table{numbered: numbered}
	if !numbered {
		t.index = map[string]uint32{}
	}
	var plain int64
	if st, err := os.Stat(b.Name); err == nil && st.Mode().IsRegular() && !compressedName(b.Name) {
		plain = st.Size()
	}
	var w Width
	first := true
	err := b.Each(func(s *record.Bits, pos record.Pos) error {
		if err := w.Check(s.Values, pos); err != nil {
			return err
		}
		if t.width == 0 && plain > 0 {
			// Room for the most records a plain file holds, each at
			// least as long as the first but for its size (one digit
			// at least), so that the arrays are not copied as they
			// grow: the copy would hold twice the table for a while.
			n := plain/int64(len(s.ID)+2*len(s.Values)+4) + 1
			t.sizes = make([]uint32, 0, n)
			t.sigs = make([]byte, 0, n*int64(len(s.Values)))
		}
		t.width = int(w)
		var d uint64
		if numbered {
			n, ok := input.ParseNumber(s.ID)
			if !ok {
				return record.Errorf(pos, "id %s is not an arrival number, as the shingle header says the ids are", s.ID)
			}
			if first {
				t.base, first = n, false
			}
			if n < t.base || n-t.base >= math.MaxUint32 {
				return record.Errorf(pos, "id %s comes after %d: the signatures are not in arrival order", s.ID, t.base)
			}
			d = n - t.base
		} else {
			if _, ok := t.index[string(s.ID)]; ok {
				return record.Errorf(pos, "document %s appears more than once", s.ID)
			}
			d = uint64(len(t.sizes))
			t.index[string(s.ID)] = uint32(d)
		}
		for uint64(len(t.sizes)) <= d {
			t.sizes = append(t.sizes, 0)
			t.sigs = append(t.sigs, make([]byte, t.width)...)
		}
		if t.sizes[d] != 0 {
			return record.Errorf(pos, "document %s appears more than once", s.ID)
		}
		t.sizes[d] = uint32(min(s.Size, math.MaxUint32-1)) + 1
		copy(t.sigs[d*uint64(t.width):], s.Values)
		return nil
	})
	return t, err
}

// Lookup returns the signature and size of document id in t.
func Lookup[ID ~string | ~[]byte](t *Table, id ID) (sig []byte, size int, ok bool) {
	return t.At(Index(t, id))
}

// NoIndex is Index's place of a document t does not sign.
const NoIndex = math.MaxUint32

// Index returns the place in t of document id (At gives its signature
// and size), NoIndex when t does not sign it.
func Index[ID ~string | ~[]byte](t *Table, id ID) uint32 {
	var d uint64
	if t.numbered {
		n, ok := parseNumber(id)
		if !ok || n < t.base {
			return NoIndex
		}
		d = n - t.base
	} else {
		i, ok := t.index[string(id)]
		if !ok {
			return NoIndex
		}
		d = uint64(i)
	}
	if d >= uint64(len(t.sizes)) || t.sizes[d] == 0 {
		return NoIndex
	}
	return uint32(d) // below math.MaxUint32: Load refuses more
}

// At returns the signature and size of the document at place i of t
// (Index); ok is false for NoIndex.
func (t *Table) At(i uint32) (sig []byte, size int, ok bool) {
	if i == NoIndex {
		return nil, 0, false
	}
	d := uint64(i)
	return t.sigs[d*uint64(t.width) : (d+1)*uint64(t.width)], int(t.sizes[d] - 1), true
}

// parseNumber parses an arrival number (input.NumberDigits digits, 12):
// its first eight digits and its last four (behind four '0's) each as a
// word, eight at a time (digits8), without a branch a digit. pairs --bbit
// looks up each id of each bucket: the loop of a digit at a time was 9 %
// of its CPU on a million crawl documents.
func parseNumber[ID ~string | ~[]byte](id ID) (uint64, bool) {
	if len(id) != input.NumberDigits {
		return 0, false
	}
	_ = id[11]
	hi := uint64(id[0]) | uint64(id[1])<<8 | uint64(id[2])<<16 | uint64(id[3])<<24 |
		uint64(id[4])<<32 | uint64(id[5])<<40 | uint64(id[6])<<48 | uint64(id[7])<<56
	lo := 0x30303030 | uint64(id[8])<<32 | uint64(id[9])<<40 | uint64(id[10])<<48 | uint64(id[11])<<56
	h, okh := digits8(hi)
	l, okl := digits8(lo)
	return h*10000 + l, okh && okl
}

// digits8 returns the number the eight ASCII digits of x write (the first,
// most significant, in its low byte) and whether they are all digits: a
// byte is one when its high half is 3, and still is with 6 added. Pairs of
// digits, then of pairs, then of quads are joined by a multiply each.
func digits8(x uint64) (uint64, bool) {
	const (
		highs  = 0xf0f0f0f0f0f0f0f0
		threes = 0x3030303030303030
	)
	ok := x&highs == threes && (x+0x0606060606060606)&highs == threes
	d := x - threes
	d = (d*10 + d>>8) & 0x00ff00ff00ff00ff
	d = (d*100 + d>>16) & 0x0000ffff0000ffff
	d = (d*10000 + d>>32) & 0xffffffff
	return d, ok
}

// TableBytes estimates the memory of the table of the file name from its
// size: 68 bytes a document against the about 147 of its record (128
// values, ids of 12 digits; 132 against 275 at shingle --sketch oph's 256),
// more for other ids (their map); a compressed file counts its size.
func TableBytes(name string) int64 {
	st, err := os.Stat(name)
	if err != nil {
		return 0
	}
	n := st.Size()
	if compressedName(name) {
		return n
	}
	return n * 68 / 147
}

// Values is the number of values of each signature of the table, 0 when
// it has none.
func (t *Table) Values() int { return 2 * t.width }

// compressedName says whether a file of that name is read decompressed.
func compressedName(name string) bool {
	return strings.HasSuffix(name, ".zst") || strings.HasSuffix(name, ".gz")
}
