-- The dreamer's bookkeeping: runs, the changes each run made (for
-- `loci dream undo`), the cross-process lock, importance-decay bases and
-- the per-room closets.

-- One row per dreamer run (dry runs are not recorded).
CREATE TABLE dream_runs (
	id          TEXT    PRIMARY KEY,
	owner       TEXT    NOT NULL,               -- lock owner that ran it
	trigger     TEXT    NOT NULL,               -- schedule | cli | test
	passes      TEXT    NOT NULL DEFAULT '[]',  -- JSON list of pass names asked for
	status      TEXT    NOT NULL,               -- running | done | partial | cancelled | failed
	started_at  INTEGER NOT NULL,               -- wall clock, epoch ms
	finished_at INTEGER NOT NULL DEFAULT 0,
	seq_before  INTEGER NOT NULL DEFAULT 0,     -- change-log high-water mark at start
	seq_after   INTEGER NOT NULL DEFAULT 0,     -- and at the end
	changes     INTEGER NOT NULL DEFAULT 0,     -- dream_changes rows written
	report      TEXT    NOT NULL DEFAULT '{}',  -- the run's report, JSON
	undone_at   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX dream_runs_started ON dream_runs(started_at);

-- Every drawer change a run made, field by field: before and after hold
-- only the fields the change touched (JSON objects). Undo restores before
-- where the drawer still holds after.
CREATE TABLE dream_changes (
	id        INTEGER PRIMARY KEY,
	run_id    TEXT    NOT NULL REFERENCES dream_runs(id),
	pass      TEXT    NOT NULL,
	op        TEXT    NOT NULL,   -- supersede | provenance | decay | stale | create | update
	drawer_id TEXT    NOT NULL,
	before    TEXT    NOT NULL DEFAULT '{}',
	after     TEXT    NOT NULL DEFAULT '{}',
	at        INTEGER NOT NULL,   -- palace clock, epoch ms
	undone    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX dream_changes_run    ON dream_changes(run_id);
CREATE INDEX dream_changes_drawer ON dream_changes(drawer_id, op);

-- At most one dreamer per palace across processes. A holder renews
-- expires_at while it works; a killed holder's row simply expires.
CREATE TABLE dream_lock (
	id          INTEGER PRIMARY KEY CHECK (id = 1),
	owner       TEXT    NOT NULL,
	acquired_at INTEGER NOT NULL,  -- wall clock, epoch ms
	expires_at  INTEGER NOT NULL
);

-- Importance decay: base is the importance decay starts from (what the
-- writer set), applied the value the dreamer last wrote. A drawer whose
-- importance no longer equals applied was edited since: its importance
-- becomes the new base.
CREATE TABLE dream_decay (
	rid     INTEGER PRIMARY KEY,
	base    REAL    NOT NULL,
	applied REAL    NOT NULL
);

-- Closets: a keyword and summary index per room, rebuilt by the dreamer
-- and read by L2 recall as a small tie-breaking boost.
CREATE TABLE closets (
	room         TEXT    PRIMARY KEY,
	keywords     TEXT    NOT NULL DEFAULT '[]',  -- JSON list, most distinctive first
	summary      TEXT    NOT NULL DEFAULT '',
	drawers      INTEGER NOT NULL DEFAULT 0,     -- active drawers in the room
	refreshed_at INTEGER NOT NULL,               -- palace clock, epoch ms
	seq          INTEGER NOT NULL DEFAULT 0      -- change-log seq the closet reflects
);
