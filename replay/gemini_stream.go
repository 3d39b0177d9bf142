package replay

// A Gemini CLI session replayed as it is read. Any later record may take
// a message back (a message written again under its id replaces it in
// place, "$rewindTo" drops it and all after it, "$set" with messages
// replaces them all), so the reader holds a session to its end (the
// CLI's loader does the same) and hands its steps over there. Replayed as
// read, it hands a message's steps over once geminiWindow newer messages
// are read, and keeps only its id: the CLI writes a message again as it
// grows, most often the one it wrote last. Should a later record change a
// message handed over (failed), the replay so far is wrong, and the file
// is read again whole (errRereadWhole): a regular file from its start, a
// pipe from a spool of what was read and then the rest (spool.go). Where
// nothing reads the input again (Read, Stream, a pipe without a spool),
// the session is held to its end as before (speculate is off).

import (
	"errors"
	"hash/maphash"
)

// geminiWindow is how many of the latest messages are held, not handed
// over: a message written again after that many newer ones costs the
// session a second read.
const geminiWindow = 8

// errRereadWhole says a read replayed as read went wrong and the file
// must be read again whole, without Options.Stepper (readFile does).
var errRereadWhole = errors.New("read the file again whole")

// release returns recs with the steps of the messages now past the
// window appended, when the session is replayed as read. With no recs,
// they are in g.released, the last call's steps, which the caller has
// added (copied) to its table by now.
func (g *geminiReader) release(recs []stepRecord) []stepRecord {
	if !g.speculate || g.failed || len(g.msgs)-geminiWindow <= g.handedTo {
		return recs
	}
	reuse := len(recs) == 0
	if reuse {
		clear(g.released) // let go of their strings
		recs = g.released[:0]
	}
	g.handOver(len(g.msgs)-geminiWindow, func(r *stepRecord) error { recs = append(recs, *r); return nil })
	if reuse && cap(recs) <= geminiReleasedMax {
		g.released = recs
	}
	return recs
}

// geminiReleasedMax bounds g.released: a "$set" of a session's messages
// hands them over at once.
const geminiReleasedMax = 64

// replaceMessages empties the session for a "$set" of its messages.
func (g *geminiReader) replaceMessages() {
	if g.handedTo > 0 {
		g.failed = true // messages handed over replaced
		return
	}
	g.msgs, g.byID = g.msgs[:0], nil
	g.held = geminiHeld{}
}

// speculationFailed says a record changed a message already handed over.
func (g *geminiReader) speculationFailed() bool { return g.failed }

// recordReleased is recordRaw, with the steps released (release). A
// touch (geminiTouch, two records in five) changes no message: the
// release after the record before it left none to release.
func (g *geminiReader) recordReleased(raw []byte, line int) ([]stepRecord, string) {
	if geminiTouch(raw) {
		g.lastLine = line
		return nil, ""
	}
	recs, reason := g.recordRead(raw, line)
	if reason == "" {
		recs = g.release(recs)
	}
	return recs, reason
}

// handedID notes the id of a message handed over, and lets go of it: by
// its 64-bit hash (m.hash), so that a session's ids are not held to its
// end. Two ids of one hash make a message written again look handed
// over: the file is then read again whole, never misread.
func (g *geminiReader) handedID(m *geminiMsg) {
	delete(g.byID, m.id)
	g.queueID(m.hash, true)
}

// geminiIDOp is an addition to handedIDs, or a lookup, which fails the
// read when it finds the hash.
type geminiIDOp struct {
	hash uint64
	add  bool
}

// geminiIDBatch is how many of handedIDs' additions and lookups wait to
// be made together. A long session's set outgrows the caches: one by
// one, each lookup (a message new to the session) waited for a miss to
// memory, 4-5% of a recording's reading; a batch's misses are waited
// for together (no lookup waits for another's result). A message
// handed over written again is then told some messages late, the read
// going on meanwhile as if it were new: all the same, that read is
// dropped and the file read again whole, by the first check of failed
// after the batch (the next record's, or finishEach's).
const geminiIDBatch = 32

// queueID queues an addition to handedIDs or a lookup, in order: a
// lookup sees exactly the additions queued before it, as if made then.
func (g *geminiReader) queueID(hash uint64, add bool) {
	g.idOps = append(g.idOps, geminiIDOp{hash, add})
	if len(g.idOps) == geminiIDBatch {
		g.flushIDs()
	}
}

// flushIDs makes the additions and lookups queued.
func (g *geminiReader) flushIDs() {
	for _, op := range g.idOps {
		if op.add {
			g.handedIDs.add(op.hash)
		} else if g.handedIDs.has(op.hash) {
			g.failed = true
		}
	}
	g.idOps = g.idOps[:0]
}

var geminiIDSeed = maphash.MakeSeed()

// geminiHashMask is all ones: a test lowers it to make ids collide.
var geminiHashMask = ^uint64(0)

// geminiIDHash is the hash handedIDs keeps of a message's id.
func geminiIDHash(id string) uint64 { return maphash.String(geminiIDSeed, id) & geminiHashMask }

// holds says id is a message held, not handed over ("" never is).
func (g *geminiReader) holds(id string) bool {
	i, ok := g.lookup(id)
	return ok && i >= g.handedTo
}

// holdsAny says a message is held: g.msgs[g.handedTo:] holds no hole
// (rewind drops the last messages, handOver the first).
func (g *geminiReader) holdsAny() bool { return len(g.msgs) > g.handedTo }

// geminiScanMax is the most messages held, replayed as read, that are
// found by a scan of their ids' hashes: the window's few are, where a map
// had each message's id hashed, added and deleted again (byID). Past it
// (a "$set" of many messages), byID indexes them until the window is
// back to its size (handOver).
const geminiScanMax = 32

// find is where message id is held; hash is its geminiIDHash when the
// session is replayed as read.
func (g *geminiReader) find(id string, hash uint64) (int, bool) {
	if g.byID != nil || !g.speculate {
		i, ok := g.byID[id]
		return i, ok
	}
	if !g.held.may(hash) {
		return 0, false // a new message, most of them: no scan
	}
	for i := g.handedTo; i < len(g.msgs); i++ {
		if m := g.msgs[i]; m != nil && m.hash == hash && m.id == id {
			return i, true
		}
	}
	return 0, false
}

// lookup is find, id hashed where it needs it.
func (g *geminiReader) lookup(id string) (int, bool) {
	var hash uint64
	if g.speculate && g.byID == nil {
		hash = geminiIDHash(id)
	}
	return g.find(id, hash)
}

// index notes the last message added, id, in byID: where byID is kept
// (a session held to its end, a window grown past geminiScanMax), or
// made now that the messages held are too many to scan.
func (g *geminiReader) index(id string) {
	switch last := len(g.msgs) - 1; {
	case g.byID != nil:
		g.byID[id] = last
	case !g.speculate:
		g.byID = map[string]int{id: last}
	case last+1-g.handedTo > geminiScanMax:
		g.byID = make(map[string]int, 2*geminiScanMax)
		for i := g.handedTo; i <= last; i++ {
			if m := g.msgs[i]; m != nil {
				g.byID[m.id] = i
			}
		}
	}
}

// geminiSessionSoFar says a session document's members read before its
// messages make it a session whose messages are kept by id (readRecord:
// sessionId and projectHash, no "$rewindTo", "id" or "$set"), so they can
// be handed over as they are read.
func geminiSessionSoFar(top *jsValue) bool {
	_, session := top.get("sessionId").text()
	_, project := top.get("projectHash").text()
	return session && project && top.get("$rewindTo") == nil && top.get("id") == nil && top.get("$set") == nil
}

// geminiSessionKeys are the members that, read after the messages, could
// change how the messages read: past them, the file is read again whole.
var geminiSessionKeys = map[string]bool{"sessionId": true, "projectHash": true, "messages": true, "$rewindTo": true, "id": true, "$set": true}

// handOverRead hands over the steps of the messages past the window, as
// a session document's messages are read (out), or says the file must be
// read again whole.
func (g *geminiReader) handOverRead() error {
	if g.failed {
		return errRereadWhole
	}
	if recs := g.release(nil); len(recs) > 0 {
		return g.out(recs)
	}
	return nil
}

// setOut gives the reader where the steps it hands over while a session
// document is read go (readSteps: the table).
func (g *geminiReader) setOut(out func([]stepRecord) error) { g.out = out }

// geminiFreeMax bounds the messages kept for newMsg: a session read
// whole lets all of its messages go at its end, which are not held on.
const geminiFreeMax = 64

// letGo clears a message let go of (handed over, or written again), and
// its steps, and keeps it, its steps' array with it, for newMsg: a
// session replayed as read lets a message go for about every one it
// reads, where each was a new one from the slabs, cleared by the
// allocator. Its steps may be in slabs (reduceFields), which are let go
// only once all they hold is.
func (g *geminiReader) letGo(m *geminiMsg) {
	clear(m.steps)
	*m = geminiMsg{steps: m.steps[:0]}
	if len(g.freeMsgs) < geminiFreeMax {
		g.freeMsgs = append(g.freeMsgs, m)
	}
}

// newMsg is a message for reduceFields to fill: one let go of, else a
// new one.
func (g *geminiReader) newMsg() *geminiMsg {
	if n := len(g.freeMsgs); n > 0 {
		m := g.freeMsgs[n-1]
		g.freeMsgs = g.freeMsgs[:n-1]
		return m
	}
	return &g.msgSlab.take(1)[0]
}

// geminiHeld counts the messages held, replayed as read, by their id
// hashes' low six bits: a message new to the session (most messages a
// recording adds) finds its count 0 seven times in eight (a window of
// geminiWindow) and is not looked for, where find compared its hash with
// each message held, a scan of the window for every message read.
type geminiHeld [64]int32

// add counts a message held from now on, drop one no longer held; may
// says a message of that hash may be held.
func (h *geminiHeld) add(hash uint64)      { h[hash&63]++ }
func (h *geminiHeld) drop(hash uint64)     { h[hash&63]-- }
func (h *geminiHeld) may(hash uint64) bool { return h[hash&63] != 0 }
