//go:build !amd64

package index

func near(vals []uint64, p uint64, k int) int { return nearGo(vals, p, k) }

func nearAny(vals, ps []uint64, k int) (int, int) { return nearAnyGo(vals, ps, k) }
