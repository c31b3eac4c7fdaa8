package bandindex

import "github.com/neardup/neardup/internal/disk/disktest"

// memFS is the shared file system in memory, which keeps what a crash
// would leave and fails at a chosen step, with a lock that is always free.
type memFS struct{ *disktest.FS }

func newMemFS() memFS { return memFS{disktest.New()} }

func (memFS) Lock(string) (func(), error) { return func() {}, nil }

// recovered returns what a machine finds after a crash now.
func (m memFS) recovered() memFS { return memFS{m.Recovered()} }
