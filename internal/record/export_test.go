package record

// NoVectorCode turns the vector code paths off and returns the function
// that restores them, for tests of the other paths.
func NoVectorCode() (restore func()) {
	was := hasSSSE3
	hasSSSE3 = false
	return func() { hasSSSE3 = was }
}
