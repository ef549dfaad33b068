// Package bm25 is an in-memory BM25 keyword index whose tokens and scores
// agree with SQLite FTS5: its tokenizer reproduces FTS5's
// "porter unicode61 remove_diacritics 2" tokenizer term for term (see
// Tokenize), so its ranking of single-token words equals FTS5's bm25() over
// the same rows. It is the palace's keyword engine; FTS5 is not needed.
//
// Three rules are added to FTS5's. A token holding Chinese, Japanese or
// Korean characters (or Thai, Lao, Khmer or Burmese ones), which unicode61
// leaves a whole clause long, is cut into its characters and their
// overlapping pairs, and a query searches each piece as a term (cjkPieces
// says why). A token of Cyrillic letters is stemmed as Russian
// (russianStem), and one of Arabic letters light-stemmed (arabicStem),
// where FTS5's Porter stemmer leaves them as written. Other text is
// tokenized and scored exactly as FTS5 does.
//
// Why it exists: FTS5 evaluates bm25() through its auxiliary-function API,
// about a microsecond per matching row, and a query must score every row
// that matches any of its terms. At 100k drawers a LoCoMo question matches
// 5,000–20,000 of them (a speaker's name alone matches 11,000), which cost
// 5–15 ms per query and forced the palace to drop common terms. Here the
// scores accumulate in a dense array and a heap keeps the best k: about
// 0.3 ms for the same queries, with no term dropped.
//
// Layout (index.go, postings.go): every array is a flat slice. A posting
// is a varint slot delta with a two-bit tag for the usual counts (about
// 1.6 bytes), the dictionary a byte arena with an open-addressing table;
// about 100 bytes per LoCoMo-like drawer in all (README.md has figures).
// That makes a snapshot the arrays written out and a load the file mapped
// (snapshot.go): a process starts with the index in tens of milliseconds
// at a million drawers, then edits it like one built from scratch.
//
// The index mirrors FTS5's statistics: every document counts in N, the
// document frequencies and the average length, whatever its activity
// (FTS5 indexes every drawer row); activeOnly and the allow filter only
// decide what is returned. Replacing a document leaves a dead slot that
// searches skip (and whose postings they discount from the frequencies)
// until compaction rewrites the posting lists.
//
// A query word of several tokens ("fact_horizon", "e-mail") is a phrase to
// FTS5; the index keeps no positions and answers it from its tokens and
// from the joined pairs it keeps for such words (Search says how, and
// phrase_test.go how well). Counts above 255 per field saturate.
//
// The package imports nothing of loci.
package bm25
