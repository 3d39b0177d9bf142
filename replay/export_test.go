package replay

// SetStreamBounds sets the bounds past which an episode replayed as read
// lets go of what it replayed (historyTable, actionTable, v1EventsKept),
// for the tests of package replay_test, which replay the rules; it
// returns a function that puts them back.
func SetStreamBounds(history, actions, events int) (restore func()) {
	h, a, e := historyTable, actionTable, v1EventsKept
	historyTable, actionTable, v1EventsKept = history, actions, events
	return func() { historyTable, actionTable, v1EventsKept = h, a, e }
}

// SetPoisonRecycled has a steps log's recycled output block written over
// as it is recycled (outputCopies.recycle), for
// TestRecycledOutputsNotHeld; it returns a function that puts it back.
func SetPoisonRecycled(on bool) (restore func()) {
	old := poisonRecycled
	poisonRecycled = on
	return func() { poisonRecycled = old }
}
