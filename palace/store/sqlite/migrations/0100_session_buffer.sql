-- Session buffers (seed 001 /add, seed 000 mem_save_turn, hooks): messages
-- accepted and not yet extracted. Rows are deleted in the same transaction
-- that writes the drawers extracted from them.
CREATE TABLE session_buffer (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	session_id TEXT    NOT NULL,
	stretch    INTEGER NOT NULL,          -- boundary detection's stretch number
	role       TEXT    NOT NULL,
	sender_id  TEXT    NOT NULL DEFAULT '',
	ts         INTEGER NOT NULL,          -- message time, epoch ms
	size       INTEGER NOT NULL,          -- text bytes, for the size cap
	message    TEXT    NOT NULL,          -- extract.Message as JSON (redacted)
	user_id    TEXT    NOT NULL DEFAULT '',
	agent_id   TEXT    NOT NULL DEFAULT '',
	agent      INTEGER NOT NULL DEFAULT 0,
	added_at   INTEGER NOT NULL
);
CREATE INDEX session_buffer_session ON session_buffer(session_id, stretch, id);

-- Per-session boundary state: stretches numbered below open_stretch are
-- closed and wait for extraction.
CREATE TABLE session_state (
	session_id   TEXT PRIMARY KEY,
	open_stretch INTEGER NOT NULL DEFAULT 0,
	attempts     INTEGER NOT NULL DEFAULT 0,  -- failed extractions since the last success
	last_error   TEXT    NOT NULL DEFAULT '',
	updated_at   INTEGER NOT NULL
);

-- Counters behind seed 001's ids: <owner>_ep_<YYYYMMDD>_<NNNNNNNN>.
CREATE TABLE id_counters (
	prefix TEXT PRIMARY KEY,
	n      INTEGER NOT NULL
);
