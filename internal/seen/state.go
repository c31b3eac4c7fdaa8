package seen

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/bits"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/record"
)

// The state file (--state), the filter carried from run to run:
//
//	neardup-seen 2 LF                 magic and version
//	#neardup stage=seen-state … LF    what the filter was made with and holds
//	'g' or 'w'                        how the bits are coded:
//	gaps ('g')                        the bits set, each a uvarint of the bits
//	                                  not set before it (since the last set), or
//	words ('w')                       the filter's bits, 64 a word, run-length coded:
//	                                  uvarint zero words, uvarint literal words,
//	                                  the literals (8 bytes each, little-endian), …
//	8 bytes                           XXH64 of all that, little-endian
//
// Version 1 files (neardup-seen 1) have no coding byte and words only;
// they are still read.
//
// The header's keys: unit, k, hash, seed and normalize (how the n-grams
// were made and hashed), layout, bits and hashes (the filter: blocked512
// for Filter's blocks and probes), expected and rate
// (what it was sized for), added (the n-grams added that were new to it,
// summed over the runs). SaveState writes the smaller coding: gaps cost
// about a byte a bit set while the filter is under about 1/8 full (a
// filter 1% full is about 8% of its bits, where words cost all of them,
// a word of 64 bits being rarely empty), words a few bytes more than the
// bits of a fuller one.
const stateMagic = "neardup-seen 2\n"

// stateMagic1 is the first version's magic: words, no coding byte.
const stateMagic1 = "neardup-seen 1\n"

// stateStage names the state's header line.
const stateStage = "seen-state"

// identityKeys are the header keys a run must agree on with the state it
// continues: the n-grams and the filter.
var identityKeys = []string{"unit", "k", "hash", "seed", "normalize", "layout", "bits", "hashes"}

// layout names the filter's layout in the state: blocks of 512 bits, the
// probes as Filter makes them.
const layout = "blocked512"

// State is a filter and what it was made with.
type State struct {
	Filter *Filter
	// Header holds unit, k, hash, seed and normalize: how the keys were
	// made.
	Header record.Header
	// Sizing is what the filter was sized for; Added counts the keys new
	// to it when added.
	Sizing Sizing
	Added  int64
}

// header is the state's header line.
func (s *State) header() record.Header {
	h := record.Header{Stage: stateStage, Params: append([]record.Param(nil), s.Header.Params...)}
	h.Params = append(h.Params,
		record.Param{Key: "layout", Value: layout},
		record.Param{Key: "bits", Value: strconv.FormatUint(s.Filter.bits, 10)},
		record.Param{Key: "hashes", Value: strconv.Itoa(s.Filter.hashes)},
		record.Param{Key: "expected", Value: strconv.FormatInt(s.Sizing.Expected, 10)},
		record.Param{Key: "rate", Value: strconv.FormatFloat(s.Sizing.Rate, 'g', 6, 64)},
		record.Param{Key: "added", Value: strconv.FormatInt(s.Added, 10)})
	return h
}

// Identity is the part of the state's header a run must agree with: the
// n-grams (unit, k, hash, seed, normalize) and the filter (layout, bits,
// hashes).
func (s *State) Identity() string {
	return identity(s.header())
}

// identity writes the identity keys of a header, key=value, in order.
func identity(h record.Header) string {
	var b strings.Builder
	for _, k := range identityKeys {
		v, _ := h.Get(k)
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k + "=" + v)
	}
	return b.String()
}

// stateTarget is how the state file is replaced.
func stateTarget(name string) disk.Target {
	return disk.Target{Name: name, Mode: 0o644, What: "state"}
}

// SaveState writes the state to name atomically: a crash leaves the old
// file or the new one, whole.
func SaveState(fsys disk.FS, name string, s *State) error {
	return disk.WriteFile(fsys, stateTarget(name), func(f io.Writer) error {
		d := xxhash.New()
		bw := bufio.NewWriterSize(io.MultiWriter(f, d), 1<<20)
		bw.WriteString(stateMagic)
		bw.WriteString(s.header().String())
		bw.WriteByte('\n')
		words := s.Filter.words
		if gapsSize(words) < uint64(len(words))*8 {
			bw.WriteByte('g')
			writeGaps(bw, words)
		} else {
			bw.WriteByte('w')
			writeWords(bw, words)
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		_, err := f.Write(binary.LittleEndian.AppendUint64(nil, d.Sum64()))
		return err
	})
}

// eachGap calls fn with the gap before each bit set of words: the bits
// not set since the one set before it.
func eachGap(words []uint64, fn func(gap uint64)) {
	var last uint64 // the bit after the last set
	for i, w := range words {
		for w != 0 {
			b := uint64(i)*64 + uint64(bits.TrailingZeros64(w))
			fn(b - last)
			last = b + 1
			w &= w - 1
		}
	}
}

// gapsSize is the bytes of words coded as gaps.
func gapsSize(words []uint64) uint64 {
	var n uint64
	eachGap(words, func(gap uint64) {
		n += uint64((bits.Len64(gap|1) + 6) / 7)
	})
	return n
}

// writeGaps writes words as the gaps before their bits set.
func writeGaps(bw *bufio.Writer, words []uint64) {
	var tmp []byte
	eachGap(words, func(gap uint64) {
		tmp = binary.AppendUvarint(tmp[:0], gap)
		bw.Write(tmp)
	})
}

// writeWords writes words run-length coded.
func writeWords(bw *bufio.Writer, words []uint64) {
	var tmp []byte
	for i := 0; i < len(words); {
		z := i
		for z < len(words) && words[z] == 0 {
			z++
		}
		l := z
		// A literal run ends at two zero words in a row (one costs
		// less as a literal than as a run of its own).
		for l < len(words) && (words[l] != 0 || l+1 < len(words) && words[l+1] != 0) {
			l++
		}
		tmp = binary.AppendUvarint(tmp[:0], uint64(z-i))
		tmp = binary.AppendUvarint(tmp, uint64(l-z))
		bw.Write(tmp)
		for _, w := range words[z:l] {
			tmp = binary.LittleEndian.AppendUint64(tmp[:0], w)
			bw.Write(tmp)
		}
		i = l
	}
}

// ErrNoState is LoadState's error for a state file that does not exist.
var ErrNoState = errors.New("no state file")

// LoadState reads the state file name. A filter larger than maxBits is
// refused before it is made. A file that does not exist is ErrNoState
// (wrapped); one that is damaged, truncated or not a state file is an
// error naming it and what is wrong.
func LoadState(fsys disk.FS, name string, maxBits uint64) (*State, error) {
	f, err := fsys.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", name, ErrNoState)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: not a seen state file of this version, or damaged: %s", name, fmt.Sprintf(format, args...))
	}
	size := f.Size()
	if size < int64(len(stateMagic))+8 {
		return nil, bad("too short (%d bytes)", size)
	}
	// The checksum first: a damaged file is refused before its header is
	// believed.
	d := xxhash.New()
	if _, err := io.Copy(d, io.NewSectionReader(f, 0, size-8)); err != nil {
		return nil, err
	}
	var sum [8]byte
	if _, err := f.ReadAt(sum[:], size-8); err != nil {
		return nil, err
	}
	if binary.LittleEndian.Uint64(sum[:]) != d.Sum64() {
		return nil, bad("checksum mismatch (truncated, or changed since it was written)")
	}
	br := bufio.NewReaderSize(io.NewSectionReader(f, 0, size-8), 1<<20)
	magic := make([]byte, len(stateMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != stateMagic && string(magic) != stateMagic1 {
		return nil, bad("it does not start with %q or %q", stateMagic[:len(stateMagic)-1], stateMagic1[:len(stateMagic1)-1])
	}
	line, err := br.ReadSlice('\n')
	if err != nil || !record.IsHeader(line) {
		return nil, bad("no header line")
	}
	h, err := record.ParseHeader(line)
	if err != nil || h.Stage != stateStage {
		return nil, bad("header %q", strings.TrimSpace(string(line)))
	}
	s, err := stateFromHeader(h, maxBits)
	if err != nil {
		return nil, bad("%v", err)
	}
	coding := byte('w')
	if string(magic) == stateMagic {
		if coding, err = br.ReadByte(); err != nil || coding != 'g' && coding != 'w' {
			return nil, bad("no coding of the bits ('g' or 'w') after the header")
		}
	}
	if coding == 'g' {
		err = readGaps(br, s.Filter)
	} else {
		err = readWords(br, s.Filter)
	}
	if err != nil {
		return nil, bad("%v", err)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return nil, bad("bytes after the filter's bits")
	}
	return s, nil
}

// readGaps reads the gaps before the bits set into f.
func readGaps(br *bufio.Reader, f *Filter) error {
	var next uint64 // the bit after the last set
	for {
		gap, err := binary.ReadUvarint(br)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("the bits end inside a gap after bit %d of %d", next, f.bits)
		}
		if next >= f.bits || gap >= f.bits-next {
			return fmt.Errorf("a gap of %d bits after bit %d of %d", gap, next, f.bits)
		}
		b := next + gap
		f.words[b/64] |= 1 << (b % 64)
		next = b + 1
	}
}

// readWords reads the run-length coded words into f.
func readWords(br *bufio.Reader, f *Filter) error {
	words := f.words
	for i := 0; i < len(words); {
		z, err1 := binary.ReadUvarint(br)
		l, err2 := binary.ReadUvarint(br)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("the bits end at word %d of %d", i, len(words))
		}
		if z > uint64(len(words)-i) || l > uint64(len(words)-i)-z || z+l == 0 {
			return fmt.Errorf("a run of %d+%d words at word %d of %d", z, l, i, len(words))
		}
		i += int(z)
		for range l {
			var b [8]byte
			if _, err := io.ReadFull(br, b[:]); err != nil {
				return fmt.Errorf("the bits end at word %d of %d", i, len(words))
			}
			words[i] = binary.LittleEndian.Uint64(b[:])
			i++
		}
	}
	return nil
}

// stateFromHeader makes the empty state a state header describes.
func stateFromHeader(h record.Header, maxBits uint64) (*State, error) {
	get := func(key string) (string, error) {
		v, ok := h.Get(key)
		if !ok {
			return "", fmt.Errorf("the header has no %s=", key)
		}
		return v, nil
	}
	var vals [5]string
	if v, _ := h.Get("layout"); v != layout {
		return nil, fmt.Errorf("layout=%s: want %s", v, layout)
	}
	for i, key := range []string{"bits", "hashes", "expected", "rate", "added"} {
		v, err := get(key)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	m, err := strconv.ParseUint(vals[0], 10, 64)
	if err != nil || m < BlockBits || m%BlockBits != 0 {
		return nil, fmt.Errorf("bits=%s: want a multiple of %d", vals[0], BlockBits)
	}
	if m > maxBits {
		return nil, fmt.Errorf("bits=%s: a filter of %d bytes, more than the %d this machine allows", vals[0], m/8, maxBits/8)
	}
	k, err := strconv.Atoi(vals[1])
	if err != nil || k < 1 || k > MaxHashes {
		return nil, fmt.Errorf("hashes=%s: want 1 to %d", vals[1], MaxHashes)
	}
	expected, err1 := strconv.ParseInt(vals[2], 10, 64)
	rate, err2 := strconv.ParseFloat(vals[3], 64)
	added, err3 := strconv.ParseInt(vals[4], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || expected < 1 || !(rate > 0 && rate < 1) || added < 0 {
		return nil, fmt.Errorf("expected=%s rate=%s added=%s: want counts and a rate between 0 and 1", vals[2], vals[3], vals[4])
	}
	s := &State{Sizing: Sizing{Bits: m, Hashes: k, Expected: expected, Rate: rate}, Added: added}
	for _, key := range identityKeys[:5] {
		v, err := get(key)
		if err != nil {
			return nil, err
		}
		s.Header.Params = append(s.Header.Params, record.Param{Key: key, Value: v})
	}
	s.Filter = NewFilter(m, k)
	return s, nil
}
