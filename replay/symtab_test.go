package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestSymtabRoundTrip interns strings of every size class (empty, short,
// chunk-filling, a chunk of their own) past several chunks and pages, by
// string and by bytes, and reads each back, in place and after reindex.
func TestSymtabRoundTrip(t *testing.T) {
	var st symtab
	if st.str(0) != "" || st.str(7) != "" || st.len() != 0 {
		t.Fatal("an empty table has strings")
	}
	if st.sym("") != 0 || st.bytes(nil) != 0 || st.len() != 0 {
		t.Fatal("the empty string is not Sym 0")
	}
	var want []string
	for i := range 3 * pagedLen {
		s := "s" + strconv.Itoa(i)
		switch i % 500 {
		case 1:
			s = strings.Repeat("x", arenaOwn+i) // a chunk of its own
		case 2:
			s = strings.Repeat("y", arenaOwn-3) + strconv.Itoa(i) // just over
		case 3:
			s = strings.Repeat("z", arenaOwn-1-len(strconv.Itoa(i))) + strconv.Itoa(i) // just under
		}
		want = append(want, s)
	}
	ids := make([]Sym, len(want))
	for i, s := range want {
		if i%2 == 0 {
			ids[i] = st.sym(s)
		} else {
			ids[i] = st.bytes([]byte(s))
		}
		if int(ids[i]) != i+1 {
			t.Fatalf("string %d: Sym %d, want %d (order of first appearance)", i, ids[i], i+1)
		}
	}
	check := func(when string) {
		t.Helper()
		if st.len() != len(want)+1 {
			t.Fatalf("%s: len %d, want %d", when, st.len(), len(want)+1)
		}
		for i, s := range want {
			if got := st.str(ids[i]); got != s {
				t.Fatalf("%s: Sym %d reads %.20q (%d bytes), want %.20q (%d bytes)", when, ids[i], got, len(got), s, len(s))
			}
			// Again, by the other route: the same Sym, nothing added.
			var again Sym
			if i%2 == 0 {
				again = st.bytes([]byte(s))
			} else {
				again = st.sym(s)
			}
			if again != ids[i] {
				t.Fatalf("%s: %.20q interned again as %d, want %d", when, s, again, ids[i])
			}
		}
		if st.len() != len(want)+1 {
			t.Fatalf("%s: looking up added strings", when)
		}
	}
	check("interned")
	if len(st.chunks) < 3 || st.refs.len() < 3*pagedLen {
		t.Fatalf("%d chunks, %d refs: the test does not cross chunks and pages", len(st.chunks), st.refs.len())
	}
	for c, b := range st.chunks {
		if cap(b) > arenaMax && len(b) != cap(b) {
			t.Errorf("chunk %d: %d of %d bytes used, beyond arenaMax", c, len(b), cap(b))
		}
	}
	built := st.strings()
	st = built
	if st.ids.n != 0 {
		t.Fatal("strings() keeps the index")
	}
	st.reindex()
	check("reindexed")
}

// TestSymtabStringsStay: a string read from the table keeps its bytes
// while more strings are added (the arena never rewrites or moves them).
func TestSymtabStringsStay(t *testing.T) {
	var st symtab
	first := st.str(st.sym("kitchen"))
	var held []string
	for i := range 100_000 {
		held = append(held, st.str(st.sym("room "+strconv.Itoa(i))))
	}
	if first != "kitchen" {
		t.Fatalf("first string now %q", first)
	}
	for i, s := range held {
		if s != "room "+strconv.Itoa(i) {
			t.Fatalf("string %d now %q", i, s)
		}
	}
	// The index has outgrown the caches: lookups go through recent
	// first, whose slots many strings share.
	if st.ids.recent == nil {
		t.Fatal("no recent entries at 100k strings")
	}
	n := st.len()
	for _, i := range []int{99_999, 99_998, 0, 50_000, 99_999, 0, 1, 4096, 4096 + recentLen} {
		s := "room " + strconv.Itoa(i)
		for range 2 {
			if id := st.bytes([]byte(s)); st.str(id) != s {
				t.Fatalf("%q looked up as %d (%q)", s, id, st.str(id))
			}
		}
	}
	if st.len() != n {
		t.Fatalf("looking up added %d strings", st.len()-n)
	}
}

func TestPagedGrow(t *testing.T) {
	var p paged[int32]
	for _, n := range []int{1, 63, 64, 65, 1000, pagedLen, pagedLen + 1, 5*pagedLen + 3} {
		p.grow(n)
		if p.len() < n {
			t.Fatalf("grow(%d): len %d", n, p.len())
		}
		*p.at(n - 1) = int32(n)
	}
	for _, n := range []int{1, 63, 64, 65, 1000, pagedLen, pagedLen + 1, 5*pagedLen + 3} {
		if got := *p.at(n - 1); got != int32(n) {
			t.Errorf("element %d: %d after growing, want %d", n-1, got, n)
		}
	}
	for i := 1; i < len(p); i++ {
		if len(p[i]) != pagedLen {
			t.Errorf("page %d holds %d", i, len(p[i]))
		}
	}
}

// TestSymtabFolded: folded agrees with FoldName on ASCII (its own
// folding) and beyond (FoldName's), and is computed once per Sym.
func TestSymtabFolded(t *testing.T) {
	var st symtab
	for _, s := range []string{"West of House", "  west  OF\thouse \n", "West\vof\fHouse\r", "x", " ", "\t\n",
		"ÉTAGE  Supérieur", "a\u00a0b", "a\u0085b", "İstanbul", "\xff\xfeBAD", "Straße", "K"} {
		id := st.sym(s)
		want := FoldName(s)
		f := st.folded(id)
		if st.str(f) != want {
			t.Errorf("folded(%q) = %q, want %q", s, st.str(f), want)
		}
		if again := st.folded(id); again != f {
			t.Errorf("folded(%q) again: %d, want %d", s, again, f)
		}
	}
	if st.folded(0) != 0 {
		t.Error("folded(0) is not 0")
	}
}

func FuzzAppendFoldASCII(f *testing.F) {
	for _, s := range []string{"", "West of House", " a  b ", "\x00\x1f A", "ÉTAGE", "a\u00a0b", "\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := appendFoldASCII([]byte("prefix"), s)
		if !ok {
			if string(got) != "prefix" {
				t.Fatalf("not ASCII, but dst changed: %q", got)
			}
			return
		}
		if want := "prefix" + FoldName(s); string(got) != want {
			t.Fatalf("appendFoldASCII(%q) = %q, want %q", s, got, want)
		}
	})
}

// TestDistinctStringsAllocs: reading an episode whose every turn brings
// new rooms, actions and replies allocates per chunk and page, not per
// string (it was six objects a turn: a string each, a folded name's
// three), so the collector has nothing per string to mark.
func TestDistinctStringsAllocs(t *testing.T) {
	const turns = 20_000
	data := distinctLog(turns)
	allocs := testing.AllocsPerRun(1, func() {
		eps, err := Read(bytes.NewReader(data), "d.jsonl", "d", Options{Outputs: true})
		if err != nil || len(eps) != 1 || len(eps[0].Turns) != turns {
			t.Fatalf("read: %v", err)
		}
	})
	if allocs > turns/10 {
		t.Errorf("%.0f allocations for %d turns of distinct strings, want at most %d", allocs, turns, turns/10)
	}
}

// TestSymtabPrefetch: prefetching a move's room id and name (past the
// size where prefetch reads slots) changes no Sym: a table interning the
// same ids, names and folds with and without it numbers them alike.
func TestSymtabPrefetch(t *testing.T) {
	var with, without symtab
	for i := range recentFrom {
		id := json.RawMessage(strconv.Itoa(i % 5000))
		if i%3 == 0 {
			id = json.RawMessage(`"r` + strconv.Itoa(i) + `"`)
		}
		name := json.RawMessage(`"Room ` + strconv.Itoa(i%7000) + ` Of  The Maze"`)
		with.prefetchRoomID(id)
		with.prefetchName(name)
		with.load()
		if with.ids.npend != 0 {
			t.Fatal("load left slots noted")
		}
		for _, st := range []*symtab{&with, &without} {
			st.roomID(id)
			if n, ok := st.text(name); ok {
				st.folded(n)
			}
		}
	}
	if with.ids.recent == nil {
		t.Fatal("the test never prefetched: the index is below recentFrom")
	}
	if with.len() != without.len() {
		t.Fatalf("%d Syms with prefetch, %d without", with.len(), without.len())
	}
	for k := range with.len() {
		if a, b := with.str(Sym(k)), without.str(Sym(k)); a != b {
			t.Fatalf("Sym %d: %q with prefetch, %q without", k, a, b)
		}
	}
}

// TestRoomNamesOnFirstAsk: a ZorkGPT episode makes RoomNames at its
// first RoomName, once, whichever goroutines ask at once (go test -race
// sees them).
func TestRoomNamesOnFirstAsk(t *testing.T) {
	log := `{"event_type": "map_movement_update", "episode_id": "e", "turn": 1, "from_room_id": 1, "from_room": " West of House ", "to_room_id": 2, "to_room": "North of House"}
{"event_type": "turn_completed", "episode_id": "e", "turn": 1, "action": "north", "score": 0, "location": "North of House"}
{"event_type": "map_movement_update", "episode_id": "e", "turn": 2, "from_room_id": 2, "from_room": "North of House", "to_room_id": 1, "to_room": "West of House"}
{"event_type": "turn_completed", "episode_id": "e", "turn": 2, "action": "south", "score": 0, "location": "West of House"}
`
	eps, err := Read(strings.NewReader(log), "e.jsonl", "e", Options{})
	if err != nil || len(eps) != 1 {
		t.Fatalf("read: %v", err)
	}
	ep := eps[0]
	if len(ep.RoomNames) != 0 || ep.rooms == nil {
		t.Fatalf("RoomNames made before a name was asked: %v", ep.RoomNames)
	}
	want := map[string]string{"1": "West of House", "2": "North of House", "3": "3", "": "?"}
	done := make(chan string, 8)
	for g := range 8 {
		go func() {
			for k, w := range want {
				if got := ep.RoomName(k); got != w {
					done <- fmt.Sprintf("goroutine %d: RoomName(%q) = %q, want %q", g, k, got, w)
					return
				}
			}
			done <- ""
		}()
	}
	for range 8 {
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
	if len(ep.RoomNames) != 2 {
		t.Errorf("RoomNames %v, want the two rooms", ep.RoomNames)
	}
}

// TestSymtabStrUnchecked holds str, which indexes the refs and the arena
// with no bounds tests, to strChecked, the same with every index tested:
// for every Sym below and past the table's length, in tables of no
// string, of one, and of strings over several pages and chunks (chunks
// of their own among them), unindexed ones too, in the table and in a
// built episode's copy of it; and Episode.Str, through both its tables.
func TestSymtabStrUnchecked(t *testing.T) {
	tables := map[string]func() *symtab{
		"empty": func() *symtab { return &symtab{} },
		"one":   func() *symtab { st := &symtab{}; st.sym("kitchen"); return st },
		"pages and chunks": func() *symtab {
			st := &symtab{}
			for i := range 2*pagedLen + 17 {
				s := "room " + strconv.Itoa(i)
				switch i % 700 {
				case 1:
					s = strings.Repeat("x", arenaOwn+i) // a chunk of its own
				case 2:
					s = strings.Repeat("y", arenaOwn-1) + strconv.Itoa(i)
				}
				if i%3 == 0 {
					st.appendUnindexed([]byte(s))
				} else {
					st.bytes([]byte(s))
				}
			}
			return st
		},
	}
	probe := func(name string, st *symtab) {
		t.Helper()
		ids := []Sym{1 << 30, actTag - 1, Sym(st.len()), Sym(st.len() + 1), Sym(st.len() + pagedLen)}
		for id := range Sym(st.len()) {
			ids = append(ids, id)
		}
		for _, id := range ids {
			if got, want := st.str(id), st.strChecked(id); got != want {
				t.Fatalf("%s: str(%d) = %.20q (%d bytes), strChecked %.20q (%d bytes)", name, id, got, len(got), want, len(want))
			}
		}
	}
	for name, make := range tables {
		st := make()
		probe(name, st)
		built := st.strings()
		probe(name+", built", &built)

		var e Episode
		e.syms, e.acts = *make(), *make()
		for id := range Sym(st.len() + 2) {
			if got, want := e.Str(id), e.syms.strChecked(id); got != want {
				t.Fatalf("%s: Episode.Str(%d) = %.20q, want %.20q", name, id, got, want)
			}
			if got, want := e.Str(id|actTag), e.acts.strChecked(id); got != want {
				t.Fatalf("%s: Episode.Str(%d|actTag) = %.20q, want %.20q", name, id, got, want)
			}
		}
	}
}
