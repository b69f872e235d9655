package limiter

// userHeap is a container/heap of users in the order its heapOrder gives,
// each user knowing its 1-based place in it (0 when it is not in it), so
// that a user can be fixed or removed in O(log n).
type userHeap[O heapOrder] struct {
	users []*userState
	by    O
}

// heapOrder is a userHeap's order and where a user keeps its place.
type heapOrder interface {
	less(a, b *userState) bool
	slot(u *userState) *int
}

func (h *userHeap[O]) Len() int           { return len(h.users) }
func (h *userHeap[O]) Less(i, j int) bool { return h.by.less(h.users[i], h.users[j]) }
func (h *userHeap[O]) Swap(i, j int) {
	h.users[i], h.users[j] = h.users[j], h.users[i]
	*h.by.slot(h.users[i]), *h.by.slot(h.users[j]) = i+1, j+1
}

// Push is for container/heap.
func (h *userHeap[O]) Push(x any) {
	u := x.(*userState)
	h.users = append(h.users, u)
	*h.by.slot(u) = len(h.users)
}

// Pop is for container/heap.
func (h *userHeap[O]) Pop() any {
	n := len(h.users) - 1
	u := h.users[n]
	h.users[n], h.users = nil, h.users[:n]
	*h.by.slot(u) = 0
	return u
}
