package dreamer

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/dreamlog"
	"github.com/loci-mem/loci/palace/session"
	"github.com/rs/zerolog"
)

// ShutdownGrace is how long Close waits for dreamer goroutines to exit.
const ShutdownGrace = 2 * time.Second

// Config configures a Manager.
type Config struct {
	Logger zerolog.Logger
	// Interval between maintenance passes (flush access statistics, save
	// the vector snapshot); default one minute.
	Interval time.Duration

	// Disabled turns the scheduled passes off (maintenance still runs).
	Disabled bool
	// Idle is how long a palace must go without a write (from any
	// process) before passes start; default DefaultIdle, negative means
	// no wait.
	Idle time.Duration
	// Every is how often passes run again when nothing was written since
	// the last complete run (decay and staleness move with time); default
	// DefaultEvery.
	Every time.Duration
	// Tick is how often the schedule is checked; default the smaller of
	// 30 s and half of Idle, at least 50 ms.
	Tick time.Duration
	// Settings tune the passes.
	Settings Settings
	// Wall is the clock of the cross-process lock and of run records;
	// default time.Now. Passes use the palace's own clock.
	Wall func() time.Time
}

// Manager owns the dreamer goroutines of every open palace.
type Manager struct {
	cfg    Config
	owner  string
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
	if cfg.Idle == 0 {
		cfg.Idle = DefaultIdle
	}
	if cfg.Idle < 0 {
		cfg.Idle = 0
	}
	if cfg.Every <= 0 {
		cfg.Every = DefaultEvery
	}
	if cfg.Tick <= 0 {
		cfg.Tick = min(30*time.Second, max(cfg.Idle/2, 50*time.Millisecond))
	}
	if cfg.Wall == nil {
		cfg.Wall = time.Now
	}
	cfg.Settings = cfg.Settings.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{cfg: cfg, owner: NewOwner(), ctx: ctx, cancel: cancel, started: map[string]bool{}}
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
	maint := time.NewTicker(m.cfg.Interval)
	defer maint.Stop()
	var tick <-chan time.Time
	if !m.cfg.Disabled {
		t := time.NewTicker(m.cfg.Tick)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-m.ctx.Done():
			return
		case <-maint.C:
			if err := Maintain(m.ctx, p); err != nil && !errors.Is(err, context.Canceled) {
				log.Warn().Err(err).Msg("maintenance pass")
			}
		case <-tick:
			m.maybeDream(p, log)
		}
	}
}

// maybeDream runs the passes when the schedule says the palace is due.
func (m *Manager) maybeDream(p *palace.Palace, log zerolog.Logger) {
	due, why, err := m.due(m.ctx, p)
	if err != nil {
		if m.ctx.Err() == nil {
			log.Warn().Err(err).Msg("dream schedule")
		}
		return
	}
	if !due {
		return
	}
	log.Debug().Str("why", why).Msg("dream run starting")
	rep, err := Run(m.ctx, p, RunOptions{Settings: m.cfg.Settings, Trigger: "schedule", Owner: m.owner,
		Wall: m.cfg.Wall, Logger: log})
	var busy *BusyError
	switch {
	case errors.As(err, &busy):
		log.Debug().Str("holder", busy.Holder.Owner).Msg("another process is dreaming on this palace")
	case err != nil && m.ctx.Err() == nil:
		log.Warn().Err(err).Msg("dream run")
	case rep != nil:
		log.Info().Str("run", rep.RunID).Str("status", rep.Status).Int("changes", rep.Changes).
			Dur("took", rep.FinishedAt.Sub(rep.StartedAt)).Msg("dream run finished")
	}
}

// due applies the schedule to a palace's state.
func (m *Manager) due(ctx context.Context, p *palace.Palace) (bool, string, error) {
	seq, at, err := p.LastActivity(ctx)
	if err != nil {
		return false, "", err
	}
	last, ok, err := dreamlog.Of(p).LastRun(ctx)
	if err != nil {
		return false, "", err
	}
	s := scheduleState{ActivitySeq: seq, ActivityAt: at, HasRun: ok, Run: last}
	d, why := s.due(p.Now(), m.cfg.Wall(), m.cfg.Idle, m.cfg.Every)
	return d, why, nil
}

// Maintain is the routine pass: flush batched access statistics, queue
// the vectors a stopped process left unmade (once; palace.ResumeEmbedding),
// extract the conversations that have gone quiet (session.FlushQuiet: a
// client need not call /flush for a conversation's last stretch to become
// memories), calibrate the vector index when it asks for it, and save the
// index snapshot if it changed. Calibration (palace.CalibrateIndex) is index
// upkeep, not consolidation, so it runs here too and not only in the
// index pass: with the scheduled passes off (LOCI_DREAM=off) a graph or
// projection would otherwise stay held off, and every search scan, for
// the life of the process. It waits until this process has been asked
// enough questions, and never loads an index no search has loaded.
func Maintain(ctx context.Context, p *palace.Palace) error {
	if err := p.FlushAccess(ctx); err != nil {
		return err
	}
	if _, err := p.ResumeEmbedding(ctx); err != nil {
		return err
	}
	_, quiet := session.Of(p).FlushQuiet(ctx) // a failed extraction must not hold the index upkeep back
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if p.IndexInfo().Loaded {
		if _, err := p.CalibrateIndex(ctx); err != nil {
			return errors.Join(quiet, err)
		}
	}
	return errors.Join(quiet, p.SaveIndex(ctx))
}

// Close stops every dreamer goroutine and waits for them, at most
// ShutdownGrace. A pass in progress is cancelled: its transaction rolls
// back, so the palace keeps the state before that pass. Close reports an
// error if some goroutine did not stop in time.
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
