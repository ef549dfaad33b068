-- Who is extracting a session, and until when (epoch ms); see SQLite's
-- 0506_extraction_lease.sql.
ALTER TABLE session_state ADD COLUMN lease_holder text NOT NULL DEFAULT '';
ALTER TABLE session_state ADD COLUMN lease_until  bigint NOT NULL DEFAULT 0;
