package input

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/record"
)

// Arrival numbers (Reading.Number) mean something only with the inputs
// they were given to, in their order. A numbered shingle header binds them:
// inputs= holds a Fingerprint of each input, in the order read, and every
// stage that reads documents again by number (verify --documents, keep)
// checks the files it is given against it (CheckNumbered). The band index
// keeps the batches it holds (from, next, inputs) and pairs --against
// passes them on in its header (batches=), so that the files of the older
// batches are checked too.
//
// A fingerprint is O(1) to take: the header is written before the input is
// read. It binds an input's size and its first and last FingerprintEdge
// bytes (all of it when it is at most twice that), not every byte: a file
// changed in its middle with its size kept is taken for the same. It is of
// the bytes as stored (a compressed file's compressed bytes).

// FingerprintEdge is how many bytes of each end of an input a fingerprint
// reads.
const FingerprintEdge = 64 << 10

// InputsKey names the header value that binds a numbered shingle header
// to its inputs, and BatchesKey the pairs header value that names the
// batches of the band index the pairs were made against.
const (
	InputsKey  = "inputs"
	BatchesKey = "batches"
)

// Fingerprint identifies an input: its size and the XXH64 of the size and
// its ends. Unbound (standard input, a pipe, a file that can't be read)
// is checked against nothing.
type Fingerprint struct {
	Size    int64
	Sum     uint64
	Unbound bool
}

// String is the fingerprint as a header holds it: SIZE:HEX, or "-".
func (f Fingerprint) String() string {
	if f.Unbound {
		return "-"
	}
	return strconv.FormatInt(f.Size, 10) + ":" + fmt.Sprintf("%016x", f.Sum)
}

// FingerprintFile takes the fingerprint of the named input; "-" and what
// is not a regular file are Unbound.
func FingerprintFile(name string) Fingerprint {
	if name == "-" {
		return Fingerprint{Unbound: true}
	}
	f, err := os.Open(name)
	if err != nil {
		return Fingerprint{Unbound: true}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return Fingerprint{Unbound: true}
	}
	fp, err := fingerprint(f, st.Size())
	if err != nil {
		return Fingerprint{Unbound: true}
	}
	return fp
}

func fingerprint(r io.ReaderAt, size int64) (Fingerprint, error) {
	d := xxhash.New()
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(size))
	d.Write(n[:])
	read := func(off, length int64) error {
		_, err := io.Copy(d, io.NewSectionReader(r, off, length))
		return err
	}
	var err error
	if size <= 2*FingerprintEdge {
		err = read(0, size)
	} else if err = read(0, FingerprintEdge); err == nil {
		err = read(size-FingerprintEdge, FingerprintEdge)
	}
	return Fingerprint{Size: size, Sum: d.Sum64()}, err
}

// FingerprintInputs returns the inputs= value of the named inputs (standard
// input when there are none).
func FingerprintInputs(names []string) string {
	if len(names) == 0 {
		names = []string{"-"}
	}
	fps := make([]Fingerprint, len(names))
	for i, n := range names {
		fps[i] = FingerprintFile(n)
	}
	return FormatInputs(fps)
}

// FormatInputs writes fingerprints as inputs= holds them: comma-separated.
func FormatInputs(fps []Fingerprint) string {
	s := make([]string, len(fps))
	for i, f := range fps {
		s[i] = f.String()
	}
	return strings.Join(s, ",")
}

// ParseInputs parses an inputs= value.
func ParseInputs(v string) ([]Fingerprint, error) {
	if v == "" {
		return nil, fmt.Errorf("inputs= is empty: want SIZE:HEX or - for each input, comma-separated")
	}
	parts := strings.Split(v, ",")
	fps := make([]Fingerprint, len(parts))
	for i, p := range parts {
		if p == "-" {
			fps[i].Unbound = true
			continue
		}
		size, sum, ok := strings.Cut(p, ":")
		n, err := strconv.ParseInt(size, 10, 64)
		if !ok || err != nil || n < 0 || len(sum) != 16 {
			return nil, fmt.Errorf("inputs=%s: %q is not SIZE:HEX (16 hex digits) or -", v, p)
		}
		if fps[i].Sum, err = strconv.ParseUint(sum, 16, 64); err != nil {
			return nil, fmt.Errorf("inputs=%s: %q is not SIZE:HEX (16 hex digits) or -", v, p)
		}
		fps[i].Size = n
	}
	return fps, nil
}

// Batch is a numbered corpus: the documents numbered from From to Next-1
// (Next is -1 while not known: a batch's own shingle header), read from
// Inputs in order (nil when the header binds none: written before inputs=
// was, or by the Beam pipeline). Where says where it was read.
type Batch struct {
	From, Next int64
	Inputs     []Fingerprint
	Where      string
}

// Same reports whether b and o are one batch: the same numbering and
// inputs, every one bound.
func (b Batch) Same(o Batch) bool {
	if b.From != o.From || b.Inputs == nil || len(b.Inputs) != len(o.Inputs) {
		return false
	}
	for i, f := range b.Inputs {
		if f.Unbound || f != o.Inputs[i] {
			return false
		}
	}
	return true
}

// Numbers says which numbers b holds, for messages.
func (b Batch) Numbers() string {
	if b.Next < 0 {
		return fmt.Sprintf("numbered from %d", b.From)
	}
	return fmt.Sprintf("numbered %d to %d", b.From, b.Next-1)
}

// String is b as a manifest's batch line holds it after "batch ".
func (b Batch) String() string {
	s := fmt.Sprintf("from=%d next=%d", b.From, b.Next)
	if b.Inputs != nil {
		s += " " + InputsKey + "=" + FormatInputs(b.Inputs)
	}
	return s
}

// ParseBatch parses what follows "batch " in a manifest line.
func ParseBatch(v string) (Batch, error) {
	b := Batch{From: -1, Next: -1}
	for _, f := range strings.Fields(v) {
		k, val, _ := strings.Cut(f, "=")
		var err error
		switch k {
		case "from":
			b.From, err = strconv.ParseInt(val, 10, 64)
		case "next":
			b.Next, err = strconv.ParseInt(val, 10, 64)
		case InputsKey:
			b.Inputs, err = ParseInputs(val)
		default:
			err = fmt.Errorf("unknown field %q", f)
		}
		if err != nil {
			return b, fmt.Errorf("batch %s: %v", v, err)
		}
	}
	if b.From < 0 || b.Next < b.From {
		return b, fmt.Errorf("batch %s: want from=F next=N with 0 <= F <= N", v)
	}
	return b, nil
}

// FormatBatches writes the batches= value of a pairs header:
// FROM-NEXT/INPUTS, or FROM-NEXT when unbound, joined by semicolons.
func FormatBatches(bs []Batch) string {
	s := make([]string, len(bs))
	for i, b := range bs {
		s[i] = strconv.FormatInt(b.From, 10) + "-" + strconv.FormatInt(b.Next, 10)
		if b.Inputs != nil {
			s[i] += "/" + FormatInputs(b.Inputs)
		}
	}
	return strings.Join(s, ";")
}

// ParseBatches parses a batches= value.
func ParseBatches(v string) ([]Batch, error) {
	var bs []Batch
	for _, p := range strings.Split(v, ";") {
		rng, inputs, bound := strings.Cut(p, "/")
		from, next, _ := strings.Cut(rng, "-")
		b := Batch{}
		var err1, err2 error
		b.From, err1 = strconv.ParseInt(from, 10, 64)
		b.Next, err2 = strconv.ParseInt(next, 10, 64)
		if err1 != nil || err2 != nil || b.From < 0 || b.Next < b.From {
			return nil, fmt.Errorf("batches=%s: %q is not FROM-NEXT[/INPUTS]", v, p)
		}
		if bound {
			var err error
			if b.Inputs, err = ParseInputs(inputs); err != nil {
				return nil, fmt.Errorf("batches=%s: %v", v, err)
			}
		}
		bs = append(bs, b)
	}
	return bs, nil
}

// BatchOf returns the batch a shingle header h binds: ok is false when its
// ids are not numbered.
func BatchOf(h record.Header) (b Batch, ok bool, err error) {
	if ids, _ := h.Get("ids"); h.Stage != "shingle" || ids != "number" {
		return b, false, nil
	}
	r, _, err := ReadingFromHeader(h)
	if err != nil {
		return b, false, err
	}
	b = Batch{From: r.NumberFrom, Next: -1}
	if v, ok := h.Get(InputsKey); ok {
		if b.Inputs, err = ParseInputs(v); err != nil {
			return b, false, err
		}
	}
	return b, true, nil
}

// BatchesOf returns the batches a header read at pos names: a numbered
// shingle header's own, or those of a pairs header's batches=.
func BatchesOf(h record.Header, pos record.Pos) ([]Batch, error) {
	switch h.Stage {
	case "shingle":
		b, ok, err := BatchOf(h)
		if err != nil || !ok {
			return nil, recordErr(pos, err)
		}
		b.Where = "the shingle header at " + pos.String()
		return []Batch{b}, nil
	case "pairs":
		v, ok := h.Get(BatchesKey)
		if !ok {
			return nil, nil
		}
		bs, err := ParseBatches(v)
		if err != nil {
			return nil, recordErr(pos, err)
		}
		for i := range bs {
			bs[i].Where = "the band index's batches, in the pairs header at " + pos.String()
		}
		return bs, nil
	}
	return nil, nil
}

func recordErr(pos record.Pos, err error) error {
	if err == nil {
		return nil
	}
	return record.Errorf(pos, "%v", err)
}

// CheckNumbered checks that files, whose documents are numbered from from
// in order, are the inputs the batches numbered: from the batch that
// starts at from, each file must be that batch's next input, and after
// its last input the batch that starts where it ends, and so on. A file
// that is standard input or not a regular file, an unbound input, and the
// files after a batch whose end or inputs are not known are not checked;
// nor is anything when no batch starts at from, unless the documents then
// start inside one. flag names the files in messages ("--documents"). Its
// error is a *record.Error at the file that is not the input numbered.
func CheckNumbered(batches []Batch, from int64, files []string, flag string) error {
	if len(files) == 0 {
		files = []string{"-"}
	}
	at := func(n int64) (Batch, bool) {
		for _, b := range batches {
			if b.From == n {
				return b, true
			}
		}
		return Batch{}, false
	}
	b, ok := at(from)
	if !ok {
		for _, b := range batches {
			if b.Next >= 0 && b.From < from && from < b.Next {
				return record.Errorf(record.Pos{File: files[0]}, "given first (%s), its documents numbered from %d, but that is inside the batch %s (%s): give the files of that batch from its first, numbered from %d",
					flag, from, b.Numbers(), b.Where, b.From)
			}
		}
		return nil
	}
	j := 0
	for {
		if b.Inputs == nil {
			return nil
		}
		for k, want := range b.Inputs {
			if j == len(files) {
				return nil
			}
			name := files[j]
			if got := FingerprintFile(name); !want.Unbound && !got.Unbound && got != want {
				return record.Errorf(record.Pos{File: name}, "given %s (%s), but the %s input of the batch %s (%s) was %d bytes, fingerprint %s, and this file is %d bytes, fingerprint %s: not the documents these numbers were given to",
					ordinal(j+1), flag, ordinal(k+1), b.Numbers(), b.Where, want.Size, want, got.Size, got)
			}
			j++
		}
		if b.Next < 0 {
			return nil
		}
		if b, ok = at(b.Next); !ok {
			return nil
		}
	}
}

// ordinal writes 1st, 2nd, 3rd, 4th, ….
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}
