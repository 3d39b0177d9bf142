package partial

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// FuzzStringWriter: a text written in any pieces, split inside runes or
// not, is the json.Marshal of the whole, after its head; nothing at all
// for an empty text.
func FuzzStringWriter(f *testing.F) {
	for _, s := range []string{"", "plain", "caf\u00e9 \u2028 <a&b>\n\t\"q\" \\", "bad\xff\xe2\x82", "\xe2\x82\xac€🙂", "\x00\x1f\x7f"} {
		f.Add(s, uint64(1))
	}
	f.Fuzz(func(t *testing.T, s string, seed uint64) {
		var b bytes.Buffer
		w := &stringWriter{w: &b, head: `,"text":"`}
		r := rand.New(rand.NewPCG(seed, 7))
		for rest := []byte(s); len(rest) > 0; {
			n := 1 + r.IntN(len(rest))
			if _, err := w.Write(rest[:n]); err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		want := ""
		if s != "" {
			data, _ := json.Marshal(s)
			want = `,"text":` + string(data)
		}
		if b.String() != want {
			t.Errorf("%q in pieces: %s, want %s", s, b.String(), want)
		}
	})
}
