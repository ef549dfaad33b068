-- The vectors of a long drawer's passages (palace/passages.go), one after
-- another as little-endian float32, and how many; NULL and 0 for a drawer
-- indexed whole. The count joins the covering index vector keys resolve
-- through, so loading the index's key map reads no table row.
ALTER TABLE drawers ADD COLUMN passages BLOB;
ALTER TABLE drawers ADD COLUMN passage_count INTEGER NOT NULL DEFAULT 0;
DROP INDEX IF EXISTS drawers_vec_id;
CREATE INDEX drawers_vec_id ON drawers(vec_id, status, passage_count);
