package lsh

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/simhash"
)

// HammingOptions choose the Hamming scheme that keys SimHash fingerprints.
type HammingOptions struct {
	// K is the largest distance searched.
	K int
	// Blocks is the number of blocks; 0 means DefaultBlocks(K).
	Blocks int
}

// DefaultBlocks is the number of blocks when none is given: K+3, Manku et
// al.'s choice for K = 3 (6 blocks, 20 tables keyed on 31-33 bits); each
// table then keys on three blocks.
func DefaultBlocks(k int) int { return k + 3 }

// Scheme returns the scheme of f-bit fingerprints that o describes.
func (o *HammingOptions) Scheme(f int) (*Hamming, error) {
	return NewHamming(f, o.K, o.blocks())
}

// Check refuses options that make no scheme, whatever the fingerprints,
// naming the flags they come from (--hamming K, --blocks B).
func (o *HammingOptions) Check() error {
	if o.K < 0 || o.K > 63 {
		return fmt.Errorf("--hamming %d: want a distance of 0 to 63 bits", o.K)
	}
	if o.Blocks != 0 && (o.Blocks <= o.K || o.Blocks > 64) {
		return fmt.Errorf("--blocks %d: want %d to 64 blocks for distance %d", o.Blocks, o.K+1, o.K)
	}
	if err := checkLayout(o.K, o.blocks()); err != nil {
		return fmt.Errorf("--hamming %d: %v", o.K, err)
	}
	return nil
}

func (o *HammingOptions) blocks() int {
	if o.Blocks == 0 {
		return DefaultBlocks(o.K)
	}
	return o.Blocks
}

// Params returns what a band header names of h's layout: f, k, the blocks
// (and their widths) and the number of tables.
func (h *Hamming) Params() record.HammingParams {
	return record.HammingParams{F: h.F, K: h.K, Blocks: h.Blocks, Widths: h.WidthList(), Tables: len(h.Tables)}
}

// HammingFromHeader rebuilds the scheme a band header names, or returns nil
// when the header is not that of a Hamming band.
func HammingFromHeader(hd record.Header) (*Hamming, error) {
	p, ok := record.ParseHammingHeader(hd)
	if !ok {
		return nil, nil
	}
	h, err := NewHamming(p.F, p.K, p.Blocks)
	if err != nil {
		return nil, fmt.Errorf("band header %q: %v", hd.String(), err)
	}
	if p.Widths != h.WidthList() {
		return nil, fmt.Errorf("band header %q: widths %s, this version cuts %d bits in %d blocks as %s", hd.String(), p.Widths, p.F, p.Blocks, h.WidthList())
	}
	if p.Tables != len(h.Tables) {
		return nil, fmt.Errorf("band header %q: %d tables, the scheme has %d", hd.String(), p.Tables, len(h.Tables))
	}
	return h, nil
}

// Hamming is a table scheme for finding the fingerprints within K bits of
// each other (Manku, Jain and Das Sarma, WWW 2007). The F bits are cut into
// Blocks blocks of nearly equal width (the first F mod Blocks blocks one bit
// wider), numbered from the first bit. Each table is one choice of
// Blocks-K blocks, in lexicographic order: its permutation moves the chosen
// blocks, in order, to the front and the other K blocks after them, and its
// key is the permuted fingerprint's first KeyBits bits, the chosen blocks.
// Two fingerprints within K bits differ in at most K blocks, so they agree
// on at least Blocks-K and share the key of the table that chooses those:
// every pair within K bits shares a key in at least one table. Pigeonhole
// (Blocks = K+1) gives K+1 tables keyed on one block each; more blocks give
// more tables with longer keys, and fewer fingerprints share a key by
// chance.
//
// The first table of a pair is the one whose chosen blocks are the
// Blocks-K first blocks on which the two agree; it is computed from the two
// fingerprints alone (IsFirst), so a pair found in several tables can be
// reported once, from its first, without remembering the pairs seen.
type Hamming struct {
	F, K, Blocks int
	// Widths are the block widths in bits, Starts their first bits.
	Widths, Starts []int
	Tables         []HammingTable
	blockMask      []simhash.Fingerprint
	blockMask64    []uint64
}

// HammingTable is one table of a scheme.
type HammingTable struct {
	// Order lists the blocks in permuted order: the chosen blocks first.
	Order []int
	// Chosen has bit b set for each chosen block b.
	Chosen uint64
	// KeyBits is the number of leading permuted bits the table is keyed on.
	KeyBits int
	keyMask simhash.Fingerprint
	fwd     []move // permutation, as moves of bit runs
	inv     []move // its inverse
	// For 64-bit fingerprints: the moves as masks and rotations, and the
	// blocks' masks in permuted positions.
	fwd64, inv64 []rotMove
	permMask64   []uint64
}

// rotMove moves the bits of Mask by rotating them left by Rot.
type rotMove struct {
	Mask uint64
	Rot  int
}

// move copies Width bits starting at Src to Dst (bit 0 is the first bit).
type move struct {
	Src, Dst, Width int
}

// MaxTables bounds the number of tables: the table number is 4 hex digits
// in band keys.
const MaxTables = 0xffff

// NewHamming returns the scheme of f-bit fingerprints (64 or 128), distance
// k and the given number of blocks (more than k).
func NewHamming(f, k, blocks int) (*Hamming, error) {
	if f != 64 && f != 128 {
		return nil, fmt.Errorf("fingerprints of %d bits: want 64 or 128", f)
	}
	if err := checkLayout(k, blocks); err != nil {
		return nil, err
	}
	h := &Hamming{F: f, K: k, Blocks: blocks}
	start := 0
	for b := range blocks {
		w := f / blocks
		if b < f%blocks {
			w++
		}
		h.Widths = append(h.Widths, w)
		h.Starts = append(h.Starts, start)
		h.blockMask = append(h.blockMask, maskBits(start, w))
		h.blockMask64 = append(h.blockMask64, maskBits(start, w).Hi)
		start += w
	}
	chosen := make([]int, blocks-k)
	var gen func(i, from int)
	gen = func(i, from int) {
		if i == len(chosen) {
			h.Tables = append(h.Tables, h.newTable(chosen))
			return
		}
		for b := from; b <= blocks-(len(chosen)-i); b++ {
			chosen[i] = b
			gen(i+1, b+1)
		}
	}
	gen(0, 0)
	return h, nil
}

// checkLayout refuses a distance k and a number of blocks that make no
// scheme, for fingerprints of any width.
func checkLayout(k, blocks int) error {
	if k < 0 {
		return fmt.Errorf("distance %d: want 0 or more", k)
	}
	if blocks <= k {
		return fmt.Errorf("%d blocks for distance %d: want more blocks than bits of distance (pigeonhole is %d blocks)", blocks, k, k+1)
	}
	if blocks > 64 {
		return fmt.Errorf("%d blocks: at most 64", blocks)
	}
	if n := Binomial(blocks, k); n > MaxTables {
		return fmt.Errorf("%d blocks for distance %d make %d tables: at most %d", blocks, k, n, MaxTables)
	}
	return nil
}

// Pigeonhole returns the scheme of k+1 blocks, one table keyed on each.
func Pigeonhole(f, k int) (*Hamming, error) { return NewHamming(f, k, k+1) }

func (h *Hamming) newTable(chosen []int) HammingTable {
	t := HammingTable{}
	for _, b := range chosen {
		t.Order = append(t.Order, b)
		t.Chosen |= 1 << b
		t.KeyBits += h.Widths[b]
	}
	for b := range h.Blocks {
		if t.Chosen&(1<<b) == 0 {
			t.Order = append(t.Order, b)
		}
	}
	t.keyMask = maskBits(0, t.KeyBits)
	dst := 0
	t.permMask64 = make([]uint64, h.Blocks)
	for _, b := range t.Order {
		t.fwd = appendMove(t.fwd, move{Src: h.Starts[b], Dst: dst, Width: h.Widths[b]})
		t.inv = appendMove(t.inv, move{Src: dst, Dst: h.Starts[b], Width: h.Widths[b]})
		if h.F == 64 {
			t.permMask64[b] = maskBits(dst, h.Widths[b]).Hi
		}
		dst += h.Widths[b]
	}
	if h.F == 64 {
		t.fwd64, t.inv64 = rotMoves(t.fwd), rotMoves(t.inv)
	}
	return t
}

// rotMoves turns moves within 64 bits into masks and rotations.
func rotMoves(ms []move) []rotMove {
	var out []rotMove
	for _, m := range ms {
		out = append(out, rotMove{Mask: maskBits(m.Src, m.Width).Hi, Rot: (m.Src - m.Dst + 64) % 64})
	}
	return out
}

// appendMove appends m, joining it to the last move when both runs continue.
func appendMove(ms []move, m move) []move {
	if n := len(ms); n > 0 {
		last := &ms[n-1]
		if last.Src+last.Width == m.Src && last.Dst+last.Width == m.Dst {
			last.Width += m.Width
			return ms
		}
	}
	return append(ms, m)
}

// maskBits returns the fingerprint with bits [start, start+width) set.
func maskBits(start, width int) simhash.Fingerprint {
	all := simhash.Fingerprint{Hi: ^uint64(0), Lo: ^uint64(0)}
	return shl(shr(all, 128-width), 128-start-width)
}

func shl(x simhash.Fingerprint, n int) simhash.Fingerprint {
	switch {
	case n == 0:
		return x
	case n >= 128:
		return simhash.Fingerprint{}
	case n >= 64:
		return simhash.Fingerprint{Hi: x.Lo << (n - 64)}
	}
	return simhash.Fingerprint{Hi: x.Hi<<n | x.Lo>>(64-n), Lo: x.Lo << n}
}

func shr(x simhash.Fingerprint, n int) simhash.Fingerprint {
	switch {
	case n == 0:
		return x
	case n >= 128:
		return simhash.Fingerprint{}
	case n >= 64:
		return simhash.Fingerprint{Lo: x.Hi >> (n - 64)}
	}
	return simhash.Fingerprint{Hi: x.Hi >> n, Lo: x.Lo>>n | x.Hi<<(64-n)}
}

func apply(ms []move, x simhash.Fingerprint) simhash.Fingerprint {
	var out simhash.Fingerprint
	for _, m := range ms {
		v := shl(shr(shl(x, m.Src), 128-m.Width), 128-m.Dst-m.Width)
		out.Hi |= v.Hi
		out.Lo |= v.Lo
	}
	return out
}

func apply64(ms []rotMove, x uint64) uint64 {
	var out uint64
	for _, m := range ms {
		out |= bits.RotateLeft64(x&m.Mask, m.Rot)
	}
	return out
}

// Permute returns the fingerprint permuted for table t.
func (h *Hamming) Permute(t int, x simhash.Fingerprint) simhash.Fingerprint {
	return apply(h.Tables[t].fwd, x)
}

// Unpermute undoes Permute.
func (h *Hamming) Unpermute(t int, x simhash.Fingerprint) simhash.Fingerprint {
	return apply(h.Tables[t].inv, x)
}

// Permute64 and Unpermute64 are Permute and Unpermute for 64-bit schemes.
func (h *Hamming) Permute64(t int, x uint64) uint64 { return apply64(h.Tables[t].fwd64, x) }

// Unpermute64 undoes Permute64.
func (h *Hamming) Unpermute64(t int, x uint64) uint64 { return apply64(h.Tables[t].inv64, x) }

// Key returns the key of x in table t: its permuted leading KeyBits bits,
// the rest zero.
func (h *Hamming) Key(t int, x simhash.Fingerprint) simhash.Fingerprint {
	p := h.Permute(t, x)
	m := h.Tables[t].keyMask
	return simhash.Fingerprint{Hi: p.Hi & m.Hi, Lo: p.Lo & m.Lo}
}

// KeyMask64 returns the mask of table t's key bits in a permuted 64-bit
// fingerprint.
func (h *Hamming) KeyMask64(t int) uint64 { return h.Tables[t].keyMask.Hi }

// Agree returns the set of blocks (bit b for block b) on which a and b are
// equal.
func (h *Hamming) Agree(a, b simhash.Fingerprint) uint64 {
	x := simhash.Fingerprint{Hi: a.Hi ^ b.Hi, Lo: a.Lo ^ b.Lo}
	var z uint64
	for i, m := range h.blockMask {
		if x.Hi&m.Hi == 0 && x.Lo&m.Lo == 0 {
			z |= 1 << i
		}
	}
	return z
}

// Agree64 is Agree for 64-bit fingerprints.
func (h *Hamming) Agree64(a, b uint64) uint64 {
	x := a ^ b
	var z uint64
	for i, m := range h.blockMask64 {
		if x&m == 0 {
			z |= 1 << i
		}
	}
	return z
}

// firstChosen returns the first Blocks-K blocks of an agreement set, the
// chosen blocks of the first table that keys both fingerprints alike, or
// false when they agree on fewer blocks.
func (h *Hamming) firstChosen(z uint64) (uint64, bool) {
	need := h.Blocks - h.K
	if bits.OnesCount64(z) < need {
		return 0, false
	}
	var c uint64
	for range need {
		low := z & -z
		c |= low
		z ^= low
	}
	return c, true
}

// IsFirst reports whether t is the first table in which a and b share a key.
func (h *Hamming) IsFirst(t int, a, b simhash.Fingerprint) bool {
	c, ok := h.firstChosen(h.Agree(a, b))
	return ok && c == h.Tables[t].Chosen
}

// IsFirst64 is IsFirst for 64-bit fingerprints.
func (h *Hamming) IsFirst64(t int, a, b uint64) bool {
	c, ok := h.firstChosen(h.Agree64(a, b))
	return ok && c == h.Tables[t].Chosen
}

// IsFirstPermuted64 is IsFirst64 for two fingerprints permuted for table t,
// without undoing the permutation.
func (h *Hamming) IsFirstPermuted64(t int, pa, pb uint64) bool {
	x := pa ^ pb
	var z uint64
	for i, m := range h.Tables[t].permMask64 {
		if x&m == 0 {
			z |= 1 << i
		}
	}
	c, ok := h.firstChosen(z)
	return ok && c == h.Tables[t].Chosen
}

// FirstTable returns the first table in which a and b share a key, or -1.
func (h *Hamming) FirstTable(a, b simhash.Fingerprint) int {
	c, ok := h.firstChosen(h.Agree(a, b))
	if !ok {
		return -1
	}
	for t := range h.Tables {
		if h.Tables[t].Chosen == c {
			return t
		}
	}
	return -1
}

// Binomial returns C(n, k), or MaxTables+1 when it is larger.
func Binomial(n, k int) int {
	if k < 0 || k > n {
		return 0
	}
	k = min(k, n-k)
	c := 1
	for i := 1; i <= k; i++ {
		c = c * (n - k + i) / i
		if c > MaxTables {
			return MaxTables + 1
		}
	}
	return c
}

// WidthList returns the block widths as "11,11,10".
func (h *Hamming) WidthList() string {
	s := make([]string, len(h.Widths))
	for i, w := range h.Widths {
		s[i] = strconv.Itoa(w)
	}
	return strings.Join(s, ",")
}

// KeyBitsRange returns the shortest and longest key.
func (h *Hamming) KeyBitsRange() (lo, hi int) {
	lo = h.F
	for _, t := range h.Tables {
		lo = min(lo, t.KeyBits)
		hi = max(hi, t.KeyBits)
	}
	return lo, hi
}

// Describe writes the layout, one line per table, for people.
func (h *Hamming) Describe() string {
	var b strings.Builder
	lo, hi := h.KeyBitsRange()
	fmt.Fprintf(&b, "distance ≤ %d over %d-bit fingerprints: %d blocks of %s bits, %d tables keyed on %d-%d bits\n",
		h.K, h.F, h.Blocks, h.WidthList(), len(h.Tables), lo, hi)
	for i, b0 := range h.Widths {
		fmt.Fprintf(&b, "  block %d: bits %d-%d (%d bits)\n", i, h.Starts[i], h.Starts[i]+b0-1, b0)
	}
	for i, t := range h.Tables {
		fmt.Fprintf(&b, "  table %d: key blocks", i)
		for j, blk := range t.Order {
			if j == h.Blocks-h.K {
				b.WriteString(" | then")
			}
			fmt.Fprintf(&b, " %d", blk)
		}
		fmt.Fprintf(&b, " (%d key bits)\n", t.KeyBits)
	}
	return b.String()
}
