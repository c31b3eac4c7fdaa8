// Package estimate predicts what the dedup job (examples/dedup.sh) will do
// to a corpus before it is run: it reads the corpus once, drawing samples
// of it, runs the job on each, and fits what it sees (the clusters of
// near-duplicates, the verified pairs, each stage's time and peak memory)
// to what the whole corpus would give, each quantity with an interval.
package estimate
