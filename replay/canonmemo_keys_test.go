package replay

import "testing"

// TestKeyMemo holds keyMemo.find to the parts kept: a hit only for the
// same way and parts byte for byte (a byte changed anywhere, a part cut,
// moved into its neighbour or missing, another way: each a miss), and
// only while the table's string of the Sym kept is the key (a table
// made anew, its Syms renumbered: a miss).
func TestKeyMemo(t *testing.T) {
	var tab symtab
	key := []byte("a:run\x00{\"command\":\"ls -la /tmp/aaaa/bbbb/cccc/dddd\"}")
	sym := tab.bytes(key)
	kept := keyParts{way: keyV0ActionBoth, n: 2, p: [4][]byte{[]byte("run"), []byte(`{"command":"ls -la /tmp/aaaa/bbbb/cccc/dddd"}`)}}
	var m keyMemo
	s, tag, hit := m.find(&tab, &kept)
	if hit || s != nil {
		t.Fatalf("empty memo: hit %v, slot %v", hit, s)
	}
	m.keep(s, tag, &kept, key, sym, []byte("run {}"))
	if s, _, hit := m.find(&tab, &kept); !hit || s.sym != sym || string(s.both) != "run {}" {
		t.Fatalf("kept parts: hit %v", hit)
	}
	clone := func(k keyParts) keyParts {
		for i := range k.p[:k.n] {
			k.p[i] = append([]byte(nil), k.p[i]...)
		}
		return k
	}
	c := clone(kept)
	if _, _, hit := m.find(&tab, &c); !hit {
		t.Fatal("the same parts elsewhere: a miss")
	}
	for i := range kept.n {
		for j := range kept.p[i] {
			c := clone(kept)
			c.p[i][j] ^= 1
			if _, _, hit := m.find(&tab, &c); hit {
				t.Fatalf("part %d byte %d changed: a hit", i, j)
			}
		}
		c := clone(kept)
		c.p[i] = c.p[i][:len(c.p[i])-1]
		if _, _, hit := m.find(&tab, &c); hit {
			t.Fatalf("part %d cut: a hit", i)
		}
	}
	moved := keyParts{way: kept.way, n: 2, p: [4][]byte{[]byte("run{"), kept.p[1][1:]}}
	if _, _, hit := m.find(&tab, &moved); hit {
		t.Fatal("a byte moved between parts: a hit")
	}
	one := keyParts{way: kept.way, n: 1, p: [4][]byte{append([]byte("run"), kept.p[1]...)}}
	if _, _, hit := m.find(&tab, &one); hit {
		t.Fatal("the parts as one: a hit")
	}
	other := clone(kept)
	other.way = keyV0Action
	if _, _, hit := m.find(&tab, &other); hit {
		t.Fatal("another way: a hit")
	}
	// The table made anew: the Sym names another string, then none.
	var next symtab
	next.sym("another key of the new table")
	if _, _, hit := m.find(&next, &kept); hit {
		t.Fatal("a new table, the Sym another string's: a hit")
	}
	var empty symtab
	if _, _, hit := m.find(&empty, &kept); hit {
		t.Fatal("a new table without the Sym: a hit")
	}
	// Too long to keep: not kept.
	var big keyMemo
	long := keyParts{way: keyV0Action, n: 1, p: [4][]byte{make([]byte, keyMemoMax)}}
	s, tag, _ = big.find(&tab, &long)
	big.keep(s, tag, &long, key, sym, nil)
	if _, _, hit := big.find(&tab, &long); hit {
		t.Fatal("parts over keyMemoMax kept")
	}
}
