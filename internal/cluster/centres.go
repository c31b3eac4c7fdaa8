package cluster

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
)

// movingCentres is --update-centre: each cluster's centre, which the index
// holds in its leader's place, moves as members join. centres is the one
// of SimHash fingerprints, meanCentres (means.go) the one of hyperplane
// fingerprints.
type movingCentres interface {
	// add starts the centre of a new leader, the cluster's one member,
	// whose fingerprint is values.
	add(values []uint64)
	// join adds a member to leader i, of size members before it, and
	// moves the centre in the index if its fingerprint changes; it
	// refuses a member the centre could not take.
	join(i uint32, size uint64, values []uint64, name []byte) error
	// save writes what leader i's centre holds for the state file; load
	// reads it for leader i, just loaded with size members.
	save(w io.Writer, i uint32) error
	load(r *bufio.Reader, i uint32, size uint64) error
	// bytes returns the memory held.
	bytes() int64
}

// centres is --update-centre: the centre of each SimHash cluster moves with
// its members. Leader i has f signed counters, the sum over its members of
// +1 for each bit set in their fingerprints and -1 for each bit clear: its
// summed feature weights, each member weighing 1 (sketch records carry no
// weights per bit). The centre's fingerprint, which the index holds in the
// leader's place, has a bit set where its counter is positive, clear where
// it is negative, and as it was where it is 0: the members' per-bit
// majority, ties kept.
//
// Memory per cluster: 4 bytes per bit (counters of 32 bits, so a cluster
// may have up to 2^31-1 members).
type centres struct {
	index  *HammingIndex
	f      int
	counts []int32
	fp     []uint64
	buf    []byte
}

// bit reports bit b of a fingerprint given as its words.
func bit(values []uint64, b int) bool { return values[b/64]>>(b%64)&1 != 0 }

// add starts the counters of a new leader, the cluster's one member.
func (c *centres) add(values []uint64) {
	for b := range c.f {
		if bit(values, b) {
			c.counts = append(c.counts, 1)
		} else {
			c.counts = append(c.counts, -1)
		}
	}
}

// fingerprint returns the centre of leader i as the index holds it.
func (c *centres) fingerprint(i uint32) []uint64 {
	return c.index.fps[int(i)*c.index.words : (int(i)+1)*c.index.words]
}

// join adds a member's fingerprint to the counters of leader i, of size
// members before it, and moves the centre in the index if its fingerprint
// changes. It refuses a member that a counter could not count.
func (c *centres) join(i uint32, size uint64, values []uint64, name []byte) error {
	if size >= math.MaxInt32 {
		return fmt.Errorf("cluster %s has %d members: the counters of its centre (--update-centre) hold no more", name, size)
	}
	counts := c.counts[int(i)*c.f : (int(i)+1)*c.f]
	cur := c.fingerprint(i)
	c.fp = append(c.fp[:0], cur...)
	for b := range counts {
		w, m := b/64, uint64(1)<<(b%64)
		if values[w]&m != 0 {
			counts[b]++
		} else {
			counts[b]--
		}
		switch {
		case counts[b] > 0:
			c.fp[w] |= m
		case counts[b] < 0:
			c.fp[w] &^= m
		}
	}
	if !slices.Equal(c.fp, cur) {
		c.index.Move(i, c.fp)
	}
	return nil
}

// save writes the counters of leader i for the state file, as varints.
func (c *centres) save(w io.Writer, i uint32) error {
	c.buf = c.buf[:0]
	for _, v := range c.counts[int(i)*c.f : (int(i)+1)*c.f] {
		c.buf = binary.AppendVarint(c.buf, int64(v))
	}
	_, err := w.Write(c.buf)
	return err
}

// load reads the counters written by save for leader i, just loaded with
// size members, and checks them against its size and centre.
func (c *centres) load(r *bufio.Reader, i uint32, size uint64) error {
	if size >= math.MaxInt32 {
		return fmt.Errorf("a cluster of %d members", size)
	}
	fp := c.fingerprint(i)
	for b := range c.f {
		v, err := binary.ReadVarint(r)
		if err != nil {
			return fmt.Errorf("truncated counters")
		}
		// A counter sums size terms of ±1.
		if v > int64(size) || -v > int64(size) || (int64(size)-v)%2 != 0 {
			return fmt.Errorf("counter %d is %d for %d members", b, v, size)
		}
		if v > 0 && !bit(fp, b) || v < 0 && bit(fp, b) {
			return fmt.Errorf("bit %d of the centre disagrees with its counter %d", b, v)
		}
		c.counts = append(c.counts, int32(v))
	}
	return nil
}

// bytes returns the memory the counters hold.
func (c *centres) bytes() int64 { return 4 * int64(cap(c.counts)) }
