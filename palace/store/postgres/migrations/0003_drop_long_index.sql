-- drawers_long is read by nothing any more (see SQLite's
-- 0504_drop_long_index.sql).
DROP INDEX IF EXISTS drawers_long;
