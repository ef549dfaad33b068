package palace

// IndexInfo reports the state of the palace's in-memory vector index
// without the store queries Info makes (health checks poll it).
func (p *Palace) IndexInfo() IndexInfo {
	in := p.vec.info()
	p.later.mu.Lock()
	in.Pending = len(p.later.owned)
	p.later.mu.Unlock()
	return in
}
