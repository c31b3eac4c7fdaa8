//go:build !amd64

package index

func addNear(fs map[string]func([]uint64, uint64, int) int) {}

func addNearAny(fs map[string]func([]uint64, []uint64, int) (int, int)) { fs["go"] = nearAnyGo }
