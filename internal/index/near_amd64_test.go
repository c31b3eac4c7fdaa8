package index

// addNear adds the implementations of near this CPU can run.
func addNear(fs map[string]func([]uint64, uint64, int) int) {
	if hasPOPCNT {
		fs["popcnt"] = nearPOPCNT
	}
	if hasVPOPCNTQ {
		fs["avx512"] = nearAVX512
	}
}

// addNearAny adds the implementations of nearAny this CPU can run.
func addNearAny(fs map[string]func([]uint64, []uint64, int) (int, int)) {
	fs["go"] = nearAnyGo
	if hasPOPCNT {
		fs["popcnt"] = nearAnyPOPCNT
	}
	if hasVPOPCNTQ {
		fs["avx512"] = nearAnyAVX512
	}
}
