package palace

// IndexInfo reports the state of the palace's in-memory vector index
// without the store queries Info makes (health checks poll it).
func (p *Palace) IndexInfo() IndexInfo { return p.vec.info() }
