-- Engram facts (seed 004) and the review queue.
--
-- fact_ids allocates the per-palace "mem-NNNN" ids of fact drawers.
-- AUTOINCREMENT guarantees a number is never handed out twice, even after
-- the fact (or the whole row) is gone; drawer_id maps the number back to
-- its drawer with an index instead of a scan over drawers.meta.
CREATE TABLE fact_ids (
	n         INTEGER PRIMARY KEY AUTOINCREMENT,
	drawer_id TEXT    NOT NULL UNIQUE
);

-- Undo tokens printed by review reject and forget. A token restores the
-- drawer's previous status once, and only while the drawer is still as the
-- action left it (same seq).
CREATE TABLE review_undo (
	token              TEXT    PRIMARY KEY,
	action             TEXT    NOT NULL,
	drawer_id          TEXT    NOT NULL,
	prev_status        TEXT    NOT NULL,
	prev_superseded_by TEXT    NOT NULL DEFAULT '',
	new_status         TEXT    NOT NULL,
	seq                INTEGER NOT NULL,
	created_at         INTEGER NOT NULL,
	used_at            INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX review_undo_drawer ON review_undo(drawer_id);
