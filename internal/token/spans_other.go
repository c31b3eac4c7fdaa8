//go:build !amd64

package token

// appendASCIISpans is done by asciiTokens' loop on other CPUs.
func appendASCIISpans(spans []span, firsts, lasts uint64, base int) ([]span, bool) {
	return spans, false
}
