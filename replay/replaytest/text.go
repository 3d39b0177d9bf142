package replaytest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
)

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

var genericVerbs = []verb{
	{"look", ""}, // reply is the room description
	{"inventory", "You are carrying:\n  A brass lantern (providing light)\n  A wrench\n  An elvish sword"},
	{"wait", "Time passes..."},
	{"listen", "You hear nothing unusual."},
	{"diagnose", "You are in perfect health."},
	{"examine lantern", "The lamp is on."},
	{"take all", "There's nothing here you can take."},
	{"drop sword", "Dropped."},
	{"take sword", "Taken."},
	{"search", "You find nothing unusual."},
}

var moveReasons = []string{
	"I haven't fully explored %[1]s of %[2]s yet, so heading %[1]s.",
	"Moving %[1]s to see what lies beyond %[2]s.",
	"The %[1]s exit from %[2]s is still worth checking; going %[1]s.",
	"Nothing left to do in %[2]s for now. I'll go %[1]s.",
	"Heading %[1]s; the map suggests unexplored rooms in that direction.",
	"Returning %[1]s to continue with the current objective.",
}

var verbReasons = []string{
	"I should %[1]s here in %[2]s; it may reveal something useful.",
	"Trying to %[1]s, since the last attempt gave an unclear result.",
	"%[2]s has something worth interacting with. I'll %[1]s.",
	"Before moving on from %[2]s I want to %[1]s.",
	"The puzzle here probably needs me to %[1]s.",
	"Let me %[1]s and see how the game responds.",
}

var stuckReasons = []string{
	"I'm sure the puzzle is solved from %[2]s; let me %[1]s again.",
	"Maybe the order matters. I'll %[1]s once more in %[2]s.",
	"The last few turns made no progress, but %[1]s still seems the best option.",
}

var justifications = []string{
	"There is no exit %[1]s from %[2]s according to the known map.",
	"The action '%[1]s' has already failed in %[2]s several times.",
	"This action does not advance any current objective.",
	"Repeating '%[1]s' is unlikely to produce a different result.",
	"The agent appears to be looping in %[2]s; '%[1]s' adds nothing new.",
}

var overrideReasons = []string{
	"Agent has not moved for several turns; allowing exploratory action",
	"Rejected action is a movement into an unexplored direction",
	"Critic confidence too low to block a novel action",
}

var objectiveTexts = []string{
	"Open the mailbox and read the leaflet",
	"Enter the white house through the kitchen window",
	"Obtain the brass lantern from the living room",
	"Open the trap door and descend into the cellar",
	"Defeat the troll blocking the eastern passage",
	"Retrieve the painting from the gallery",
	"Collect the jewel-encrusted egg from the tree",
	"Explore the passages leading from the Round Room",
	"Work out what the Maintenance Room buttons do",
	"Open the sluice gates of Flood Control Dam #3",
	"Place a treasure in the trophy case",
	"Find a way across the Frigid River",
}

var nonASCIIBits = []string{
	" \u2014 ", " \u2192 ", "\u2026", " caf\u00e9-style ", " \u00bfque? ", " \u26a0\ufe0f ", " \U0001F6A8 ", " na\u00efve ",
}

// noisePool is ~1 MiB of knowledge-base style text, already JSON-escaped
// (its only escapes are \n), used to fill big noise lines cheaply.
var (
	noiseOnce sync.Once
	noisePool []byte
)

func pool() []byte {
	noiseOnce.Do(func() {
		rng := rand.New(rand.NewPCG(0x5eed, 0xfeed))
		var sb strings.Builder
		sb.Grow(1 << 20)
		section := 0
		for sb.Len() < 1<<20 {
			r := roomTable[rng.IntN(len(roomTable))]
			section++
			fmt.Fprintf(&sb, "## %s (id %d)\\n\\n", r.name, r.id)
			fmt.Fprintf(&sb, "- Exits: ")
			for i, e := range r.exits {
				if i > 0 {
					sb.WriteString(", ")
				}
				fmt.Fprintf(&sb, "%s -> %s", e.dir, roomByKey[e.to].name)
			}
			sb.WriteString("\\n")
			for _, v := range r.verbs {
				fmt.Fprintf(&sb, "- Tried '%s': %s\\n", v.action, escapeForPool(firstLine(v.response)))
			}
			d := r.desc
			if i := strings.IndexByte(d, '\n'); i > 0 {
				d = d[:i]
			}
			fmt.Fprintf(&sb, "- Notes: %s\\n", escapeForPool(d))
			fmt.Fprintf(&sb, "- Strategy %d: %s. Avoid repeating actions that already failed here.\\n\\n", section, pick(rng, objectiveTexts))
		}
		noisePool = []byte(sb.String())
	})
	return noisePool
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// escapeForPool keeps pool text free of characters that would need JSON
// escaping (so any slice of the pool is a valid string body).
func escapeForPool(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '"':
			return '\''
		case r == '\\', r < 0x20, r >= 0x80:
			return ' '
		}
		return r
	}, s)
}

// noiseParts returns escaped slices of the pool totalling about n bytes.
func noiseParts(rng *rand.Rand, n int) [][]byte {
	p := pool()
	var parts [][]byte
	for n > 0 {
		k := n
		if k > len(p)/2 {
			k = len(p) / 2
		}
		if k < 1 {
			break
		}
		off := rng.IntN(len(p) - k - 512)
		// start at the beginning of a line of the pool
		if i := bytes.Index(p[off:off+512], []byte(`\n`)); i >= 0 {
			off += i + 2
		}
		s := p[off : off+k]
		// never end on the backslash of a "\n" escape
		for len(s) > 0 && s[len(s)-1] == '\\' {
			s = s[:len(s)-1]
		}
		parts = append(parts, s)
		n -= k
	}
	return parts
}
