-- The connection (an MCP stdio stream, an HTTP session) a text remembered
-- without a session came through: texts an agent stores one after another
-- through one connection are neighbours, as the turns of a session are
-- (recall's neighbour propagation reads them in order).
ALTER TABLE drawers ADD COLUMN conn TEXT NOT NULL DEFAULT '';
CREATE INDEX drawers_conn ON drawers(conn, ts) WHERE conn <> '';
