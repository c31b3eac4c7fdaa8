package verify

import (
	"sync"
	"sync/atomic"
)

// scorer counts the intersections the sink of verify --documents finds to
// score, off the sink, on a pool of goroutines: the sink records each as a
// task (its line and the two sets, which stay as they are: held sets are
// copies, a batch's own live as long as the batch) and marks the line
// pending; each task writes its own line's count (atomically: the sink
// reads the lines' state as it goes). wait returns once every count given
// so far is written.
type scorer struct {
	units chan scoreUnit
	wg    sync.WaitGroup
	cur   scoreUnit
	work  int
}

// scoreUnit is a run of tasks handed to the pool at once, of about
// unitWork values to go through.
type scoreUnit struct {
	inter  []uint32
	tasks  []scoreTask
	groups []scoreGroupTask
}

// scoreGroupTask is a document's set to count against several partners
// through a reference (scoreGroup).
type scoreGroupTask struct {
	set         []uint64
	refs, tasks []groupTask
}

// run counts the unit's tasks and groups.
func (u *scoreUnit) run() {
	for _, t := range u.tasks {
		atomic.StoreUint32(&u.inter[t.line], uint32(intersectAtLeast(t.a, t.b, t.need)))
	}
	for _, g := range u.groups {
		scoreGroup(u.inter, g.set, g.refs, g.tasks)
	}
}

type scoreTask struct {
	line uint32
	a, b []uint64
	need int
}

const unitWork = 1 << 16

// pending marks a line whose count is under way.
const pending = unscored - 1

// newScorer starts a pool of n goroutines (none: the counts are made in
// add, as it is called).
func newScorer(n int) *scorer {
	s := &scorer{}
	if n <= 0 {
		return s
	}
	s.units = make(chan scoreUnit, n)
	for range n {
		go func() {
			for u := range s.units {
				u.run()
				s.wg.Done()
			}
		}()
	}
	return s
}

// add counts the intersection of a and b into inter[line], exactly when
// it is at least need (intersectAtLeast).
func (s *scorer) add(inter []uint32, line uint32, a, b []uint64, need int) {
	if s.units == nil {
		inter[line] = uint32(intersectAtLeast(a, b, need))
		return
	}
	if s.cur.inter != nil && &s.cur.inter[0] != &inter[0] {
		s.flush()
	}
	atomic.StoreUint32(&inter[line], pending)
	s.cur.inter = inter
	s.cur.tasks = append(s.cur.tasks, scoreTask{line, a, b, need})
	if s.work += len(a) + len(b) + 1; s.work >= unitWork {
		s.flush()
	}
}

// addGroup counts set against each partner of tasks through a reference,
// one of refs (scoreGroup).
func (s *scorer) addGroup(inter []uint32, set []uint64, refs, tasks []groupTask) {
	if s.units == nil {
		scoreGroup(inter, set, refs, tasks)
		return
	}
	if s.cur.inter != nil && &s.cur.inter[0] != &inter[0] {
		s.flush()
	}
	for _, t := range tasks {
		atomic.StoreUint32(&inter[t.line], pending)
	}
	s.cur.inter = inter
	s.cur.groups = append(s.cur.groups, scoreGroupTask{set, refs, tasks})
	if s.work += 2*len(set) + 64*len(tasks); s.work >= unitWork {
		s.flush()
	}
}

// flush hands the tasks recorded to the pool.
func (s *scorer) flush() {
	if len(s.cur.tasks) == 0 && len(s.cur.groups) == 0 {
		return
	}
	s.wg.Add(1)
	s.units <- s.cur
	s.cur = scoreUnit{}
	s.work = 0
}

// wait returns once every count added is written.
func (s *scorer) wait() {
	if s.units == nil {
		return
	}
	s.flush()
	s.wg.Wait()
}

// close stops the pool.
func (s *scorer) close() {
	if s.units != nil {
		s.wait()
		close(s.units)
	}
}
