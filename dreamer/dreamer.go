package dreamer

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/rs/zerolog"
)

// ShutdownGrace is how long Close waits for dreamer goroutines to exit.
const ShutdownGrace = 2 * time.Second

// Config configures a Manager.
type Config struct {
	Logger zerolog.Logger
	// Interval between maintenance passes; default one minute.
	Interval time.Duration
}

// Manager owns the dreamer goroutines of every open palace.
type Manager struct {
	cfg    Config
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	started map[string]bool
	closed  bool
}

// NewManager returns a manager with no goroutine running yet.
func NewManager(cfg Config) *Manager {
	if cfg.Interval <= 0 {
		cfg.Interval = time.Minute
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{cfg: cfg, ctx: ctx, cancel: cancel, started: map[string]bool{}}
}

// Start launches the dreamer of a palace (once per palace name).
func (m *Manager) Start(p *palace.Palace) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed || m.started[p.Name()] {
		return
	}
	m.started[p.Name()] = true
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		m.loop(p)
	}()
}

func (m *Manager) loop(p *palace.Palace) {
	log := m.cfg.Logger.With().Str("palace", p.Name()).Str("component", "dreamer").Logger()
	t := time.NewTicker(m.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-m.ctx.Done():
			return
		case <-t.C:
			if err := Maintain(m.ctx, p); err != nil && !errors.Is(err, context.Canceled) {
				log.Warn().Err(err).Msg("maintenance pass")
			}
		}
	}
}

// Maintain is the routine pass: flush batched access statistics and save
// the vector index snapshot if it changed.
func Maintain(ctx context.Context, p *palace.Palace) error {
	if err := p.FlushAccess(ctx); err != nil {
		return err
	}
	return p.SaveIndex(ctx)
}

// Close stops every dreamer goroutine and waits for them, at most
// ShutdownGrace. It reports an error if some did not stop in time.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.cancel()
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-time.After(ShutdownGrace):
		return errors.New("dreamer: goroutines still running after shutdown grace")
	}
}
