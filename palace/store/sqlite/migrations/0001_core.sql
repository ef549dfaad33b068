-- Core schema: palace metadata, drawers, the change log.
-- (Palaces created before migration 0500 also had an FTS5 index here;
-- 0500 drops it: keyword search is loci's own in-memory BM25 index.)
CREATE TABLE palace_meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);

-- One row per memory of any kind. seq is the change log position of the
-- drawer's latest change; vec_id is the index key of its current vector.
CREATE TABLE drawers (
	rid           INTEGER PRIMARY KEY,
	id            TEXT    NOT NULL UNIQUE,
	seq           INTEGER NOT NULL,
	kind          TEXT    NOT NULL DEFAULT 'note',
	content       TEXT    NOT NULL,
	keywords      TEXT    NOT NULL DEFAULT '',
	room          TEXT    NOT NULL DEFAULT 'General',
	tags          TEXT    NOT NULL DEFAULT '[]',
	importance    REAL    NOT NULL DEFAULT 0.5,
	confidence    REAL    NOT NULL DEFAULT 1.0,
	status        TEXT    NOT NULL DEFAULT 'active',
	user_id       TEXT    NOT NULL DEFAULT '',
	agent_id      TEXT    NOT NULL DEFAULT '',
	session_id    TEXT    NOT NULL DEFAULT '',
	sender_ids    TEXT    NOT NULL DEFAULT '[]',
	parent_id     TEXT    NOT NULL DEFAULT '',
	superseded_by TEXT    NOT NULL DEFAULT '',
	ts            INTEGER NOT NULL,
	created_at    INTEGER NOT NULL,
	updated_at    INTEGER NOT NULL,
	access_count  INTEGER NOT NULL DEFAULT 0,
	last_access   INTEGER NOT NULL DEFAULT 0,
	pinned        INTEGER NOT NULL DEFAULT 0,
	redactions    INTEGER NOT NULL DEFAULT 0,
	model         TEXT    NOT NULL DEFAULT '',
	vec_id        INTEGER NOT NULL DEFAULT 0,
	vector        BLOB,
	meta          TEXT    NOT NULL DEFAULT '{}'
);
CREATE INDEX drawers_seq        ON drawers(seq);
CREATE INDEX drawers_status_imp ON drawers(status, importance DESC, created_at DESC);
CREATE INDEX drawers_kind_ts    ON drawers(kind, status, ts);
CREATE INDEX drawers_room       ON drawers(room, status);
CREATE INDEX drawers_session    ON drawers(session_id) WHERE session_id <> '';
CREATE INDEX drawers_user       ON drawers(user_id, kind) WHERE user_id <> '';
CREATE INDEX drawers_agent      ON drawers(agent_id, kind) WHERE agent_id <> '';
CREATE INDEX drawers_parent     ON drawers(parent_id) WHERE parent_id <> '';

-- Append-only change log. Its seq orders every change of the palace; index
-- catch-up, the dashboard's activity views and audit read it.
CREATE TABLE events (
	seq       INTEGER PRIMARY KEY AUTOINCREMENT,
	at        INTEGER NOT NULL,
	type      TEXT    NOT NULL,
	drawer_id TEXT    NOT NULL DEFAULT '',
	detail    TEXT    NOT NULL DEFAULT '{}'
);
CREATE INDEX events_at ON events(at);
