package replay

// An attempts record read by the steps reader's flat loop (flatLine):
// every member of an attempts record is a top-level name of its own, as
// a flat steps record's are, and parseFields' general walk (a callback
// a member, each key validated and looked up, each value validated
// again by its own call) was a third of an attempts log's instructions.

import "unsafe"

// attemptFlat reads an attempts line by flatLine, with the names of
// attemptKeys in its paths (their fields flatLine's, in attemptKeys'
// order), or says the line is the general reading's (parseFields).
type attemptFlat struct {
	p    stepPaths
	vals [numStepFields]rawValue
}

func newAttemptFlat() *attemptFlat {
	f := &attemptFlat{}
	f.p.first, f.p.keys, f.p.flat = attemptKeys, attemptFieldKeys, true
	f.p.stepNext.none()                    // the zero guess takes any word (newStepPaths sets it so too)
	if len(attemptKeys) <= numStepFields { // flatLine fills numStepFields values
		f.p.flatKeys = newFlatKeys(attemptKeys)
	} else {
		f.p.flatKeys = &flatKeys{}
	}
	return f
}

// read returns the values of attemptKeys' members of line, as
// parseFields(line, attemptFieldKeys, vals) sets them but null, which is
// nil (absent, as attemptReader.add reads null), and true; or false for
// a line flatLine does not read whole, which the caller reads the
// general way.
func (f *attemptFlat) read(line []byte) ([]rawValue, bool) {
	if !f.p.flatKeys.ok {
		return nil, false
	}
	f.vals = [numStepFields]rawValue{}
	if end := f.p.flatLine(line, &f.vals, nil); end < 0 || flatBlanks(line, end) != len(line) {
		return nil, false
	}
	return f.vals[:len(attemptKeys)], true
}

// attemptRun is the bytes from vals[0]'s first to vals[4]'s last, the
// task id's value to the session id's, when the five are present and
// each after the one before in the line they are all views of: what
// they read into depends on those bytes alone (the value at their start
// and the last member of each other name among them, the line's last),
// and the memo finds it by them with no key built.
func attemptRun(vals []rawValue) ([]byte, bool) {
	vals = vals[:5]
	var at uintptr
	for k := range vals {
		v := (*sliceHeader)(unsafe.Pointer(&vals[k])) // not copied
		p := uintptr(v.data)
		if v.len == 0 || p < at {
			return nil, false
		}
		at = p + uintptr(v.len)
	}
	p0 := unsafe.SliceData(vals[0])
	return unsafe.Slice(p0, at-uintptr(unsafe.Pointer(p0))), true
}
