-- drawers_session listed a session's drawers by session alone, so finding
-- the drawer before or after one (its neighbours, what a turn borrows,
-- read at every write of a turn and every search that lifts neighbours)
-- read and sorted the whole session: a cost that grew with the session, to
-- seconds a write in a chat of 30,000 messages imported at once. Kept in
-- the order of time, as drawers_conn is, the index finds them directly
-- (the row id, which breaks ties, is in every SQLite index).
DROP INDEX IF EXISTS drawers_session;
CREATE INDEX drawers_session ON drawers(session_id, ts) WHERE session_id <> '';
