// Package hugemem allocates large arrays looked up at random (band's df
// table and probe set) outside Go's heap, on huge pages where the system
// gives them, and writes the hash tables made in Go's heap before they
// are used (Prefault).
package hugemem
