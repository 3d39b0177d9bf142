package rules

// Direction is exported to the external tests only.
var Direction = direction

// FiringListRoundTrip packs fs in a firingList, as a ReadReplay keeps
// them, and reads them back with the stepper index each was added with.
func FiringListRoundTrip(fs []Firing) (out []Firing, by []int) {
	var l firingList
	for i := range fs {
		l.add(&fs[i], i%3)
	}
	var f Firing
	for it := l.iter(); it.next(&f); {
		out = append(out, f)
		by = append(by, it.by)
	}
	return out, by
}

// StepOf is turn t as the detectors' Step.
var StepOf = stepOf
