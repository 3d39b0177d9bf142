package replay

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/loopbreak/loopbreak/replay/replaytest"
)

// TestHashSet: the set holds what a map[uint64]bool holds, through its
// growths, for keys of every shape: 0 (its empty slot), keys that share
// their low bits (one probe run) and keys at the end of the slots, whose
// probe wraps around.
func TestHashSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 7))
	for _, c := range []struct {
		name string
		key  func(i int) uint64
	}{
		{"random", func(int) uint64 { return rng.Uint64() }},
		{"few", func(int) uint64 { return rng.Uint64N(40) }},
		{"same low bits", func(int) uint64 { return rng.Uint64N(1<<20) << 12 }},
		{"wrapping", func(int) uint64 { return hashSetMin - 1 - rng.Uint64N(4) + rng.Uint64N(3)<<40 }},
		{"zero", func(i int) uint64 { return uint64(i % 2) }},
	} {
		var s hashSet
		want := map[uint64]bool{}
		var tried []uint64
		for i := range 5000 {
			k := c.key(i)
			if s.has(k) != want[k] {
				t.Fatalf("%s: has(%#x) = %v before add %d, want %v", c.name, k, !want[k], i, want[k])
			}
			s.add(k)
			want[k] = true
			tried = append(tried, k, c.key(i))
			if 4*s.n > 3*len(s.slots) {
				t.Fatalf("%s: %d keys in %d slots", c.name, s.n, len(s.slots))
			}
		}
		for _, k := range tried {
			if s.has(k) != want[k] {
				t.Fatalf("%s: has(%#x) = %v, want %v", c.name, k, !want[k], want[k])
			}
		}
		n := s.n
		if s.zero {
			n++
		}
		if n != len(want) {
			t.Errorf("%s: %d keys counted, want %d", c.name, n, len(want))
		}
	}
}

// TestGeminiIDCollisionReadsAgain: ids whose hashes collide (the hash
// cut to a bit or none) make a recording replayed as read look as if it
// wrote a message handed over again: it is read again whole, and comes
// out as a whole read does, never misread; with whole hashes, the
// recordings are replayed as read.
func TestGeminiIDCollisionReadsAgain(t *testing.T) {
	defer func(m uint64) { geminiHashMask = m }(geminiHashMask)
	rng := rand.New(rand.NewPCG(24, 8))
	dir := t.TempDir()
	for trial := range 24 {
		data := replaytest.GeminiLog(rng, 40+rng.IntN(300), trial%4 == 1, trial%4 == 2, trial%4 == 3)
		if trial%6 == 5 {
			data = replaytest.GeminiDoc(rng, 20+rng.IntN(200), false)
		}
		path := filepath.Join(dir, fmt.Sprintf("session-%d", trial))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want, wantTurns := wholeTurns(t, data)
		for _, mask := range []uint64{0, 1, ^uint64(0)} {
			geminiHashMask = mask
			eps, took, err := readTaken(path, nil)
			if err != nil || len(eps) != 1 {
				t.Fatalf("trial %d, mask %#x: %d episodes, %v", trial, mask, len(eps), err)
			}
			got := eps[0]
			if mask == 0 && got.Stepped != nil {
				t.Errorf("trial %d: every id of one hash, yet replayed as read", trial)
			}
			if mask == ^uint64(0) && trial%4 == 0 && got.Stepped == nil {
				t.Errorf("trial %d: a plain recording read again whole", trial)
			}
			if got.Stepped != nil {
				if !reflect.DeepEqual(took, wantTurns) || !reflect.DeepEqual(got.Diag, want.Diag) {
					t.Errorf("trial %d, mask %#x: replayed as read, %d turns, %+v; read whole: %d turns, %+v", trial, mask, len(took), got.Diag, len(wantTurns), want.Diag)
				}
				continue
			}
			// Read again whole: a whole read's episode, but for the
			// outputs, which a read with a stepper does not keep.
			if !reflect.DeepEqual(got.Turns, want.Turns) || !reflect.DeepEqual(got.Steps, want.Steps) || !reflect.DeepEqual(got.Diag, want.Diag) {
				t.Errorf("trial %d, mask %#x: read again, %d turns, %+v; read whole: %d turns, %+v", trial, mask, len(got.Turns), got.Diag, len(want.Turns), want.Diag)
			}
		}
	}
}

// TestGeminiManyHeld: a recording whose "$set" of its messages holds
// more of them at once than are scanned (geminiScanMax: byID indexes
// them, until the window is back to its size), some written twice in
// the one record, then messages written again, rewinds, recovery prompts
// and new messages, near the latest or past the window: replayed as read
// (most), or read again whole, it comes out as a whole read does.
func TestGeminiManyHeld(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 11))
	dir := t.TempDir()
	asRead := 0
	const trials = 60
	for trial := range trials {
		data := manyHeldLog(rng, geminiScanMax/2+rng.IntN(4*geminiScanMax))
		path := filepath.Join(dir, fmt.Sprintf("held-%d.jsonl", trial))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want, wantTurns := wholeTurns(t, data)
		eps, took, err := readTaken(path, nil)
		if err != nil || len(eps) != 1 {
			t.Fatalf("trial %d: %d episodes, %v", trial, len(eps), err)
		}
		got := eps[0]
		if got.Stepped != nil {
			asRead++
			if !reflect.DeepEqual(took, wantTurns) || !reflect.DeepEqual(got.Diag, want.Diag) {
				t.Errorf("trial %d: replayed as read, %d turns, %+v; read whole: %d turns, %+v\n%s", trial, len(took), got.Diag, len(wantTurns), want.Diag, data)
			}
			continue
		}
		if !reflect.DeepEqual(got.Turns, want.Turns) || !reflect.DeepEqual(got.Steps, want.Steps) || !reflect.DeepEqual(got.Diag, want.Diag) {
			t.Errorf("trial %d: read again, %d turns, %+v; read whole: %d turns, %+v\n%s", trial, len(got.Turns), got.Diag, len(want.Turns), want.Diag, data)
		}
	}
	if asRead < trials/2 {
		t.Errorf("only %d of %d recordings replayed as read", asRead, trials)
	}
}

// manyHeldLog is a recording that starts with a "$set" of n messages or
// so (an id in it repeated now and then), then messages, messages
// written again, rewinds and recovery prompts, mostly among the latest.
func manyHeldLog(rng *rand.Rand, n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"sessionId":"s-1","projectHash":"p","startTime":"2025-11-12T14:00:00.000Z","kind":"main"}` + "\n")
	var ids []string
	next := 0
	message := func(id string) string {
		if rng.IntN(3) == 0 {
			return fmt.Sprintf(`{"id":%q,"type":"user","content":[{"text":"go on %d"}]}`, id, rng.IntN(4))
		}
		return fmt.Sprintf(`{"id":%q,"type":"gemini","content":"t%d","toolCalls":[{"name":"run_shell_command","args":{"command":"make %d"},"result":[{"functionResponse":{"response":{"output":"o%d"}}}],"status":"success"}]}`, id, rng.IntN(3), rng.IntN(3), rng.IntN(3))
	}
	add := func(id string) {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	// recent is one of the messages held (a reader replaying as read
	// holds the latest geminiWindow); now and then one further back.
	handed := 0
	recent := func() int {
		if rng.IntN(60) == 0 {
			return rng.IntN(len(ids))
		}
		return handed + rng.IntN(len(ids)-handed)
	}
	var msgs []string
	for range n {
		id := fmt.Sprint("m", next)
		if len(ids) > 0 && rng.IntN(4) == 0 {
			id = ids[rng.IntN(len(ids))] // written twice in the one record
		} else {
			next++
		}
		msgs = append(msgs, message(id))
		add(id)
	}
	fmt.Fprintf(&b, `{"$set":{"messages":[%s]}}`+"\n", strings.Join(msgs, ","))
	for range 40 {
		handed = max(handed, len(ids)-geminiWindow)
		switch r := rng.IntN(10); {
		case r < 4 || len(ids) <= handed:
			next++
			id := fmt.Sprint("m", next)
			b.WriteString(message(id) + "\n")
			add(id)
		case r < 7 && len(ids) > handed:
			b.WriteString(message(ids[recent()]) + "\n")
		case r < 8 && len(ids) > handed:
			k := recent()
			fmt.Fprintf(&b, `{"$rewindTo":%q}`+"\n", ids[k])
			ids = ids[:k]
		case r < 9:
			next++
			fmt.Fprintf(&b, `{"id":"l%d","type":"user","content":[{"text":"System: Potential loop detected. Details: Repeated tool call: f with arguments {}. Please take a step back and confirm you're making forward progress."}]}`+"\n", next)
			add(fmt.Sprint("l", next))
		default:
			fmt.Fprintf(&b, `{"$set":{"sessionId":"s-%d"}}`+"\n", rng.IntN(9))
		}
	}
	b.WriteString(`{"id":"last","type":"gemini","content":"done"}` + "\n") // a step, whatever was rewound
	return b.Bytes()
}

// TestGeminiRewrittenLast: a recording whose last record writes again
// its first gemini message, handed over long before (unless a rewind
// took it back), is read again whole, however the lookup falls in
// handedIDs' batch (geminiIDBatch): the read is told at its end
// (finishEach), where no record follows to tell it.
func TestGeminiRewrittenLast(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 13))
	dir := t.TempDir()
	again := 0
	for n := range 2 * geminiIDBatch {
		data := replaytest.GeminiLog(rng, 30+n, false, false, false)
		first := bytes.Index(data, []byte(`{"id":"g`))
		if first < 0 {
			continue
		}
		line := data[first : first+bytes.IndexByte(data[first:], '\n')+1]
		data = append(data, bytes.Replace(line, []byte(`"content":`), []byte(`"content":"rewritten","x":`), 1)...)
		path := filepath.Join(dir, fmt.Sprintf("last-%d.jsonl", n))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want, wantTurns := wholeTurns(t, data)
		eps, took, err := readTaken(path, nil)
		if err != nil || len(eps) != 1 {
			t.Fatalf("%d: %d episodes, %v", n, len(eps), err)
		}
		got := eps[0]
		if n%8 == 0 {
			// From a pipe, read again from its spool.
			t.Setenv("TMPDIR", t.TempDir())
			if piped, _ := turnsTaken(t, data); (piped[0].Stepped == nil) != (got.Stepped == nil) ||
				got.Stepped == nil && !reflect.DeepEqual(piped[0].Turns, want.Turns) {
				t.Errorf("%d records: from a pipe, replayed as read %v, from the file %v", 30+n, piped[0].Stepped != nil, got.Stepped != nil)
			}
		}
		if got.Stepped != nil {
			if !reflect.DeepEqual(took, wantTurns) {
				t.Errorf("%d records: replayed as read, %d turns; read whole, %d", 30+n, len(took), len(wantTurns))
			}
			continue
		}
		again++
		if !reflect.DeepEqual(got.Turns, want.Turns) || !reflect.DeepEqual(got.Steps, want.Steps) || !reflect.DeepEqual(got.Diag, want.Diag) {
			t.Errorf("%d records: read again, %d turns; read whole, %d", 30+n, len(got.Turns), len(want.Turns))
		}
	}
	if again < geminiIDBatch {
		t.Errorf("only %d of %d recordings read again", again, 2*geminiIDBatch)
	}
}

// TestSlab: a slab's slices are zero, of the length asked, apart (an
// append to one does not write the next), and one longer than a slab
// is a slab of its own.
func TestSlab(t *testing.T) {
	var s slab[int]
	var got [][]int
	for _, n := range []int{1, 3, slabLen - 4, 2, slabLen + 5, 0, 1} {
		p := s.take(n)
		if len(p) != n || slices.ContainsFunc(p, func(v int) bool { return v != 0 }) {
			t.Fatalf("take(%d) = %v", n, p)
		}
		for i := range p {
			p[i] = len(got) + 1
		}
		got = append(got, p)
	}
	for i, p := range got {
		_ = append(p, -1) // past its cap: a copy
		if slices.ContainsFunc(p, func(v int) bool { return v != i+1 }) {
			t.Errorf("slice %d overwritten: %v", i, p)
		}
		if i+1 < len(got) && len(got[i+1]) > 0 && got[i+1][0] != i+2 {
			t.Errorf("an append to slice %d wrote slice %d: %v", i, i+1, got[i+1])
		}
	}
}
