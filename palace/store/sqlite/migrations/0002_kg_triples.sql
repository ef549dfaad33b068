-- kg schema v1: temporal triples.
-- Times are fixed-width RFC 3339 UTC text ("2026-05-10T14:32:00.000000000Z"),
-- so string order is time order and valid_to >= valid_from is a string check.
CREATE TABLE IF NOT EXISTS kg_triples (
	id          INTEGER PRIMARY KEY,
	subject     TEXT NOT NULL CHECK (length(subject) > 0),
	predicate   TEXT NOT NULL CHECK (length(predicate) > 0),
	object      TEXT NOT NULL CHECK (length(object) > 0),
	valid_from  TEXT NOT NULL,
	valid_to    TEXT NULL,
	confidence  REAL NOT NULL CHECK (confidence >= 0.0 AND confidence <= 1.0),
	provenance  TEXT NULL,
	created_at  TEXT NOT NULL,
	CHECK (valid_to IS NULL OR valid_to >= valid_from)
);

-- The active triple of a (subject, predicate): Assert, Retract, Query.
-- Deliberately not UNIQUE: writers keep one active triple per pair through
-- immediate transactions, and rows that break it (imports, external tools)
-- must stay readable so Assert and MergeDuplicates can repair them.
CREATE INDEX IF NOT EXISTS kg_triples_active_sp ON kg_triples (subject, predicate) WHERE valid_to IS NULL;
-- History and AsOf of a subject, in time order.
CREATE INDEX IF NOT EXISTS kg_triples_subject ON kg_triples (subject, valid_from);
-- Reverse lookups (QueryObject).
CREATE INDEX IF NOT EXISTS kg_triples_object ON kg_triples (object);
