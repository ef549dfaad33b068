-- Idempotency keys of retried requests (HTTP /add's Idempotency-Key): a
-- key seen within its lifetime makes the retry a no-op.
CREATE TABLE IF NOT EXISTS request_keys (
	key TEXT    PRIMARY KEY,
	at  INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS request_keys_at ON request_keys(at);
