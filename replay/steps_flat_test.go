package replay

import (
	"bytes"
	"testing"
	"unsafe"
)

// flatSeeds are steps lines of the shapes flatLine reads and of those it
// leaves to the general reading (escaped, non-ASCII or long keys, NaN,
// tabs, cut or invalid lines, empty objects, repeated members).
var flatSeeds = []string{
	`{"step": 1, "action": "run_tests", "output": "3 tests failed\nFAIL: test_login: expected 200, got 500", "error": true, "kind": "action", "score": 0, "location": "repo/auth"}`,
	`{"step":2,"action":"edit","output":"ok","error":false,"kind":"message","score":1.5e3,"location":"a"}`,
	`{"step": 3, "output": "first 0123456789abcdef0123456789abcdef", "output": "second, 0123456789abcdef0123456789abcdef"}`,
	`{"step": 4, "output": "0123456789abcdef0123456789abcdef", "output": 5}`,
	`{"step": 5, "output": "0123456789abcdef0123456789abcdef", "output": null}`,
	`{"step": 6, "outp\u0075t": "escaped key 0123456789abcdef0123456789abcdef"}`,
	`{"step": 7, "location": "x", "exit_code": 2, "llm_loop": true, "score": -1}`,
	`{"step": 8, "score": NaN, "error": Infinity, "kind": -Infinity}`,
	`{"step": 9, "score": 01}`,
	`{"step": 10,	"score": 1}`,
	`{"step": 11, "score": 1.}`,
	`{"step": 12, "action": {"cmd": ["ls", 1, null]}, "output": [1, 2]}`,
	`{}`,
	`{ }`,
	`{"step": 13}  `,
	`{"step": 14} x`,
	`{"step": 15, "location": "caf` + "\xc3\xa9" + `", "acti` + "\xc3\xb3" + `n": "a"}`,
	`{"step": 16, "output": "cut 0123456789abcdef0123456789abcdef`,
	`{"step": 17, "kind": "action", "error": "no", "score": "3", "step": 18}`,
	`{"a_rather_long_key_name": 1, "step": 19, "output": "x\"y\\z\u00e9"}`,
	`{"step": 20, "error": tru}`,
	`{"step": 21, "error": fals}`,
	`{"step": 22, "error": nul}`,
	`{"step": 23, "action": "a` + "\x01" + `b"}`,
	`{"step" : 24 , "action" : "a" }`,
	`{"step": 25, "iteration": 26, "out_text_body": "text 0123456789abcdef0123456789abcdef", "where": "here"}`,
	`{"step": -0, "score": 0.5, "exit_code": 1e2}`,
	`{"": 1, "step": 27, "locatioN": "x", "location": "y", "llm_loop": 1}`,
	"{\"st\x01p\": 28, \"step\": 29}",
	"{\"st\xffp\": 30, \"step\": 31, \"location\xff\": 1}",
	`{"step":32,"output":"x","location":"abcdefghijklmnopq"}`,
	`{"step": 33, "location": "a\"b", "kind": "x\\"}`,
	`{"step": 34, "locatio\u006e": "z", "kind\"": 1}`,
	`{"step"` + "\t" + `: 35}`,
	`{"step": 36,` + "\n" + ` "score": 2}`,
	`{"step": 37, "step": null}`,
	`{"a":1}`,
	`{"000000": `,
	"{\"step\": 38, \"kind\": \"ab\x01, \"x\": 1, \"location\": \"somewhere\"}",
	"{\"step\": 39, \"kind\": \"abcdefghij\x01, \"x\": 1, \"location\": \"somewhere\"}",
	`{"000000": 1, `,
	`{"step":12,"score":345,"action":"ab","output":"x","error":false}`,
	`{"step":41,"score":678,"exit_code":10}`,
	`{"step": 42,x"score": 2}`,
	`{"step"::43}`,
	`{"step": 40,"score": 6, "action":"xy" ,"location" :"abc"}`,
	"{\"step\": 50, \"x\": [1,\n2], \"score\": 1}",
	"{\"step\": 51, \"x\": {\"a\": 1}, \"output\": \"0123456789abcdef0123456789abcdef0123456789\"}",
}

// flatFields are --field mappings that keep a reader flat: the default,
// and names of other lengths (one over 8 bytes, read past the word).
var flatFields = []map[string]string{
	nil,
	{"step": "iteration", "output": "out_text_body", "location": "where", "kind": "k"},
}

// FuzzStepFlatLine holds flatLine to the general reading of a line
// (parseFieldsCopy, then null as nil): a line it reads gives the general
// reading's values, the same bytes of the line, and the same output
// written through the copy, under each flat mapping; a line it does not
// read is left to the general reading, which lineStep then gives.
func FuzzStepFlatLine(f *testing.F) {
	for _, s := range flatSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		for _, fields := range flatFields {
			checkFlatLine(t, line, fields)
		}
	})
}

// FuzzStepFlatLineAfter is FuzzStepFlatLine of a line read after
// another, whose keys flatLine notes and tells the line's by (the key
// and ": " as bytes, stepPaths.next).
func FuzzStepFlatLineAfter(f *testing.F) {
	for i, s := range flatSeeds {
		f.Add([]byte(flatSeeds[(i+1)%len(flatSeeds)]), []byte(s))
		f.Add([]byte(s), []byte(s))
	}
	f.Fuzz(func(t *testing.T, before, line []byte) {
		for _, fields := range flatFields {
			checkFlatLineAfter(t, [][]byte{before}, line, fields)
		}
	})
}

// TestStepFlatLineAfterSeeds reads each seed after each seed, and after
// itself: the keys noted from the first told in the second.
func TestStepFlatLineAfterSeeds(t *testing.T) {
	for _, b := range flatSeeds {
		for _, s := range flatSeeds {
			for _, fields := range flatFields {
				checkFlatLineAfter(t, [][]byte{[]byte(b)}, []byte(s), fields)
			}
		}
	}
}

func TestStepFlatLineSeeds(t *testing.T) {
	read := 0
	for _, s := range flatSeeds {
		for _, fields := range flatFields {
			if checkFlatLine(t, []byte(s), fields) {
				read++
			}
		}
	}
	if read < len(flatSeeds)/2 {
		t.Errorf("flatLine read %d of %d seeds: the fast path is not taken", read, 2*len(flatSeeds))
	}
}

// TestFlatKeys: every short name is found by its word in its own slot,
// and names the fast reading cannot take as bytes turn it off.
func TestFlatKeys(t *testing.T) {
	for _, fields := range flatFields {
		p := newStepPaths(fields)
		fk := p.flatKeys
		if !fk.ok {
			t.Fatalf("%v: no table", fields)
		}
		for f, name := range p.first {
			s := flatSlot(shortWord(name), fk.mul)
			if len(name) <= 8 && (fk.word[s] != shortWord(name) || int(fk.field[s]) != f) {
				t.Errorf("%v: %q in slot %d: %x %d", fields, name, s, fk.word[s], fk.field[s])
			}
		}
	}
	for _, name := range []string{`a\b`, `a"b`, "a\x01", "caf\u00e9"} {
		if p := newStepPaths(map[string]string{"kind": name}); p.flat && p.flatKeys.ok {
			t.Errorf("%q: read as bytes", name)
		}
	}
}

// checkFlatLine checks flatLine on line against the general reading and
// reports whether flatLine read it.
func checkFlatLine(t *testing.T, line []byte, fields map[string]string) bool {
	t.Helper()
	return checkFlatLineAfter(t, nil, line, fields)
}

// checkFlatLineAfter is checkFlatLine of line read after the lines
// before, whose keys flatLine notes (stepPaths.next) and tells in line
// by them.
func checkFlatLineAfter(t *testing.T, before [][]byte, line []byte, fields map[string]string) bool {
	t.Helper()
	fast, plain := newStepPaths(fields), newStepPaths(fields)
	if !fast.flat {
		t.Fatalf("%v: not flat", fields)
	}
	fast.copies, plain.copies = &outputCopies{}, &outputCopies{}
	fcp, pcp := &fast.outCopy, &plain.outCopy
	fcp.c, pcp.c = fast.copies, plain.copies
	line = bytes.Clone(line)
	checkFlatLineStep(t, before, line, fields)
	var got, want [numStepFields]rawValue
	for _, b := range before {
		var vals [numStepFields]rawValue
		fast.flatLine(bytes.Clone(b), &vals, fcp)
		fcp.at, fast.numAt = nil, [2]uintptr{}
	}
	end := fast.flatLine(line, &got, fcp)
	ok := end >= 0 && flatBlanks(line, end) == len(line)
	_, err := parseFieldsCopy(line, plain.keys, want[:], pcp)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("%q %v: flatLine read a line the general reading rejects: %v", line, fields, err)
	}
	for f, x := range want {
		if len(x) > 0 && x[0] == 'n' {
			want[f] = nil
		}
	}
	for f := range want {
		g, w := got[f], want[f]
		if (g == nil) != (w == nil) || !bytes.Equal(g, w) || cap(g) != len(g) || len(g) > 0 && unsafe.SliceData(g) != unsafe.SliceData(w) {
			t.Fatalf("%q %v: field %s %q, the general reading %q", line, fields, StepFields[f], g, w)
		}
	}
	if (fcp.at == nil) != (pcp.at == nil) || fcp.at != nil && (fcp.at != pcp.at || !bytes.Equal(fcp.text, pcp.text)) {
		t.Fatalf("%q %v: output written %q, the general reading %q", line, fields, fcp.text, pcp.text)
	}
	// lineStep, which takes the fast path, gives the general reading's step.
	gotStep, gotReason := lineStep(line, fast)
	wantStep, wantReason := stepOf(&want, plain)
	if gotReason != wantReason || gotStep.output != wantStep.output || gotStep.n != wantStep.n || gotStep.action != wantStep.action || gotStep.info != wantStep.info || gotStep.location != wantStep.location || gotStep.score != wantStep.score {
		t.Fatalf("%q %v: %+v %q, the general reading %+v %q", line, fields, gotStep, gotReason, wantStep, wantReason)
	}
	return true
}

// checkFlatLineStep checks flatLineStep on line followed by a newline and
// more lines, with the outputs' block's room ample, short and none:
// the line it reads is the one nextLine cuts, read as lineStep reads it,
// or it reads none.
func checkFlatLineStep(t *testing.T, before [][]byte, line []byte, fields map[string]string) {
	t.Helper()
	for _, after := range []string{"", "\n", `{"step": 99, "output": "next"}` + "\n", " x\n"} {
		for _, room := range []int{outputBlock, len(line) / 2, 0} {
			rest := append(append(bytes.Clone(line), '\n'), after...)
			fused, plain := newStepPaths(fields), newStepPaths(fields)
			fused.copies, plain.copies = &outputCopies{block: make([]byte, 0, room)}, &outputCopies{}
			for _, b := range before {
				var r stepRecord
				flatLineStep(&r, append(bytes.Clone(b), '\n'), fused, 1<<20)
			}
			var got stepRecord
			n, reason := flatLineStep(&got, rest, fused, 1<<20)
			if n == 0 {
				continue
			}
			first := rest[:bytes.IndexByte(rest, '\n')]
			if n != len(first)+1 {
				t.Fatalf("%q %v: flatLineStep read %d bytes of %q, its first line %d", line, fields, n, rest, len(first))
			}
			want, wantReason := lineStep(first, plain)
			if reason != wantReason || got != want {
				t.Fatalf("%q %v (room %d): %+v %q, lineStep %+v %q", rest, fields, room, got, reason, want, wantReason)
			}
		}
	}
}
