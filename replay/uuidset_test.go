package replay

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestIDSet: two ids are one exactly when their strings are: a
// lowercase UUID by its bytes, an uppercase one, a malformed one or any
// other string as itself.
func TestIDSet(t *testing.T) {
	var s idSet
	for _, c := range []struct {
		id   string
		seen bool
	}{
		{"3f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5c", false},
		{"3f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5c", true},
		{"3F2B6C1E-9A4D-4E8B-B1C2-0D9E8F7A6B5C", false}, // another string
		{"3F2B6C1E-9A4D-4E8B-B1C2-0D9E8F7A6B5C", true},
		{"3f2b6c1e9a4d4e8bb1c20d9e8f7a6b5c", false},     // no hyphens: another string
		{"3f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5", false},  // 35 characters
		{"3f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5g", false}, // not hex
		{"3f2b6c1e-9a4d-4e8b-b1c2_0d9e8f7a6b5c", false}, // not a hyphen
		{"3f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5g", true},
		{"00000000-0000-0000-0000-000000000000", false},
		{"msg_01", false},
		{"msg_01", true},
	} {
		if got := s.add(c.id); got != c.seen {
			t.Errorf("add(%q) = %v, want %v", c.id, got, c.seen)
		}
	}
}

// FuzzIDSet holds idSet to a set of strings.
func FuzzIDSet(f *testing.F) {
	f.Add("3f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5c", "3f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5C", "x")
	f.Add("", "-", "00000000-0000-0000-0000-000000000000")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		var s idSet
		ref := map[string]bool{}
		for _, id := range []string{a, b, c, b, a, c} {
			if got, want := s.add(id), ref[id]; got != want {
				t.Fatalf("add(%q) = %v, want %v", id, got, want)
			}
			ref[id] = true
		}
	})
}

// TestIDSetUUIDCompact: a Claude Code uuid costs its 16 bytes in the
// set, not a copy of its string.
func TestIDSetUUIDCompact(t *testing.T) {
	var s idSet
	s.add("3f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5c")
	if s.uuids.n != 1 || len(s.other) != 0 {
		t.Fatalf("a lowercase uuid: %d uuids, %d others; want 1, 0", s.uuids.n, len(s.other))
	}
	if n := testing.AllocsPerRun(100, func() { s.add("3f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5d") }); n != 0 {
		t.Errorf("adding a uuid read again allocated %v times", n)
	}
}

// TestUUIDTableGrows holds the table to a map over enough UUIDs to grow
// it many times: ids in sequence (as written by hand), ids whose first
// or last eight bytes are zero (a slot is told empty by both words) and
// random ones, each added twice, in another order the second time.
func TestUUIDTableGrows(t *testing.T) {
	var s idSet
	ref := map[string]bool{}
	r := rand.New(rand.NewPCG(1, 2))
	var ids []string
	for i := range 20000 {
		ids = append(ids, fmt.Sprintf("c0000000-0000-4000-8000-%012x", i),
			fmt.Sprintf("00000000-0000-0000-8000-%012x", i),
			fmt.Sprintf("%08x-0000-4000-0000-000000000000", i+1),
			fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.Uint32()&0xffff, r.Uint32()&0xfff, r.Uint32()&0xfff, r.Uint64()&(1<<48-1)))
	}
	ids = append(ids, "00000000-0000-0000-0000-000000000000")
	for round := range 2 {
		for _, id := range ids {
			if got, want := s.add(id), ref[id]; got != want {
				t.Fatalf("round %d: add(%q) = %v, want %v", round, id, got, want)
			}
			ref[id] = true
		}
		r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	}
	if s.uuids.n != len(ref)-1 || !s.uuids.zero || len(s.other) != 0 {
		t.Fatalf("%d uuids (zero %v), %d others; want %d", s.uuids.n, s.uuids.zero, len(s.other), len(ref)-1)
	}
}

// parseUUIDRef is parseUUID as it was, a digit at a time with a branch
// for digits and letters: the reference parseUUID is held to.
func parseUUIDRef(s string) (u [16]byte, ok bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, false
	}
	hex := func(c byte) (byte, bool) {
		switch {
		case '0' <= c && c <= '9':
			return c - '0', true
		case 'a' <= c && c <= 'f':
			return c - 'a' + 10, true
		}
		return 0, false
	}
	j := 0
	for i := 0; i < 36; {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			i++
			continue
		}
		hi, ok1 := hex(s[i])
		lo, ok2 := hex(s[i+1])
		if !ok1 || !ok2 {
			return u, false
		}
		u[j] = hi<<4 | lo
		i, j = i+2, j+1
	}
	return u, true
}

// uuidLayout is a UUID's bytes (parseUUIDRef's) as parseUUID orders
// them, in its two words, each little-endian: the digits of each of the four words hexWord reads (w, the
// UUID's bytes 4w to 4w+3) are in its bytes 0, 2, 4 and 6, each the
// value of two digits, the first its low four bits; two words' bytes
// interleaved, the second's at the odd ones.
func uuidLayout(ref [16]byte) uuid128 {
	var u [16]byte
	for w := range 4 {
		for q := range 4 {
			r := ref[4*w+q]
			u[8*(w>>1)+2*q+w&1] = r<<4 | r>>4
		}
	}
	return uuid128{binary.LittleEndian.Uint64(u[:8]), binary.LittleEndian.Uint64(u[8:])}
}

// TestParseUUIDEveryByte holds parseUUID to parseUUIDRef with every byte
// value written at every place of a UUID (a digit, a letter, uppercase,
// a hyphen where a digit goes, a digit where a hyphen goes, bytes past
// 0x7F).
func TestParseUUIDEveryByte(t *testing.T) {
	for _, base := range []string{"3f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5c", "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"} {
		for at := range len(base) {
			for c := range 256 {
				b := []byte(base)
				b[at] = byte(c)
				s := string(b)
				u, ok := parseUUID(s)
				ru, rok := parseUUIDRef(s)
				if ok != rok || ok && u != uuidLayout(ru) {
					t.Fatalf("parseUUID(%q) = %x, %v; want %x, %v", s, u, ok, ru, rok)
				}
			}
		}
	}
}

// FuzzParseUUID holds parseUUID to parseUUIDRef.
func FuzzParseUUID(f *testing.F) {
	f.Add("3f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5c")
	f.Add("3f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5C")
	f.Add("3f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5:")
	f.Fuzz(func(t *testing.T, s string) {
		u, ok := parseUUID(s)
		ru, rok := parseUUIDRef(s)
		if ok != rok || ok && u != uuidLayout(ru) {
			t.Fatalf("parseUUID(%q) = %x, %v; want %x, %v", s, u, ok, ru, rok)
		}
	})
}

// BenchmarkParseUUID parses random lowercase UUIDs, as Claude Code
// writes them.
func BenchmarkParseUUID(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	ids := make([]string, 1024)
	for i := range ids {
		ids[i] = fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.Uint32()&0xffff, r.Uint32()&0xfff, r.Uint32()&0xfff, r.Uint64()&(1<<48-1))
	}
	b.Run("table", func(b *testing.B) {
		var sink byte
		for i := range b.N {
			u, _ := parseUUID(ids[i&1023])
			sink += byte(u.hi)
		}
		_ = sink
	})
	b.Run("ref", func(b *testing.B) {
		var sink byte
		for i := range b.N {
			u, _ := parseUUIDRef(ids[i&1023])
			sink += u[15]
		}
		_ = sink
	})
}

// TestPrefetchUUIDHint: a record whose uuid stands where the last one's
// stood, counted from the end, has it found before it is read; one
// written otherwise, or whose id there is no UUID, has not (it is
// prefetched when read). The hint changes no reading: a uuid read twice
// is still one (the second record dropped), hinted or not.
func TestPrefetchUUIDHint(t *testing.T) {
	rec := func(uuid, tail string) []byte {
		return []byte(`{"type":"assistant","isSidechain":false,"message":{"role":"assistant","content":[{"type":"text","text":"hi"}]},"uuid":"` + uuid + `"` + tail + `}`)
	}
	const a, b = "3f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5c", "4f2b6c1e-9a4d-4e8b-b1c2-0d9e8f7a6b5c"
	ts := `,"timestamp":"2026-11-20T10:00:03.000Z"`
	var c claudeCodeReader
	if c.prefetchUUID(rec(a, ts)) {
		t.Fatal("the first record hinted: no uuid read yet")
	}
	if steps, why := c.recordRaw(rec(a, ts), 1); len(steps) != 1 || why != "" {
		t.Fatalf("first record: %d steps, %q", len(steps), why)
	}
	r := rec(b, ts)
	if at := len(r) - c.uuidFromEnd; string(r[at+1:at+37]) != b {
		t.Fatalf("uuidFromEnd %d points at %q", c.uuidFromEnd, r[at:])
	}
	for _, tc := range []struct {
		raw  []byte
		want bool
	}{
		{rec(b, ts), true},
		{rec(a, ts), true},
		{rec(b, `,"timestamp":"2026-11-20T10:00:03Z"`), false}, // another tail
		{rec("msg_01-0000-0000-0000-000000000000000", ts), false},
		{rec("3F2B6C1E-9A4D-4E8B-B1C2-0D9E8F7A6B5C", ts), false},
		{[]byte(`{"uuid":"` + b + `"}`), false},
		{[]byte(`{}`), false},
	} {
		if got := c.prefetchUUID(tc.raw); got != tc.want {
			t.Errorf("prefetchUUID(%s) = %v, want %v", tc.raw, got, tc.want)
		}
	}
	// Read again: a's record hinted and dropped as read, b's read.
	if steps, why := c.recordRaw(rec(a, ts), 2); len(steps) != 0 || why != "" {
		t.Fatalf("a read again: %d steps, %q", len(steps), why)
	}
	if steps, why := c.recordRaw(rec(b, ts), 3); len(steps) != 1 || why != "" {
		t.Fatalf("b: %d steps, %q", len(steps), why)
	}
}
