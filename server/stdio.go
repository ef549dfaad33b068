package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// maxLine bounds one NDJSON message.
const maxLine = 32 << 20

// DrainTimeout bounds how long shutdown waits for in-flight calls.
const DrainTimeout = 10 * time.Second

// ServeStdio runs the MCP server over newline-delimited JSON-RPC 2.0: one
// message per line read from in, one response per line written to out,
// each answered by the dispatcher every transport shares (dispatch.go).
//
// It returns nil when in reaches EOF or ctx is cancelled (a signal), after
// letting in-flight calls finish (at most DrainTimeout). Requests execute
// one at a time in arrival order, so a recall sent after a remember sees
// it; ping and notifications are handled as soon as they are read, so a
// slow call can be cancelled. Notifications never get a response, and
// neither does a request the client cancelled with notifications/cancelled.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	l := &stdioLoop{s: s, w: out, inflight: map[string]*call{}, queue: make(chan job, 256)}
	l.wg.Add(1)
	go l.worker()
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		readErr <- readLines(in, lines)
		close(lines)
	}()
	// Calls keep running when ctx is cancelled: shutdown stops reading,
	// then lets them finish.
	callCtx := newConnection(context.WithoutCancel(ctx), "stdio")
	for {
		select {
		case <-ctx.Done():
			s.log.Info().Msg("shutdown requested; draining in-flight calls")
			l.drain()
			return nil
		case line, ok := <-lines:
			if !ok {
				l.drain()
				err := <-readErr
				if errors.Is(err, io.EOF) {
					return nil
				}
				return err
			}
			l.handle(callCtx, line)
		}
	}
}

func readLines(in io.Reader, lines chan<- []byte) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := readLine(r)
		if len(bytes.TrimSpace(line)) > 0 {
			lines <- line
		}
		if err != nil {
			return err
		}
	}
}

// readLine reads up to '\n'. An over-long line is consumed and replaced by
// a marker that the loop answers with a parse error.
func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > maxLine {
			buf = []byte(tooLongMarker)
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			return buf, err
		}
		buf = append(buf, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, err
		}
	}
}

const tooLongMarker = "\x00too-long"

type call struct {
	cancel    context.CancelFunc
	cancelled bool
}

type job struct {
	ctx context.Context
	m   *message
	c   *call
}

type stdioLoop struct {
	s     *Server
	wg    sync.WaitGroup
	queue chan job

	wmu sync.Mutex
	w   io.Writer

	mu       sync.Mutex
	inflight map[string]*call
}

func (l *stdioLoop) drain() {
	close(l.queue)
	done := make(chan struct{})
	go func() { l.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(DrainTimeout):
		l.s.log.Warn().Dur("after", DrainTimeout).Msg("in-flight calls still running at shutdown")
	}
}

// write sends one encoded response (a line, already redacted).
func (l *stdioLoop) write(line []byte) {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	if _, err := l.w.Write(line); err != nil {
		l.s.log.Debug().Err(err).Msg("write response")
	}
}

func (l *stdioLoop) handle(ctx context.Context, line []byte) {
	if string(bytes.TrimSpace(line)) == tooLongMarker {
		l.write(l.s.encodeError(nil, codeParseError, fmt.Sprintf("Parse error: message longer than %d bytes", maxLine)))
		return
	}
	m, resp := l.s.parseMessage(line)
	if m == nil {
		if resp != nil {
			l.write(resp)
		}
		return
	}
	if m.isNotification() {
		l.notification(m)
		return
	}
	if m.Method == "ping" { // answered at once, even behind a slow call
		l.write(l.s.respond(ctx, m))
		return
	}
	cctx, cancel := context.WithCancel(ctx)
	c := &call{cancel: cancel}
	l.mu.Lock()
	l.inflight[string(m.ID)] = c
	l.mu.Unlock()
	l.queue <- job{ctx: cctx, m: m, c: c}
}

// worker executes queued requests in order.
func (l *stdioLoop) worker() {
	defer l.wg.Done()
	for j := range l.queue {
		l.run(j)
	}
}

func (l *stdioLoop) run(j job) {
	defer j.c.cancel()
	key := string(j.m.ID)
	l.mu.Lock()
	skip := j.c.cancelled
	l.mu.Unlock()
	var resp []byte
	if !skip {
		resp = l.s.respond(j.ctx, j.m)
	}
	l.mu.Lock()
	dropped := j.c.cancelled
	if l.inflight[key] == j.c {
		delete(l.inflight, key)
	}
	l.mu.Unlock()
	if dropped || resp == nil {
		return
	}
	l.write(resp)
}

// notification handles a message without an id. None is ever answered;
// only notifications/cancelled does anything: the request it names is
// cancelled and its answer dropped.
func (l *stdioLoop) notification(m *message) {
	if m.Method != "notifications/cancelled" {
		l.s.log.Debug().Str("method", m.Method).Msg("notification")
		return
	}
	if len(m.Params.RequestID) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if c, ok := l.inflight[string(m.Params.RequestID)]; ok {
		c.cancelled = true
		c.cancel()
	}
}
