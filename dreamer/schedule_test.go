package dreamer

import (
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/dreamlog"
)

func TestScheduleDue(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	idle, every := 5*time.Minute, 6*time.Hour
	done := dreamlog.Run{Status: dreamlog.Done, SeqBefore: 100, FinishedAt: now.Add(-time.Hour)}
	cases := []struct {
		name string
		s    scheduleState
		want bool
	}{
		{"written a minute ago", scheduleState{ActivitySeq: 120, ActivityAt: now.Add(-time.Minute), HasRun: true, Run: done}, false},
		{"never dreamed, idle", scheduleState{ActivitySeq: 5, ActivityAt: now.Add(-10 * time.Minute)}, true},
		{"never written, never dreamed", scheduleState{}, true},
		{"written since the last run, now idle", scheduleState{ActivitySeq: 120, ActivityAt: now.Add(-10 * time.Minute), HasRun: true, Run: done}, true},
		{"nothing new, ran an hour ago", scheduleState{ActivitySeq: 90, ActivityAt: now.Add(-2 * time.Hour), HasRun: true, Run: done}, false},
		{"nothing new, ran a day ago", scheduleState{ActivitySeq: 90, ActivityAt: now.Add(-48 * time.Hour), HasRun: true,
			Run: dreamlog.Run{Status: dreamlog.Done, SeqBefore: 100, FinishedAt: now.Add(-24 * time.Hour)}}, true},
		{"last run cancelled, idle since", scheduleState{ActivitySeq: 90, ActivityAt: now.Add(-2 * time.Hour), HasRun: true,
			Run: dreamlog.Run{Status: dreamlog.Cancelled, SeqBefore: 100, FinishedAt: now.Add(-10 * time.Minute)}}, true},
		{"last run partial a minute ago", scheduleState{ActivitySeq: 90, ActivityAt: now.Add(-2 * time.Hour), HasRun: true,
			Run: dreamlog.Run{Status: dreamlog.Partial, SeqBefore: 100, FinishedAt: now.Add(-time.Minute)}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, why := c.s.due(now, now, idle, every); got != c.want {
				t.Fatalf("due = %v (%s), want %v", got, why, c.want)
			}
		})
	}
}

func TestConfigFromEnv(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"LOCI_DREAM": "on", "LOCI_DREAM_IDLE": "0", "LOCI_DREAM_BUDGET": "90s", "LOCI_DECAY_HALF_LIFE": "30d",
		"LOCI_DECAY_FLOOR": "0.2", "LOCI_DEDUP_THRESHOLD": "0.9", "LOCI_DREAM_LOCK_TTL": "2s",
	}
	c, err := ConfigFromEnv(Config{}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.Idle >= 0 || c.Settings.Budget != 90*time.Second || c.Settings.HalfLife != 30*24*time.Hour ||
		c.Settings.Floor != 0.2 || c.Settings.DedupThreshold != 0.9 || c.Settings.LockTTL != 2*time.Second {
		t.Fatalf("config %+v", c)
	}
	m := NewManager(c)
	defer m.Close()
	if m.cfg.Idle != 0 {
		t.Fatalf("idle 0 became %v", m.cfg.Idle)
	}
	for k, v := range map[string]string{
		"LOCI_DREAM": "sometimes", "LOCI_DREAM_BUDGET": "soon", "LOCI_DECAY_FLOOR": "2",
		"LOCI_DEDUP_THRESHOLD": "-1", "LOCI_DREAM_TICK": "0", "LOCI_DEBUG_DREAM_DELAY_MS": "x",
	} {
		if _, err := ConfigFromEnv(Config{}, func(key string) string {
			if key == k {
				return v
			}
			return ""
		}); err == nil {
			t.Errorf("%s=%s accepted", k, v)
		}
	}
}

func TestTextCheck(t *testing.T) {
	t.Parallel()
	yes := [][2]string{
		{"The deploy script lives in tools/deploy.sh", "the deploy script lives in tools/deploy.sh!"},
		{"Melanie: I'm so happy for you, that's amazing news about the adoption agency!",
			"Melanie: I am happy for you, that is incredible news about the adoption agency."},
		{"Caroline: Thanks, Mel! The support group has been a huge help for me lately.",
			"Caroline: Thanks, Mel! The support group has been a huge help for me recently."},
	}
	no := [][2]string{
		{"ok", "no"},
		{"I adopted two cats last spring", "I adopted three cats last spring"},
		{"Meeting at 3pm on Friday in room B", "Meeting at 4pm on Friday in room B"},
		{"I like running in the morning before work", "I don't like running in the morning before work"},
		{"We moved the whole team to Boston after the merger", "We moved the whole team to Denver after the merger"},
		{"The staging cluster was opened to contractors last month", "The staging cluster was closed to contractors last month"},
		{"Alice paid Bob for the concert tickets and dinner", "Bob paid Alice for the concert tickets and dinner"},
		{"Caroline went to the support group on Monday", "Caroline went to the support group on Tuesday"},
		{"my kids love camping in the mountains", "my kids hate camping in the mountains"},
	}
	for _, c := range yes {
		if ok, ov := newTextPair(c[0], c[1]).check(0.6); !ok {
			t.Errorf("not near-duplicates (%.2f): %q | %q", ov, c[0], c[1])
		}
	}
	for _, c := range no {
		if ok, ov := newTextPair(c[0], c[1]).check(0.6); ok {
			t.Errorf("near-duplicates (%.2f): %q | %q", ov, c[0], c[1])
		}
	}
}

func TestThresholdLookup(t *testing.T) {
	t.Parallel()
	m := map[string]float64{"a-v1": 0.8, "b-v2": 0.9}
	for _, c := range []struct {
		model string
		want  float64
		ok    bool
	}{
		{"a-v1", 0.8, true},
		{"concat(a-v1*0.5,b-v2*0.5)", 0.85, true},
		{"concat(a-v1*0.25,b-v2*0.75)", 0.88, true},
		{"concat(a-v1*0.5,c-v3*0.5)", 0, false},
		{"c-v3", 0, false},
		{"concat(broken", 0, false},
	} {
		got, ok := lookupThreshold(m, c.model)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: %v %v, want %v %v", c.model, got, ok, c.want, c.ok)
		}
	}
	if got, _ := (Settings{DedupThreshold: 0.5, DedupThresholds: m}).dedupThreshold("a-v1"); got != 0.5 {
		t.Errorf("override ignored: %v", got)
	}
}
