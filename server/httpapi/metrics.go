package httpapi

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/dreamlog"
)

// Metrics collects request and tool counts and latency histograms and
// renders them, with palace gauges read at scrape time, in the Prometheus
// text exposition format (version 0.0.4).
type Metrics struct {
	mu      sync.Mutex
	started time.Time
	reqs    map[[3]string]uint64 // route, method, code
	reqLat  map[string]*histogram
	tools   map[[2]string]uint64 // tool, outcome
	toolLat map[string]*histogram
}

// buckets are the latency histogram bounds, in seconds.
var buckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

type histogram struct {
	counts []uint64 // per bucket, not cumulative; the last is +Inf
	sum    float64
	n      uint64
}

func (h *histogram) observe(sec float64) {
	if h.counts == nil {
		h.counts = make([]uint64, len(buckets)+1)
	}
	i := sort.SearchFloat64s(buckets, sec)
	h.counts[i]++
	h.sum += sec
	h.n++
}

// NewMetrics returns an empty collector.
func NewMetrics() *Metrics {
	return &Metrics{started: time.Now(), reqs: map[[3]string]uint64{}, reqLat: map[string]*histogram{},
		tools: map[[2]string]uint64{}, toolLat: map[string]*histogram{}}
}

// ObserveHTTP records one request. route is the matched pattern (keep
// its cardinality bounded: "other" for unmatched paths).
func (m *Metrics) ObserveHTTP(route, method string, code int, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs[[3]string{route, method, strconv.Itoa(code)}]++
	h := m.reqLat[route]
	if h == nil {
		h = &histogram{}
		m.reqLat[route] = h
	}
	h.observe(d.Seconds())
}

// ObserveTool records one MCP tool call.
func (m *Metrics) ObserveTool(tool string, failed bool, d time.Duration) {
	outcome := "ok"
	if failed {
		outcome = "error"
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tools[[2]string{tool, outcome}]++
	h := m.toolLat[tool]
	if h == nil {
		h = &histogram{}
		m.toolLat[tool] = h
	}
	h.observe(d.Seconds())
}

// Middleware records every request that next serves, labelled with the
// pattern mux matches.
func (m *Metrics) Middleware(mux *http.ServeMux, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		_, route := mux.Handler(r)
		if route == "" {
			route = "other"
		}
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(sw, r)
		m.ObserveHTTP(route, r.Method, sw.code, time.Since(start))
	})
}

// statusWriter remembers the status code; it forwards Flush and Unwrap so
// streams and http.ResponseController keep working.
type statusWriter struct {
	http.ResponseWriter
	code  int
	wrote bool
}

func (s *statusWriter) WriteHeader(code int) {
	if !s.wrote {
		s.code, s.wrote = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	s.wrote = true
	return s.ResponseWriter.Write(b)
}

func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Handler serves GET /metrics. Its gauges name every open palace, so a
// user's token needs the admin scope (the owner's may always).
func (m *Metrics) Handler(reg *palace.Registry, version string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := palace.Allow(r.Context(), "", palace.AccessAdmin); err != nil {
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		var b strings.Builder
		m.write(&b, version)
		writePalaceMetrics(r.Context(), &b, reg)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = io.WriteString(w, b.String())
	})
}

func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

func labels(kv ...string) string {
	parts := make([]string, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		parts = append(parts, kv[i]+`="`+escapeLabel(kv[i+1])+`"`)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func header(b *strings.Builder, name, typ, help string) {
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}

func formatFloat(f float64) string {
	if math.IsInf(f, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func writeHistogram(b *strings.Builder, name, label, value string, h *histogram) {
	var cum uint64
	for i, bound := range buckets {
		cum += h.counts[i]
		fmt.Fprintf(b, "%s_bucket%s %d\n", name, labels(label, value, "le", formatFloat(bound)), cum)
	}
	cum += h.counts[len(buckets)]
	fmt.Fprintf(b, "%s_bucket%s %d\n", name, labels(label, value, "le", "+Inf"), cum)
	fmt.Fprintf(b, "%s_sum%s %s\n", name, labels(label, value), formatFloat(h.sum))
	fmt.Fprintf(b, "%s_count%s %d\n", name, labels(label, value), h.n)
}

func sortedKeys[K comparable, V any](m map[K]V, less func(a, b K) bool) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return less(keys[i], keys[j]) })
	return keys
}

func (m *Metrics) write(b *strings.Builder, version string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	header(b, "loci_build_info", "gauge", "Build information.")
	fmt.Fprintf(b, "loci_build_info%s 1\n", labels("version", version))
	header(b, "loci_uptime_seconds", "gauge", "Seconds since the HTTP companion started.")
	fmt.Fprintf(b, "loci_uptime_seconds %s\n", formatFloat(time.Since(m.started).Seconds()))

	header(b, "loci_http_requests_total", "counter", "HTTP requests by route, method and status code.")
	for _, k := range sortedKeys(m.reqs, func(a, b [3]string) bool { return strings.Join(a[:], "\x00") < strings.Join(b[:], "\x00") }) {
		fmt.Fprintf(b, "loci_http_requests_total%s %d\n", labels("route", k[0], "method", k[1], "code", k[2]), m.reqs[k])
	}
	header(b, "loci_http_request_duration_seconds", "histogram", "HTTP request latency by route.")
	for _, k := range sortedKeys(m.reqLat, func(a, b string) bool { return a < b }) {
		writeHistogram(b, "loci_http_request_duration_seconds", "route", k, m.reqLat[k])
	}
	header(b, "loci_mcp_tool_calls_total", "counter", "MCP tool calls by tool and outcome (error: isError result or JSON-RPC error).")
	for _, k := range sortedKeys(m.tools, func(a, b [2]string) bool { return a[0]+"\x00"+a[1] < b[0]+"\x00"+b[1] }) {
		fmt.Fprintf(b, "loci_mcp_tool_calls_total%s %d\n", labels("tool", k[0], "outcome", k[1]), m.tools[k])
	}
	header(b, "loci_mcp_tool_duration_seconds", "histogram", "MCP tool call latency by tool.")
	for _, k := range sortedKeys(m.toolLat, func(a, b string) bool { return a < b }) {
		writeHistogram(b, "loci_mcp_tool_duration_seconds", "tool", k, m.toolLat[k])
	}
}

// writePalaceMetrics reads sizes, buffers, index lag and dreamer runs of
// the palaces this process has open.
func writePalaceMetrics(ctx context.Context, b *strings.Builder, reg *palace.Registry) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	open := reg.Opened()
	header(b, "loci_palaces_open", "gauge", "Palaces this process has open.")
	fmt.Fprintf(b, "loci_palaces_open %d\n", len(open))
	type row struct {
		name    string
		kinds   map[string]int64
		buf     int64
		failed  int
		lag     int64
		dreams  map[string]int64
		lastSeq int64
	}
	rows := make([]row, 0, len(open))
	for _, p := range open {
		in, err := p.Info(ctx)
		if err != nil {
			continue
		}
		r := row{name: p.Name(), kinds: in.ByKind, dreams: map[string]int64{}, lastSeq: in.LastSeq}
		if bufs, err := p.BufferedCounts(ctx); err == nil {
			for _, n := range bufs {
				r.buf += int64(n)
			}
		}
		if fails, err := p.ExtractionFailures(ctx); err == nil {
			r.failed = len(fails)
		}
		r.lag, _ = p.IndexLag(ctx)
		if counts, err := p.CountEvents(ctx, dreamlog.EventFinished, "status"); err == nil {
			r.dreams = counts
		}
		rows = append(rows, r)
	}
	header(b, "loci_palace_drawers", "gauge", "Active drawers by palace and kind.")
	for _, r := range rows {
		for _, k := range sortedKeys(r.kinds, func(a, b string) bool { return a < b }) {
			fmt.Fprintf(b, "loci_palace_drawers%s %d\n", labels("palace", r.name, "kind", k), r.kinds[k])
		}
	}
	header(b, "loci_palace_session_buffered_messages", "gauge", "Messages waiting in session buffers.")
	for _, r := range rows {
		fmt.Fprintf(b, "loci_palace_session_buffered_messages%s %d\n", labels("palace", r.name), r.buf)
	}
	header(b, "loci_palace_extraction_failing_sessions", "gauge", "Sessions whose extraction failed since it last succeeded (their messages wait in the buffer).")
	for _, r := range rows {
		fmt.Fprintf(b, "loci_palace_extraction_failing_sessions%s %d\n", labels("palace", r.name), r.failed)
	}
	header(b, "loci_palace_index_lag", "gauge", "Drawer changes the in-memory vector index has not replayed yet.")
	for _, r := range rows {
		fmt.Fprintf(b, "loci_palace_index_lag%s %d\n", labels("palace", r.name), r.lag)
	}
	header(b, "loci_palace_last_seq", "gauge", "Highest change-log sequence number.")
	for _, r := range rows {
		fmt.Fprintf(b, "loci_palace_last_seq%s %d\n", labels("palace", r.name), r.lastSeq)
	}
	header(b, "loci_dreamer_runs_total", "counter", "Finished dreamer runs recorded in the change log, by status.")
	for _, r := range rows {
		for _, st := range sortedKeys(r.dreams, func(a, b string) bool { return a < b }) {
			fmt.Fprintf(b, "loci_dreamer_runs_total%s %d\n", labels("palace", r.name, "status", st), r.dreams[st])
		}
	}
}
