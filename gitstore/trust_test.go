package gitstore

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestTrustModel(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	ev := func(op, agent string) Event { return Event{Op: op, At: t0, Agent: agent} }
	cases := []struct {
		name      string
		source    string
		tentative bool
		typ       string
		events    []Event
		age       time.Duration
		want      float64
	}{
		{"user", SourceUser, false, TypeFact, nil, 0, 0.90},
		{"verified", SourceVerified, false, TypeFact, nil, 0, 0.75},
		{"inferred", SourceInferred, false, TypeFact, nil, 0, 0.50},
		{"inferred, tentative", SourceInferred, true, TypeFact, nil, 0, 0.30},
		{"confirmed: t += 0.30(1-t)", SourceInferred, false, TypeFact, []Event{ev(EventConfirm, "a")}, 0, 0.65},
		{"disputed: t -= 0.40t", SourceInferred, false, TypeFact, []Event{ev(EventDispute, "b")}, 0, 0.30},
		{"reinforced by the same agent: +0.10(1-t)", SourceInferred, false, TypeFact, []Event{ev(EventReinforce, "a")}, 0, 0.55},
		{"reinforced by another agent: +0.20(1-t)", SourceInferred, false, TypeFact, []Event{ev(EventReinforce, "b")}, 0, 0.60},
		{"superseded: x0.2", SourceUser, false, TypeFact, []Event{ev(EventSupersede, "a")}, 0, 0.18},
		{"90 days old: no decay yet", SourceUser, false, TypeFact, nil, 90 * day, 0.90},
		{"270 days old: halved", SourceUser, false, TypeFact, nil, 270 * day, 0.45},
		{"450 days old: quartered", SourceUser, false, TypeFact, nil, 450 * day, 0.225},
		{"preferences do not decay", SourceUser, false, TypePreference, nil, 450 * day, 0.90},
		{"a confirmation restarts the clock", SourceUser, false, TypeFact, []Event{{Op: EventConfirm, At: t0.Add(200 * day), Agent: "a"}}, 270 * day, 0.93},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := &Memory{Type: tc.typ, Source: tc.source, Agent: "a", Trust: StartingTrust(tc.source, tc.tentative), Created: t0, Events: tc.events}
			require.InDelta(t, tc.want, m.EffectiveTrust(t0.Add(tc.age)), 0.001)
		})
	}
}
