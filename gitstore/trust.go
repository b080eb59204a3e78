package gitstore

import (
	"math"
	"time"
)

// Event operations recorded in Memory.Events.
const (
	EventConfirm   = "confirm"
	EventDispute   = "dispute"
	EventReinforce = "reinforce"
	EventSupersede = "supersede"
)

// Age decay (docs/architecture.md, trust and lifecycle): after decayGrace without a confirmation, trust halves
// every decayHalfLife. Preferences do not decay.
const (
	decayGrace    = 90 * 24 * time.Hour
	decayHalfLife = 180 * 24 * time.Hour
)

// EffectiveTrust is the memory's trust at now: its starting trust, moved by each
// event in order, then decayed by age since the last confirmation (or creation).
func (m *Memory) EffectiveTrust(now time.Time) float64 {
	t := m.Trust
	last := m.Created
	for _, e := range m.Events {
		switch e.Op {
		case EventConfirm:
			t += 0.30 * (1 - t)
			last = e.At
		case EventDispute:
			t -= 0.40 * t
		case EventReinforce:
			// The same fact learned by another agent or in another session is
			// stronger evidence than one agent repeating itself.
			gain := 0.10
			if (e.Agent != "" && e.Agent != m.Agent) || (e.Session != "" && e.Session != m.Session) {
				gain = 0.20
			}
			t += gain * (1 - t)
			last = e.At
		case EventSupersede:
			t *= 0.2
		}
	}
	if m.Type != TypePreference {
		if age := now.Sub(last); age > decayGrace {
			t *= math.Pow(0.5, float64(age-decayGrace)/float64(decayHalfLife))
		}
	}
	return roundTrust(math.Max(0, math.Min(1, t)))
}
