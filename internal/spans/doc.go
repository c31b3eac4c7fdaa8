// Package spans is the spans stage: every span of at least N word tokens
// that occurs in two places or more of a corpus (Lee et al. 2022's exact
// substring deduplication, by windows of tokens), written as part ids that
// keep --drop-parts cuts out.
//
// The workers read documents as shingle does, tokenize them and key each
// window of N tokens by two rolling polynomial hashes (key.go); the
// collector, in input order, sorts the windows by key within --memory,
// spilling sorted runs to disk (sorter.go), keeps those whose key occurs
// twice or more, sorts them by place and joins overlapping windows into
// occurrences, one record each (stage.go, records.go). docs/DESIGN.md,
// "Repeated spans", gives the algorithm and the chance of a false match.
package spans
