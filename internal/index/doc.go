// Package index is the stored SimHash fingerprint index of the index
// command: Hamming-distance search after Manku, Jain and Das Sarma
// ("Detecting near-duplicates for web crawling", WWW 2007).
//
// A fingerprint within k bits of a query agrees with it exactly on at least
// one choice of blocks (the pigeonhole principle), so the index keeps t
// tables, each the fingerprints permuted to bring one choice of blocks to
// the front and sorted; a query probes every table on its leading bits and
// checks the full distance of what it finds. The tables are stored in one
// file (format.go), compressed (codec.go: the position of the first bit in
// which a fingerprint differs from the one before, Huffman coded, then the
// bits after it, in blocks), read through a memory map; only a directory of
// the blocks stays in memory. Open reads an index, Build writes one, Add
// writes a new file with more fingerprints and renames it over the old one.
// Searcher answers one query at a time (online), SearchBatch a set of
// queries against each table in one merge pass (batch).
//
// RunBuild, RunAdd, RunQuery and Stats are the index command's actions.
package index
