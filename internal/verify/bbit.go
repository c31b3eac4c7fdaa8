package verify

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/neardup/neardup/internal/band"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/minhash"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// verify --documents --bbit FILE: before a segment's documents are read,
// its candidate pairs whose sizes or b-bit signatures (band --bbit) put them
// far below the threshold are set aside as scored with nothing in common,
// so that neither their documents nor their components are read or held
// for them. Most candidates of a dedup are such pairs, and they join the
// documents of true pairs into components far larger than a bin.

// bbitDocBytes is the memory of a document's b-bit signature while a
// segment is filtered: 64 bytes for 128 values and its size.
const bbitDocBytes = 68

// bbitFile is a b-bit signature file checked against the pairs.
type bbitFile struct {
	name string
	// densified: the signatures are one-permutation ones with
	// densification (sketch --method oph).
	densified bool
}

// openBBit reads the headers of the b-bit signature file name and checks
// that it signs the documents the pairs came from: its shingle and sketch
// headers are the pairs', and band's says bbit=4.
func openBBit(name string, pairs []stream.HeaderAt) (*bbitFile, error) {
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
	b := &bbitFile{name: name}
	bits := false
	for _, h := range own {
		switch h.Stage {
		case "band":
			v, _ := h.Get(band.BBitKey)
			bits = v == fmt.Sprint(minhash.Bits)
		case "sketch":
			m, _ := h.Get("method")
			b.densified = m == "oph"
		}
	}
	if !bits {
		return nil, fmt.Errorf("--bbit %s: not a b-bit signature file of band --bbit (no band header with %s=%d)", name, band.BBitKey, minhash.Bits)
	}
	for _, stage := range []string{"shingle", "sketch"} {
		want, got := stageHeader(pairs, stage), ""
		for _, h := range own {
			if h.Stage == stage {
				got = h.String()
			}
		}
		if want != got {
			return nil, fmt.Errorf("--bbit %s signs other documents than the pairs: its %s header is %q, the pairs' %q", name, stage, got, want)
		}
	}
	return b, nil
}

// stageHeader returns the header of stage among headers, "" when none.
func stageHeader(headers []stream.HeaderAt, stage string) string {
	for _, h := range headers {
		if h.Header.Stage == stage {
			return h.Header.String()
		}
	}
	return ""
}

// bbitCounts are what filtering a segment set aside.
type bbitCounts struct {
	pairs, bySize, bySignature, unsigned int64
}

// filter reads the b-bit signatures of t's documents and sets aside the
// pairs far below least (containment: the least Jaccard similarity at which
// either document is contained at least threshold in the other).
func (b *bbitFile) filter(t *pairTable, threshold float64, containment bool) (bbitCounts, error) {
	var c bbitCounts
	f, err := input.Open(b.name)
	if err != nil {
		return c, err
	}
	defer f.Close()
	n := t.docs()
	var sigs []byte
	width := 0
	has := make([]bool, n)
	br := bufio.NewReaderSize(f, 1<<20)
	var rec record.Bits
	for line := int64(1); ; line++ {
		l, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return c, record.Errorf(record.Pos{File: b.name, Line: line}, "a line longer than %d bytes", br.Size())
		}
		if len(l) > 0 && !record.IsHeader(l) {
			if perr := record.ParseBits(&rec, record.TrimEOL(l)); perr != nil {
				return c, record.Errorf(record.Pos{File: b.name, Line: line}, "%v", perr)
			}
			if width == 0 {
				width = len(rec.Values)
				sigs = make([]byte, n*width)
			}
			if len(rec.Values) != width {
				return c, record.Errorf(record.Pos{File: b.name, Line: line}, "a signature of %d values after one of %d", 2*len(rec.Values), 2*width)
			}
			if d, ok := t.lookup(rec.ID); ok {
				if has[d] {
					return c, record.Errorf(record.Pos{File: b.name, Line: line}, "document %s appears more than once", rec.ID)
				}
				has[d] = true
				t.size[d] = uint32(min(rec.Size, pending-1))
				copy(sigs[int(d)*width:], rec.Values)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return c, err
		}
	}
	for i, x := range t.a {
		y := t.b[i]
		if !isPair(x, y) {
			continue
		}
		c.pairs++
		if !has[x] || !has[y] {
			c.unsigned++
			continue
		}
		sx, sy := int(t.size[x]), int(t.size[y])
		least := threshold
		if containment {
			least = minhash.ContainmentLeast(sx, sy, threshold)
		}
		if least <= 0 {
			continue
		}
		if !minhash.FarBelow(sigs[int(x)*width:int(x+1)*width], sigs[int(y)*width:int(y+1)*width], sx, sy, least, b.densified) {
			continue
		}
		t.inter[i] = 0
		if float64(min(sx, sy)) < least*float64(max(sx, sy)) {
			c.bySize++
		} else {
			c.bySignature++
		}
	}
	return c, nil
}

func (c *bbitCounts) add(o bbitCounts) {
	c.pairs += o.pairs
	c.bySize += o.bySize
	c.bySignature += o.bySignature
	c.unsigned += o.unsigned
}

// report says what the filter set aside, and the pairs it could not judge.
func (c bbitCounts) report(w io.Writer, name string) {
	fmt.Fprintf(w, "verify: --bbit %s: %d of %d candidate pair(s) set aside unread: %d by their sizes (below the threshold for certain), %d by their 4-bit signatures (a pair at the threshold is set aside with probability under %.0e)\n",
		name, c.bySize+c.bySignature, c.pairs, c.bySize, c.bySignature, minhash.FarBelowError)
	if c.unsigned > 0 {
		fmt.Fprintf(w, "verify: --bbit %s: %d candidate pair(s) with a document it has no signature of: scored from the documents\n", name, c.unsigned)
	}
}
