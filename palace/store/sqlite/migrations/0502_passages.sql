-- A long drawer's passages (palace/passages.go): how many its text has,
-- and their vectors one after another as little-endian float32; 0 and NULL
-- for a drawer indexed whole. The count joins the covering index vector
-- keys resolve through, so loading the index's key map reads no table row,
-- and a partial index lists the long drawers for the keyword index.
ALTER TABLE drawers ADD COLUMN passages BLOB;
ALTER TABLE drawers ADD COLUMN passage_count INTEGER NOT NULL DEFAULT 0;
DROP INDEX IF EXISTS drawers_vec_id;
CREATE INDEX drawers_vec_id ON drawers(vec_id, status, passage_count);
CREATE INDEX drawers_long ON drawers(rid, passage_count) WHERE passage_count > 0;
