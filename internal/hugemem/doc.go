// Package hugemem allocates large arrays looked up at random (band's df
// table) outside Go's heap, on huge pages where the system gives them.
package hugemem
