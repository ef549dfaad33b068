-- Resolving vector-index keys to live drawers reads only vec_id, status and
-- rid: with status in the index the lookup never touches the table rows
-- (which carry the text and the vector blob). Measured at 100k drawers:
-- 158 keys resolve in 0.26 ms instead of 3.1 ms.
DROP INDEX IF EXISTS drawers_vec_id;
CREATE INDEX drawers_vec_id ON drawers(vec_id, status);
