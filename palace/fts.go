package palace

import (
	"context"
	"sort"
	"strings"
	"unicode"
)

// stopwords are dropped from keyword queries: they match nearly every
// drawer and drown the words that carry the question. The list is the
// usual English function words plus question words ("when", "did").
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are
	as at be because been before being below between both but by can could did do does doing down
	during each few for from further had has have having he her here hers herself him himself his how
	i if in into is it its itself just me more most my myself no nor not now of off on once only or
	other our ours ourselves out over own same she should so some such than that the their theirs them
	themselves then there these they this those through to too under until up very was we were what
	when where which while who whom why will with would you your yours yourself yourselves also ever
	s t don doesn didn isn wasn aren weren won wouldn shouldn couldn ve ll re d m o y let lets get got
	tell say said like may might must shall much many`) {
		m[w] = true
	}
	return m
}()

// maxQueryTerms bounds the size of a generated MATCH expression.
const maxQueryTerms = 48

// queryTerms splits free text into lower-cased search terms the way FTS5's
// unicode61 tokenizer would, dropping stopwords (unless nothing else is
// left) and duplicates.
func queryTerms(text string) []string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	})
	var kept, all []string
	seen := map[string]bool{}
	for _, w := range words {
		w = strings.Trim(w, "_")
		if w == "" || seen[w] {
			continue
		}
		seen[w] = true
		all = append(all, w)
		if !stopwords[w] {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		kept = all
	}
	if len(kept) > maxQueryTerms {
		kept = kept[:maxQueryTerms]
	}
	return kept
}

// matchExpr turns free text into a safe FTS5 MATCH expression: every term
// becomes a quoted string (so apostrophes, hyphens, colons and FTS5
// keywords in the user's text are plain words), ORed together so BM25 ranks
// drawers by how many and how rare the matched terms are. It returns "" when
// the text has no searchable term.
func matchExpr(text string) string {
	return orTerms(queryTerms(text))
}

func orTerms(terms []string) string {
	if len(terms) == 0 {
		return ""
	}
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(t, `"`, `""`))
		b.WriteByte('"')
	}
	return b.String()
}

// Common-term pruning. BM25 scores every drawer matching any query term,
// so one very common term makes a query score most of the palace while
// adding almost nothing to the ranking (its inverse document frequency is
// near zero). Terms are therefore taken rarest first until their document
// frequencies add up to keywordDocBudget; the rest are dropped. The rarest
// term is always kept. In palaces smaller than the budget nothing is
// dropped.
const keywordDocBudget = 10000

// keywordExpr builds the MATCH expression for a query, dropping terms too
// common to pay for (see keywordDocBudget).
func (p *Palace) keywordExpr(ctx context.Context, text string) (string, error) {
	terms := queryTerms(text)
	if len(terms) < 2 {
		return orTerms(terms), nil
	}
	// MAX(rid) is an index lookup where count(*) would scan: drawer rows
	// are never deleted (forgetting only changes their status), so it is
	// the number of rows the FTS index holds.
	var total int64
	if err := p.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(rid), 0) FROM drawers`).Scan(&total); err != nil {
		return "", internal("keyword search", err)
	}
	if total <= keywordDocBudget {
		return orTerms(terms), nil
	}
	df := make(map[string]int64, len(terms))
	for _, t := range terms {
		n, err := p.docFreq(ctx, t, total)
		if err != nil {
			return "", err
		}
		df[t] = n
	}
	byRarity := append([]string(nil), terms...)
	sort.SliceStable(byRarity, func(a, b int) bool { return df[byRarity[a]] < df[byRarity[b]] })
	keep := map[string]bool{}
	var sum int64
	for i, t := range byRarity {
		if i > 0 && sum+df[t] > keywordDocBudget {
			break
		}
		sum += df[t]
		keep[t] = true
	}
	kept := make([]string, 0, len(keep))
	for _, t := range terms { // keep the query's order
		if keep[t] {
			kept = append(kept, t)
		}
	}
	return orTerms(kept), nil
}

// dfCache remembers document frequencies; an entry is reused while the
// palace's size stays within 10% of the size it was computed at.
type dfEntry struct{ df, total int64 }

// docFreq counts the drawers (of any status) whose text contains term,
// up to keywordDocBudget+1.
func (p *Palace) docFreq(ctx context.Context, term string, total int64) (int64, error) {
	p.dfMu.Lock()
	e, ok := p.dfCache[term]
	p.dfMu.Unlock()
	if ok && e.total*10 >= total*9 && e.total*10 <= total*11 {
		return e.df, nil
	}
	// Counting stops past the budget: a term that common is dropped anyway,
	// and counting a huge posting list would cost more than the search.
	var n int64
	err := p.db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM drawers_fts WHERE drawers_fts MATCH ? LIMIT ?)`,
		orTerms([]string{term}), keywordDocBudget+1).Scan(&n)
	if err != nil {
		return 0, internal("keyword search", err)
	}
	p.dfMu.Lock()
	if p.dfCache == nil || len(p.dfCache) > 4096 {
		p.dfCache = map[string]dfEntry{}
	}
	p.dfCache[term] = dfEntry{n, total}
	p.dfMu.Unlock()
	return n, nil
}
