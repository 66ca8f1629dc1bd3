package policy

import "testing"

func TestQoS(t *testing.T) {
	low := Meta{Size: 1, Priority: PriorityLow}
	high := Meta{Size: 1, Priority: PriorityHigh}
	steps := []step{
		accm(1, low), acc(2), accm(3, high),
		acc(1),    // a hit does not lift 1 out of the low priority
		acc(4, 1), // low first
		acc(5, 2), // then the least recent normal block
		upd(4, low),
		acc(6, 4),            // 4 was lowered: it goes before 5
		acc(4, 5), acc(7, 4), // 4 comes back low: normal 5 goes, then 4 itself
		acc(8, 6), acc(9, 7), // then the normal blocks, oldest first
		acc(10, 8), acc(3), // 3 (high) stays while lower ones remain
		acc(11, 9), acc(12, 10),
	}
	replay(t, mustNew(t, "qos_aware", Env{}), 3, steps)
}

func TestClasses(t *testing.T) {
	tc := Meta{Size: 1, Class: ClassThinkComplete}
	ta := Meta{Size: 1, Class: ClassThinkActive}
	oc := Meta{Size: 1, Class: ClassOutputCritical}
	steps := []step{
		accm(1, oc), accm(2, ta), accm(3, ta),
		acc(2),          // touch reorders within think_active
		accm(4, ta, 3),  // least recent think_active
		upd(4, tc),      // one-way demotion
		accm(5, ta, 4),  // think_complete first, though 4 is the newest
		acc(1),          // output_critical: touched or not, last
		accm(6, ta, 2),  // least recent think_active
		upd(5, oc),      // promotion is ignored while resident
		accm(7, ta, 5),  // so 5 is still think_active, older than 6
		upd(6, tc),      // demoted ...
		accm(6, ta),     // ... and a touch with think_active metadata does not promote it
		accm(8, ta, 6),  // think_complete 6 goes before think_active 7
		accm(9, ta, 7),  // then 7; output_critical 1 stays
		accm(10, ta, 8), //
	}
	replay(t, mustNew(t, "tiered_classes", Env{}), 3, steps)
}

func TestPredictive(t *testing.T) {
	life := func(l float64) Meta { return Meta{Size: 1, Lifetime: l} }
	done := func(n, max int32) Meta { return Meta{Size: 1, SeqLen: n, MaxLen: max} }
	steps := []step{
		accm(1, life(10)), // ends at 11
		accm(2, life(5)),  // ends at 7
		accm(3, done(3, 4)),
		accm(4, done(1, 4)),
		acc(5),
		acc(1),     // lifetime 10 again at step 6: ends at 16
		acc(6, 2),  // shortest remaining lifetime
		acc(7, 1),  // the other known lifetime
		acc(8, 3),  // highest completion ratio
		acc(9, 4),  // the other known ratio
		acc(10, 5), // least recent of the rest
	}
	replay(t, mustNew(t, "predictive", Env{}), 5, steps)

	// A later access with a longer remaining lifetime moves the end past
	// another block's.
	steps = []step{
		accm(1, life(10)), // ends at 11
		accm(2, life(8)),  // ends at 10
		accm(2, life(8)),  // step 3: ends at 11, after 1 (same end, older)
		accm(2, life(9)),  // step 4: ends at 13
		acc(3, 1),
	}
	replay(t, mustNew(t, "predictive", Env{}), 2, steps)
}
