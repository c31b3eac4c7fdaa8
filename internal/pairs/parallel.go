package pairs

import (
	"slices"
	"sync"
)

// minParallelSort is the least number of elements sorted by more than one
// goroutine: below it the partition costs more than it saves.
const minParallelSort = 1 << 15

// parallelSort sorts a by cmp with up to jobs goroutines, in place: a
// sample of a chooses jobs-1 splitters, the elements are moved (American
// flag permutation) to the part between the splitters they fall in, and
// the parts are sorted at once, each by sortPart. Elements that compare
// equal go to one part, so the result is the sorted order: where cmp is a
// total order on what is written, the output is the same for any jobs.
// Besides a it holds one byte per element.
func parallelSort[T any](a []T, jobs int, cmp func(x, y T) int, sortPart func([]T)) {
	if jobs <= 1 || len(a) < minParallelSort {
		sortPart(a)
		return
	}
	parts := min(jobs*4, 256) // more parts than workers: they are uneven
	sample := make([]T, 0, parts*16)
	for i := range cap(sample) {
		sample = append(sample, a[i*len(a)/cap(sample)])
	}
	slices.SortFunc(sample, cmp)
	splitters := make([]T, 0, parts-1)
	for k := 1; k < parts; k++ {
		splitters = append(splitters, sample[k*len(sample)/parts])
	}
	// part returns the number of splitters at most x.
	part := func(x T) uint8 {
		lo, hi := 0, len(splitters)
		for lo < hi {
			m := (lo + hi) / 2
			if cmp(splitters[m], x) <= 0 {
				lo = m + 1
			} else {
				hi = m
			}
		}
		return uint8(lo)
	}
	of := make([]uint8, len(a))
	ends := make([]int, parts)
	for i := range a {
		of[i] = part(a[i])
		ends[of[i]]++
	}
	starts := make([]int, parts)
	next := make([]int, parts)
	sum := 0
	for p, n := range ends {
		starts[p], next[p] = sum, sum
		sum += n
		ends[p] = sum
	}
	for p := range parts {
		for next[p] < ends[p] {
			i := next[p]
			q := int(of[i])
			if q == p {
				next[p]++
				continue
			}
			j := next[q]
			next[q]++
			a[i], a[j] = a[j], a[i]
			of[i], of[j] = of[j], of[i]
		}
	}
	of = nil
	parallelFor(parts, jobs, func(p int) { sortPart(a[starts[p]:ends[p]]) })
}

// parallelFor calls fn(0) … fn(n-1) from up to jobs goroutines.
func parallelFor(n, jobs int, fn func(i int)) {
	if jobs <= 1 || n <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(jobs, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
