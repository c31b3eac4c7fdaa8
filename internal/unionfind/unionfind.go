// Package unionfind is a forest over numbers 0…n-1 (documents), with path
// compression and union by size: the connected components of pairs, for
// cluster and for verify --documents' bins.
package unionfind

// Forest is a union-find forest: Parent of each number (itself at a root),
// and at a root the Size of its tree.
type Forest struct {
	Parent []uint32
	Size   []uint32
}

// New returns a forest of n numbers, each alone.
func New(n int) Forest {
	f := Forest{Parent: make([]uint32, n), Size: make([]uint32, n)}
	for i := range f.Parent {
		f.Parent[i], f.Size[i] = uint32(i), 1
	}
	return f
}

// Grow adds numbers up to n, each alone.
func (u *Forest) Grow(n int) {
	for len(u.Parent) < n {
		u.Parent = append(u.Parent, uint32(len(u.Parent)))
		u.Size = append(u.Size, 1)
	}
}

// Find returns the root of x, pointing x and its ancestors at it.
func (u *Forest) Find(x uint32) uint32 {
	r := x
	for u.Parent[r] != r {
		r = u.Parent[r]
	}
	for u.Parent[x] != r {
		next := u.Parent[x]
		u.Parent[x] = r
		x = next
	}
	return r
}

// Union joins the trees of a and b.
func (u *Forest) Union(a, b uint32) {
	ra, rb := u.Find(a), u.Find(b)
	if ra == rb {
		return
	}
	if u.Size[ra] < u.Size[rb] {
		ra, rb = rb, ra
	}
	u.Parent[rb] = ra
	u.Size[ra] += u.Size[rb]
}
