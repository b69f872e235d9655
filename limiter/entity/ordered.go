package entity

// ordered maps keys to values and walks them in the order the keys were
// first added: workflow code must not let a map's order reach what it
// sends or decides.
type ordered[K comparable, V any] struct {
	keys []K
	vals map[K]*V
}

// get returns k's value, adding a zero one, last in order, on first use.
func (o *ordered[K, V]) get(k K) *V {
	if v := o.vals[k]; v != nil {
		return v
	}
	if o.vals == nil {
		o.vals = make(map[K]*V)
	}
	v := new(V)
	o.vals[k] = v
	o.keys = append(o.keys, k)
	return v
}

// at returns k's value, or nil when k was never added.
func (o *ordered[K, V]) at(k K) *V { return o.vals[k] }
