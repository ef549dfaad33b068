-- A session's drawers in the order of time and row id, so that the drawer
-- before or after one is found directly (see SQLite's
-- 0505_session_order.sql).
DROP INDEX IF EXISTS drawers_session;
CREATE INDEX drawers_session ON drawers(session_id, ts, rid) WHERE session_id <> '';
