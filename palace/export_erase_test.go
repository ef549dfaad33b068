package palace

import "context"

// IndexedVectorKeys returns the drawers' vector keys (passage keys folded
// into their drawer's) that p's vector index holds, caught up first.
func IndexedVectorKeys(ctx context.Context, p *Palace) (map[int64]bool, error) {
	idx, err := p.vec.sync(ctx)
	if err != nil {
		return nil, err
	}
	out := map[int64]bool{}
	idx.Keys(func(key uint64) {
		vk, _ := splitKey(int64(key))
		out[vk] = true
	})
	return out, nil
}
