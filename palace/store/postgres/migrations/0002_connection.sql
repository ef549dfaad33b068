-- The connection a text remembered without a session came through (see
-- SQLite's 0503_connection.sql).
ALTER TABLE drawers ADD COLUMN conn text COLLATE "C" NOT NULL DEFAULT '';
CREATE INDEX drawers_conn ON drawers(conn, ts) WHERE conn <> '';
