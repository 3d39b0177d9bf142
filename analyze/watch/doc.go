// Package watch follows logs as agents write them and reports each rule's
// firings as they become final: `loopbreak watch`.
//
// # The same firings as analyze
//
// What watch reports for a log, once the log is finished, is what
// `analyze --format jsonl` reports for it: the same firings, in the same
// order, each the same object. That is by construction, not by a second
// implementation of the rules: each time complete lines land, the
// session's file is read again from its start, up to its last newline,
// by the reader analyze uses (replay.Stream, with the same options and
// format detection), and every episode it gives is replayed by
// analyze.Analyze (rules.Run) under the same configuration. Of an
// episode's firings, those already reported are skipped and the new ones
// reported.
//
// Stepping the rules incrementally instead, turn by turn as turns become
// final, would not be exact with the engine as it is: the turn table is
// built from the whole episode (replay/build.go: the group of plausible
// turn numbers, gaps filled up to a budget, room ids or names chosen as
// the location key by whether any line carries ids, names paired with
// ids, a score carried forward), and a rule's state is made from the
// whole table (rules.Rule.New reads Episode.StartKeys, ObjectiveTurns;
// Rule.AppliesTo reads Episode.Outputs and HasScore). A later line can
// change any of those. Reading the prefix again is the smallest scheme
// that stays exact: a firing is decided from the same table analyze
// would build from the same bytes.
//
// A firing is reported once it is final: when its turn is not the
// table's last (a later turn completed), when the episode's own end
// record arrived (Episode.RecordedEnd), when the session ends (idle,
// deleted, interrupted), or when the file has been quiet for
// Options.Settle. A turn's row is complete at its turn_completed (ZorkGPT
// logs only live decisions after it, which no rule reads) and a step's at
// its record, so settling does not wait for the next turn. Should a later
// read nevertheless give an episode whose firings do not begin with those
// reported (a hash of them is kept), a Revised event says so and the new
// list is followed from there.
//
// # Cost
//
// Memory per session is what analyze holds for its file (replay.Stream's
// bounded open episodes, an episode's firings) plus, per episode, a count
// and a hash of the firings reported and the few firings of its last
// turn. CPU is a read of the file per batch of lines: quadratic over a
// run. A ZorkGPT log is read only when the new lines hold a
// turn_completed or an end record, the only lines that can make a firing
// final (update's doc), so a run costs a read per turn, not per line;
// a run of a few thousand turns (megabytes) does not notice. A session
// whose read takes d is read at most once per 2d, so a huge log costs at
// most about a third of a core, however fast it grows. Idle sessions cost
// nothing: the loop sleeps on file system events (fsnotify) or, with
// Options.Poll (or when a directory cannot be watched), wakes once per
// interval to stat the sessions and rescan the directories.
//
// # Files
//
// A partial last line waits for its newline (the read stops at the last
// one). A file that shrinks below what was read (truncation), whose first
// bytes changed (truncated and written again between two looks) or whose
// path names a new file (replacement: another inode) starts its session
// over and says so (Restart); a deleted file ends its session. A file
// that is one JSON document (an OpenHands trajectory, a Gemini CLI
// session-*.json), rewritten whole at each change, is read whole on each
// change once it is valid JSON again (a rewrite in place truncates, then
// writes), and only firings not reported before are reported. A
// compressed log is read whole on each change too.
package watch
