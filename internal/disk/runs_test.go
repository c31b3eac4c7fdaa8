package disk_test

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/disk"
)

// cursor reads one run of numbers, one a line.
type cursor struct {
	r *bufio.Reader
	v int
}

func (c *cursor) next() (bool, error) {
	line, err := c.r.ReadString('\n')
	if line == "" {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	c.v, err = strconv.Atoi(strings.TrimSuffix(line, "\n"))
	return err == nil, err
}

// merge merges runs of numbers into w.
func merge(runs []disk.Run, w *bufio.Writer) error {
	var cs []*cursor
	for _, r := range runs {
		c := &cursor{r: r.R}
		if ok, err := c.next(); err != nil {
			return err
		} else if ok {
			cs = append(cs, c)
		}
	}
	return disk.Merge(cs, func(a, b *cursor) bool { return a.v < b.v }, func(c *cursor) (bool, error) {
		fmt.Fprintln(w, c.v)
		return c.next()
	})
}

// TestRuns spills random runs, combines some, merges all, and checks the
// merge is sorted and complete and that no file is left.
func TestRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	dir := t.TempDir()
	rs := &disk.Runs{Dir: dir, Pattern: "run-*", What: "numbers"}
	defer rs.Remove()
	var all []int
	for i := range 20 {
		run := make([]int, rng.IntN(50))
		for j := range run {
			run[j] = rng.IntN(100)
		}
		slices.Sort(run)
		all = append(all, run...)
		err := rs.Spill(func(w *bufio.Writer) error {
			for _, v := range run {
				fmt.Fprintln(w, v)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if i%7 == 6 {
			if err := rs.Combine(merge); err != nil {
				t.Fatal(err)
			}
			if rs.Len() != 1 {
				t.Fatalf("%d runs after Combine", rs.Len())
			}
		}
	}
	var out strings.Builder
	w := bufio.NewWriter(&out)
	if err := merge(rs.Readers(), w); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	slices.Sort(all)
	var want strings.Builder
	for _, v := range all {
		fmt.Fprintln(&want, v)
	}
	if out.String() != want.String() {
		t.Errorf("merged %d bytes, want %d", out.Len(), want.Len())
	}
	rs.Remove()
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Errorf("%d files left", len(names))
	}
}
