-- Who is extracting a session, and until when (epoch ms): processes that
-- share a palace leave a session another is extracting alone, rather than
-- each calling the model for the same messages (store.SessionWriter.Lease).
ALTER TABLE session_state ADD COLUMN lease_holder TEXT    NOT NULL DEFAULT '';
ALTER TABLE session_state ADD COLUMN lease_until  INTEGER NOT NULL DEFAULT 0;
