// Package input opens input files (standard input is "-") and reads the
// document formats neardup accepts: TSV "id TAB text", JSON Lines, one file
// per document and one line per document. gzip and zstd inputs are recognised
// by their magic bytes and decompressed transparently.
package input
