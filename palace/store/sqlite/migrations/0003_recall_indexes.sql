-- Layer-0 recall looks up identity drawers on every memory_recall: a
-- partial index keeps that lookup off the whole table.
CREATE INDEX drawers_identity ON drawers(importance DESC, created_at DESC)
	WHERE status = 'active' AND tags LIKE '%"identity"%';
-- Time-aware recall restricts a vector search to an event-time window.
CREATE INDEX drawers_status_ts ON drawers(status, ts);
