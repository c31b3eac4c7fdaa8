package hugemem

// Prefault writes every element of a, just made, and returns it: for a
// table whose slots are read before they are written (a hash table). A
// page of new memory that is first read maps the kernel's shared page of
// zeros, and its first write then faults a second time and, where the
// process runs threads on other cores, interrupts each of them to drop
// the old mapping from its translation cache; on a virtual machine each
// such interrupt exits to the hypervisor. Written first, a page faults
// once. Go leaves memory fresh from the system as it is (it is zero), so
// a table made is not written until it is used.
func Prefault[T any](a []T) []T {
	clear(a)
	return a
}
