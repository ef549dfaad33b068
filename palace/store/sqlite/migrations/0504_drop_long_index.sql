-- drawers_long listed the drawers indexed as passages for a reader nothing
-- calls any more (the keyword index counts its own passages, the vector
-- index reads passage counts through drawers_vec_id); dropping it spares
-- every write of a long drawer its upkeep.
DROP INDEX IF EXISTS drawers_long;
