// Package bm25 is an in-memory BM25 keyword index whose tokens and scores
// agree with SQLite FTS5: its tokenizer reproduces FTS5's
// "porter unicode61 remove_diacritics 2" tokenizer term for term (see
// Tokenize), so its ranking equals FTS5's bm25() over the same rows.
//
// Why it exists: FTS5 evaluates bm25() through its auxiliary-function API,
// about a microsecond per matching row, and a query must score every row
// that matches any of its terms. At 100k drawers a LoCoMo question matches
// 5,000–20,000 of them (a speaker's name alone matches 11,000), which cost
// 5–15 ms per query and forced the palace to drop common terms. Here a
// posting is a slot number and one byte of count per field, the scores
// accumulate in a dense array, and a heap keeps the best k: about 1.5 ms
// for the same queries, with no term dropped.
//
// The index mirrors FTS5's statistics: every document counts in N, the
// document frequencies and the average length, whatever its activity
// (FTS5 indexes every drawer row); activeOnly and the allow filter only
// decide what is returned. Replacing a document leaves a dead slot that
// searches skip (and whose postings they discount from the frequencies)
// until compaction rewrites the posting lists.
//
// What it does not do: positions are not stored, so a query word of
// several tokens (a phrase to FTS5) is approximated; the palace sends such
// queries to FTS5 instead. Counts above 255 per field saturate.
package bm25
