package cluster

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/vector"
)

// meanCentres is --update-centre over hyperplane fingerprints: the centre
// of a cluster is the fingerprint of its members' mean vector, signed by
// the random vectors of the sketch header (its seed, f and dim, made
// again). A fingerprint alone does not give the mean, so the vectors are
// read from the documents the sketches were made from (docReader, in step
// with the sketches). Leader i keeps the sum of its members' vectors, dim
// float64s, summed in input order; a member that joins adds its vector and
// the centre becomes the fingerprint of the sum divided by the cluster's
// size.
//
// Memory per cluster: 8 bytes per component of the vectors; once, the
// random vectors, 8·f·dim bytes.
type meanCentres struct {
	index  *HammingIndex
	planes *vector.Hyperplanes
	dim    int
	// docs reads the vectors; field names the one read, for messages.
	docs  *docReader
	field string
	sums  []float64
	// v is the vector of the document being assigned (next).
	v    []float64
	mean []float64
	fp   []uint64
	dots []float64
	buf  []byte
}

// newMeanCentres returns the centres of the hyperplane fingerprints the
// sketch header h describes, for index, or refuses a header that does not
// name its random vectors.
func newMeanCentres(index *HammingIndex, kind sketchKind) (*meanCentres, error) {
	h := kind.header
	f, dim := h.Int("f", -1), h.Int("dim", -1)
	seedText, _ := h.Get("seed")
	seed, serr := strconv.ParseUint(seedText, 10, 64)
	scheme, _ := h.Get("vectors")
	switch {
	case f != 64*index.words || dim <= 0 || dim > vector.MaxDim || serr != nil:
		return nil, record.Errorf(kind.pos, "cluster --update-centre signs the mean vector as sketch signed the vectors: the hyperplane sketch header must give f (64 or 128), seed and dim (%s)", h)
	case scheme != vector.Scheme:
		return nil, record.Errorf(kind.pos, "the hyperplane sketch header names random vectors %q: cluster --update-centre makes only %s", scheme, vector.Scheme)
	}
	if err := vector.CheckPlanes(f, dim); err != nil {
		return nil, record.Errorf(kind.pos, "%v", err)
	}
	return &meanCentres{index: index, planes: vector.NewHyperplanes(f, dim, seed), dim: dim}, nil
}

// next reads the vector of document id, whose sketch's fingerprint is fp,
// from the documents: it must have the header's dimension and that
// fingerprint, so that a document that is not the one sketched is refused
// with its file and line.
func (c *meanCentres) next(id []byte, fp []uint64) error {
	text, err := c.docs.find(id)
	if err != nil {
		return err
	}
	pos := c.docs.pos()
	if c.v, err = vector.Parse(c.v[:0], text); err != nil {
		var le *record.LineError
		if errors.As(err, &le) {
			return record.Errorf(pos, "document %s: %s (--vector-field %s)", id, le.Msg, c.field)
		}
		return err
	}
	if len(c.v) != c.dim {
		return record.Errorf(pos, "document %s: the vector has %d components, want %d (the dim= of the sketch header)", id, len(c.v), c.dim)
	}
	c.fp, c.dots = c.planes.Words(c.fp[:0], c.dots, c.v)
	if !slices.Equal(c.fp, fp) {
		return record.Errorf(pos, "document %s: the fingerprint of its vector (--vector-field %s) is %s, its sketch's %s: the documents must be those the sketches were made from",
			id, c.field, hexWords(c.fp), hexWords(fp))
	}
	return nil
}

// hexWords writes a fingerprint as its record does.
func hexWords(fp []uint64) string {
	var b []byte
	for _, w := range fp {
		b = record.AppendHex64(b, w)
	}
	return string(b)
}

// add starts the sum of a new leader: its vector.
func (c *meanCentres) add([]uint64) { c.sums = append(c.sums, c.v...) }

// join adds the vector read by next to the sum of leader i and moves its
// centre to the fingerprint of the new mean. It refuses a sum that
// overflows.
func (c *meanCentres) join(i uint32, size uint64, _ []uint64, name []byte) error {
	sum := c.sums[int(i)*c.dim : (int(i)+1)*c.dim]
	n := float64(size + 1)
	c.mean = slices.Grow(c.mean[:0], c.dim)[:c.dim]
	for j, x := range c.v {
		sum[j] += x
		if math.IsInf(sum[j], 0) {
			return fmt.Errorf("cluster %s: component %d of the sum of its members' vectors overflows a float64 (--update-centre)", name, j)
		}
		c.mean[j] = sum[j] / n
	}
	c.fp, c.dots = c.planes.Words(c.fp[:0], c.dots, c.mean)
	if cur := c.index.fps[int(i)*c.index.words : (int(i)+1)*c.index.words]; !slices.Equal(c.fp, cur) {
		c.index.Move(i, c.fp)
	}
	return nil
}

// save writes the sum of leader i for the state file: dim float64s,
// little-endian.
func (c *meanCentres) save(w io.Writer, i uint32) error {
	c.buf = c.buf[:0]
	for _, x := range c.sums[int(i)*c.dim : (int(i)+1)*c.dim] {
		c.buf = binary.LittleEndian.AppendUint64(c.buf, math.Float64bits(x))
	}
	_, err := w.Write(c.buf)
	return err
}

// load reads the sum written by save for leader i. The centre is not
// signed again from it (f·dim products a leader): the checksum of the
// state stands for their agreement.
func (c *meanCentres) load(r *bufio.Reader, i uint32, size uint64) error {
	c.buf = slices.Grow(c.buf[:0], 8*c.dim)[:8*c.dim]
	if _, err := io.ReadFull(r, c.buf); err != nil {
		return fmt.Errorf("truncated sum")
	}
	for j := range c.dim {
		x := math.Float64frombits(binary.LittleEndian.Uint64(c.buf[8*j:]))
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("component %d of the sum is %g", j, x)
		}
		c.sums = append(c.sums, x)
	}
	return nil
}

// bytes returns the memory the sums and the random vectors hold.
func (c *meanCentres) bytes() int64 {
	return 8*int64(cap(c.sums)) + 8*int64(c.planes.Bits())*int64(c.planes.Dim())
}
