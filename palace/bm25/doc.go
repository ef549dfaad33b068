// Package bm25 is an in-memory BM25 keyword index whose tokens and scores
// agree with SQLite FTS5: its tokenizer reproduces FTS5's
// "porter unicode61 remove_diacritics 2" tokenizer term for term (see
// Tokenize), so its ranking equals FTS5's bm25() over the same rows.
package bm25
