package cluster

import (
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/neardup/neardup/internal/record"
)

// largestShown is how many of the largest clusters --stats names.
const largestShown = 10

// sizeStats gathers what --stats prints: the number of clusters, their
// sizes in powers of two, and the largest ones.
type sizeStats struct {
	docs, clusters int64
	// hist[k] counts the clusters of sizes in (2^(k-1), 2^k].
	hist    []int64
	largest []clusterInfo
	// sims says whether verified similarities to the representatives are
	// known.
	sims bool
}

type clusterInfo struct {
	name     string
	size     int
	verified int
	least    float64
}

func newSizeStats() *sizeStats { return &sizeStats{} }

// add notes one cluster. With sims (not nil) its members' verified
// similarities to the representative rep are noted too.
func (s *sizeStats) add(name []byte, members []uint32, sims []float32) {
	info := clusterInfo{size: len(members), least: math.NaN()}
	if sims != nil {
		s.sims = true
		info.verified, info.least = verifiedStats(members[0], members, sims)
	}
	s.addInfo(name, info)
}

// addSize notes a cluster of which only the size is known.
func (s *sizeStats) addSize(name []byte, size int) {
	s.addInfo(name, clusterInfo{size: size, least: math.NaN()})
}

func (s *sizeStats) addInfo(name []byte, info clusterInfo) {
	s.docs += int64(info.size)
	s.clusters++
	k := bits.Len(uint(info.size - 1))
	for len(s.hist) <= k {
		s.hist = append(s.hist, 0)
	}
	s.hist[k]++
	if info.size < 2 {
		return // the largest clusters named are of two or more
	}
	if len(s.largest) == largestShown {
		last := s.largest[largestShown-1]
		if info.size < last.size || info.size == last.size && string(name) >= last.name {
			return
		}
		s.largest = s.largest[:largestShown-1]
	}
	info.name = string(name)
	i, _ := slices.BinarySearchFunc(s.largest, info, func(a, b clusterInfo) int {
		if a.size != b.size {
			return b.size - a.size
		}
		return strings.Compare(a.name, b.name)
	})
	s.largest = slices.Insert(s.largest, i, info)
}

// print writes the statistics. components is the number of connected
// components before the chaining guard split them (when split is set).
func (s *sizeStats) print(w io.Writer, components int, split bool) {
	fmt.Fprintf(w, "cluster: %d documents in %d clusters", s.docs, s.clusters)
	if len(s.hist) > 0 {
		fmt.Fprintf(w, " (%d of one document)", s.hist[0])
	}
	fmt.Fprintln(w)
	if split {
		fmt.Fprintf(w, "cluster: the chaining guard split %d connected components into %d clusters\n", components, s.clusters)
	}
	if len(s.hist) > 0 {
		var parts []string
		for k, n := range s.hist {
			if n == 0 {
				continue
			}
			lo, hi := 1<<max(k-1, 0)+1, 1<<k
			if k == 0 {
				lo = 1
			}
			if lo == hi {
				parts = append(parts, fmt.Sprintf("%d: %d", lo, n))
			} else {
				parts = append(parts, fmt.Sprintf("%d-%d: %d", lo, hi, n))
			}
		}
		fmt.Fprintf(w, "cluster: clusters by size: %s\n", strings.Join(parts, ", "))
	}
	if len(s.largest) == 0 {
		return
	}
	fmt.Fprintf(w, "cluster: the largest:\n")
	for _, c := range s.largest {
		if s.sims {
			fmt.Fprintf(w, "   %8d  %s  (%d verified to it, least similarity %s)\n", c.size, c.name, c.verified, record.AppendSimilarity(nil, c.least))
		} else {
			fmt.Fprintf(w, "   %8d  %s\n", c.size, c.name)
		}
	}
}
