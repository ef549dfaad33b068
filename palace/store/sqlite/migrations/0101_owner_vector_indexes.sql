-- Indexes for owner-scoped hybrid search (seed 001's /search, mem_*):
-- map vector-index keys back to drawers without a table scan, and collect
-- the vector keys of one owner's drawers from a covering index.
CREATE INDEX IF NOT EXISTS drawers_vec_id    ON drawers(vec_id);
CREATE INDEX IF NOT EXISTS drawers_user_vec  ON drawers(user_id, status, kind, vec_id);
CREATE INDEX IF NOT EXISTS drawers_agent_vec ON drawers(agent_id, status, kind, vec_id);
