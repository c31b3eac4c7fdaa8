//go:build !amd64

package record

// hasAVX2 and hasAVX512Unescape are false where there is no vector code.
var hasAVX2, hasAVX512Unescape = false, false

// unescapeRun does nothing where there is no vector code: the Go loop does.
func unescapeRun(dst, src []byte) (written, read int) { return 0, 0 }
