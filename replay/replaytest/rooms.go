package replaytest

import (
	"fmt"
	"sort"
	"strings"
)

// Room is one room of the generator's Zork I map.
type Room struct {
	Key  string // ZIL object name, e.g. "FOREST-1"; unique
	Name string // the room's DESC as the game prints it, e.g. "Forest"; not unique
	ID   int    // stable integer id, unique (synthetic, in the style of a Z-machine object number)
}

// Rooms returns the rooms of the map in a fixed order.
func Rooms() []Room {
	out := make([]Room, len(roomTable))
	for i, r := range roomTable {
		out[i] = Room{Key: r.key, Name: r.name, ID: r.id}
	}
	return out
}

type exit struct {
	dir string // canonical direction word
	to  string // room key
}

type verb struct {
	action, response string
}

type room struct {
	key, name string
	id        int
	desc      string            // long description printed on a first visit or "look"
	exits     []exit            // real exits to modelled rooms (conditional exits taken as open)
	blocked   map[string]string // directions the game refuses with a specific message
	unmodeled []string          // real exits leading to rooms this model leaves out: never attempted
	verbs     []verb            // room-specific actions and the game's reply
}

// The map follows the released Zork I (1dungeon.zil): room names are the DESC
// strings, exits are the real ones. Conditional exits (kitchen window, trap
// door, troll) are treated as open; exits to rooms outside this model are
// listed in unmodeled and never taken.
var roomTable = []*room{
	{key: "WEST-OF-HOUSE", name: "West of House", id: 180,
		desc:      "You are standing in an open field west of a white house, with a boarded front door.\nThere is a small mailbox here.",
		exits:     []exit{{"north", "NORTH-OF-HOUSE"}, {"south", "SOUTH-OF-HOUSE"}, {"northeast", "NORTH-OF-HOUSE"}, {"southeast", "SOUTH-OF-HOUSE"}, {"west", "FOREST-1"}},
		blocked:   map[string]string{"east": "The door is boarded and you can't remove the boards."},
		unmodeled: []string{"southwest", "in"},
		verbs: []verb{
			{"open mailbox", "Opening the small mailbox reveals a leaflet."},
			{"take leaflet", "Taken."},
			{"read leaflet", "\"WELCOME TO ZORK!\n\nZORK is a game of adventure, danger, and low cunning. In it you will explore some of the most amazing territory ever seen by mortals. No computer should be without one!\""},
			{"examine door", "The door is boarded and you can't remove the boards."},
			{"open door", "The door cannot be opened."},
		}},
	{key: "NORTH-OF-HOUSE", name: "North of House", id: 81,
		desc:    "You are facing the north side of a white house. There is no door here, and all the windows are boarded up. To the north a narrow path winds through the trees.",
		exits:   []exit{{"southwest", "WEST-OF-HOUSE"}, {"southeast", "EAST-OF-HOUSE"}, {"west", "WEST-OF-HOUSE"}, {"east", "EAST-OF-HOUSE"}, {"north", "PATH"}},
		blocked: map[string]string{"south": "The windows are all boarded."},
		verbs: []verb{
			{"examine windows", "The windows are all boarded."},
			{"examine house", "The house is a beautiful colonial house which is painted white. It is clear that the owners must have been extremely wealthy."},
		}},
	{key: "SOUTH-OF-HOUSE", name: "South of House", id: 79,
		desc:    "You are facing the south side of a white house. There is no door here, and all the windows are boarded.",
		exits:   []exit{{"west", "WEST-OF-HOUSE"}, {"east", "EAST-OF-HOUSE"}, {"northeast", "EAST-OF-HOUSE"}, {"northwest", "WEST-OF-HOUSE"}, {"south", "FOREST-3"}},
		blocked: map[string]string{"north": "The windows are all boarded."},
		verbs: []verb{
			{"examine windows", "The windows are all boarded."},
		}},
	{key: "EAST-OF-HOUSE", name: "Behind House", id: 75,
		desc:  "You are behind the white house. A path leads into the forest to the east. In one corner of the house there is a small window which is open.",
		exits: []exit{{"north", "NORTH-OF-HOUSE"}, {"south", "SOUTH-OF-HOUSE"}, {"southwest", "SOUTH-OF-HOUSE"}, {"northwest", "NORTH-OF-HOUSE"}, {"east", "CLEARING"}, {"west", "KITCHEN"}, {"in", "KITCHEN"}},
		verbs: []verb{
			{"open window", "With great effort, you open the window far enough to allow entry."},
			{"examine window", "The window is open."},
		}},
	{key: "KITCHEN", name: "Kitchen", id: 193,
		desc:    "You are in the kitchen of the white house. A table seems to have been used recently for the preparation of food. A passage leads to the west and a dark staircase can be seen leading upward. A dark chimney leads down and to the east is a small window which is open.\nOn the table is an elongated brown sack, smelling of hot peppers.\nA bottle is sitting on the table.\nThe glass bottle contains:\n  A quantity of water",
		exits:   []exit{{"east", "EAST-OF-HOUSE"}, {"out", "EAST-OF-HOUSE"}, {"west", "LIVING-ROOM"}, {"up", "ATTIC"}},
		blocked: map[string]string{"down": "Only Santa Claus climbs down chimneys."},
		verbs: []verb{
			{"open sack", "Opening the brown sack reveals a lunch, and a clove of garlic."},
			{"take sack", "Taken."},
			{"take bottle", "Taken."},
			{"eat lunch", "Thank you very much. It really hit the spot."},
			{"drink water", "Thank you very much. I was rather thirsty (from all this talking, probably)."},
		}},
	{key: "ATTIC", name: "Attic", id: 184,
		desc:  "This is the attic. The only exit is a stairway leading down.\nA large coil of rope is lying in the corner.\nOn a table is a nasty-looking knife.",
		exits: []exit{{"down", "KITCHEN"}},
		verbs: []verb{
			{"take rope", "Taken."},
			{"take knife", "Taken."},
		}},
	{key: "LIVING-ROOM", name: "Living Room", id: 194,
		desc:    "You are in the living room. There is a doorway to the east, a wooden door with strange gothic lettering to the west, which appears to be nailed shut, a trophy case, and a large oriental rug in the center of the room.\nAbove the trophy case hangs an elvish sword of great antiquity.\nA battery-powered brass lantern is on the trophy case.",
		exits:   []exit{{"east", "KITCHEN"}, {"down", "CELLAR"}},
		blocked: map[string]string{"west": "The door is nailed shut."},
		verbs: []verb{
			{"take lamp", "Taken."},
			{"take sword", "Taken."},
			{"turn on lamp", "The brass lantern is now on."},
			{"move rug", "With a great effort, the rug is moved to one side of the room, revealing the dusty cover of a closed trap door."},
			{"open trap door", "The door reluctantly opens to reveal a rickety staircase descending into darkness."},
			{"open trophy case", "Opened."},
			{"put painting in trophy case", "Done."},
		}},
	{key: "CELLAR", name: "Cellar", id: 111,
		desc:    "You are in a dark and damp cellar with a narrow passageway leading north, and a crawlway to the south. On the west is the bottom of a steep metal ramp which is unclimbable.",
		exits:   []exit{{"north", "TROLL-ROOM"}, {"south", "EAST-OF-CHASM"}, {"up", "LIVING-ROOM"}},
		blocked: map[string]string{"west": "You try to ascend the ramp, but it is impossible, and you slide back down."},
		verbs: []verb{
			{"examine ramp", "There's nothing special about the ramp."},
			{"turn on lamp", "It is already on."},
		}},
	{key: "TROLL-ROOM", name: "The Troll Room", id: 129,
		desc:  "This is a small room with passages to the east and south and a forbidding hole leading west. Bloodstains and deep scratches (perhaps made by an axe) mar the walls.",
		exits: []exit{{"south", "CELLAR"}, {"east", "EW-PASSAGE"}, {"west", "MAZE-1"}},
		verbs: []verb{
			{"attack troll with sword", "The troll is staggered, and drops to his knees."},
			{"kill troll with sword", "Clang! Crash! The troll parries."},
			{"take axe", "The axe is too hot to touch."},
			{"examine bloodstains", "There's nothing special about the bloodstains."},
		}},
	{key: "EAST-OF-CHASM", name: "East of Chasm", id: 104,
		desc:    "You are on the east edge of a chasm, the bottom of which cannot be seen. A narrow passage goes north, and the path you are on continues to the east.",
		exits:   []exit{{"north", "CELLAR"}, {"east", "GALLERY"}},
		blocked: map[string]string{"down": "The chasm probably leads straight to the infernal regions."},
		verbs: []verb{
			{"examine chasm", "It looks like a long way down."},
		}},
	{key: "GALLERY", name: "Gallery", id: 106,
		desc:  "This is an art gallery. Most of the paintings have been stolen by vandals with exceptional taste. The vandals left through either the north or west exits.\nFortunately, there is still one chance for you to be a vandal, for on the far wall is a painting of unparalleled beauty.",
		exits: []exit{{"west", "EAST-OF-CHASM"}, {"north", "STUDIO"}},
		verbs: []verb{
			{"take painting", "Taken."},
			{"examine painting", "A painting by a neglected genius is here."},
		}},
	{key: "STUDIO", name: "Studio", id: 107,
		desc:  "This appears to have been an artist's studio. The walls and floors are splattered with paints of 69 different colors. Strangely enough, nothing of value is hanging here. At the south end of the room is an open door (also covered with paint). A dark and narrow chimney leads up from a fireplace; although you might be able to get up it, it seems unlikely you could get back down.",
		exits: []exit{{"south", "GALLERY"}, {"up", "KITCHEN"}},
		verbs: []verb{
			{"take manual", "Taken."},
			{"examine chimney", "The chimney leads upward, and looks climbable."},
		}},
	{key: "MAZE-1", name: "Maze", id: 137,
		desc:  "This is part of a maze of twisty little passages, all alike.",
		exits: []exit{{"east", "TROLL-ROOM"}, {"north", "MAZE-1"}, {"south", "MAZE-2"}, {"west", "MAZE-4"}},
		verbs: []verb{
			{"drop leaflet", "Dropped."},
		}},
	{key: "MAZE-2", name: "Maze", id: 138,
		desc:  "This is part of a maze of twisty little passages, all alike.",
		exits: []exit{{"south", "MAZE-1"}, {"down", "MAZE-4"}, {"east", "MAZE-3"}},
		verbs: []verb{
			{"drop knife", "Dropped."},
		}},
	{key: "MAZE-3", name: "Maze", id: 139,
		desc:      "This is part of a maze of twisty little passages, all alike.",
		exits:     []exit{{"west", "MAZE-2"}, {"north", "MAZE-4"}},
		unmodeled: []string{"up"},
	},
	{key: "MAZE-4", name: "Maze", id: 140,
		desc:  "This is part of a maze of twisty little passages, all alike.",
		exits: []exit{{"west", "MAZE-3"}, {"north", "MAZE-1"}, {"east", "DEAD-END-1"}},
	},
	{key: "DEAD-END-1", name: "Dead End", id: 141,
		desc:  "You have come to a dead end in the maze.",
		exits: []exit{{"south", "MAZE-4"}},
	},
	{key: "EW-PASSAGE", name: "East-West Passage", id: 126,
		desc:  "This is a narrow east-west passageway. There is a narrow stairway leading down at the north end of the room.",
		exits: []exit{{"east", "ROUND-ROOM"}, {"west", "TROLL-ROOM"}, {"down", "CHASM-ROOM"}, {"north", "CHASM-ROOM"}},
	},
	{key: "ROUND-ROOM", name: "Round Room", id: 145,
		desc:      "This is a circular stone room with passages in all directions. Several of them have unfortunately been blocked by cave-ins.",
		exits:     []exit{{"east", "LOUD-ROOM"}, {"west", "EW-PASSAGE"}, {"north", "NS-PASSAGE"}, {"southeast", "ENGRAVINGS-CAVE"}},
		unmodeled: []string{"south"},
	},
	{key: "LOUD-ROOM", name: "Loud Room", id: 148,
		desc:  "This is a large room with a ceiling which cannot be detected from the ground. There is a narrow passage from east to west and a stone stairway leading upward. The room is deafeningly loud with an undetermined rushing sound. The sound seems to reverberate from all of the walls, making it difficult even to think.",
		exits: []exit{{"east", "DAMP-CAVE"}, {"west", "ROUND-ROOM"}, {"up", "DEEP-CANYON"}},
		verbs: []verb{
			{"echo", "The acoustics of the room change subtly."},
			{"take platinum bar", "Taken."},
		}},
	{key: "DAMP-CAVE", name: "Damp Cave", id: 147,
		desc:      "This cave has exits to the west and east, and narrows to a crack toward the south. The earth is particularly damp here.",
		exits:     []exit{{"west", "LOUD-ROOM"}},
		blocked:   map[string]string{"south": "It is too narrow for most insects."},
		unmodeled: []string{"east"},
	},
	{key: "DEEP-CANYON", name: "Deep Canyon", id: 149,
		desc:  "You are on the south edge of a deep canyon. Passages lead off to the east, northwest and southwest. A stairway leads down. You can hear the sound of flowing water from below.",
		exits: []exit{{"northwest", "RESERVOIR-SOUTH"}, {"east", "DAM-ROOM"}, {"southwest", "NS-PASSAGE"}, {"down", "LOUD-ROOM"}},
		verbs: []verb{
			{"listen", "You hear the sound of flowing water from below."},
		}},
	{key: "NS-PASSAGE", name: "North-South Passage", id: 150,
		desc:  "This is a high north-south passage, which forks to the northeast.",
		exits: []exit{{"north", "CHASM-ROOM"}, {"northeast", "DEEP-CANYON"}, {"south", "ROUND-ROOM"}},
	},
	{key: "CHASM-ROOM", name: "Chasm", id: 151,
		desc:    "A chasm runs southwest to northeast and the path follows it. You are on the south side of the chasm, where a crack opens into a passage.",
		exits:   []exit{{"northeast", "RESERVOIR-SOUTH"}, {"southwest", "EW-PASSAGE"}, {"up", "EW-PASSAGE"}, {"south", "NS-PASSAGE"}},
		blocked: map[string]string{"down": "Are you out of your mind?"},
	},
	{key: "ENGRAVINGS-CAVE", name: "Engravings Cave", id: 158,
		desc:  "You have entered a low cave with passages leading northwest and east.\nThere are old engravings on the walls here.",
		exits: []exit{{"northwest", "ROUND-ROOM"}, {"east", "DOME-ROOM"}},
		verbs: []verb{
			{"read engravings", "The engravings were incised in the living rock of the cave wall by an unknown hand. They depict, in symbolic form, the beliefs of the ancient Zorkers."},
		}},
	{key: "DOME-ROOM", name: "Dome Room", id: 160,
		desc:    "You are at the periphery of a large dome, which forms the ceiling of another room below. Protecting you from a precipitous drop is a wooden railing which circles the dome.",
		exits:   []exit{{"west", "ENGRAVINGS-CAVE"}},
		blocked: map[string]string{"down": "You cannot go down without fracturing many bones."},
		verbs: []verb{
			{"tie rope to railing", "The rope drops over the side and comes within ten feet of the floor."},
		}},
	{key: "RESERVOIR-SOUTH", name: "Reservoir South", id: 120,
		desc:    "You are in a long room on the south shore of a large lake, far too deep and wide for crossing.\nThere is a path along the stream to the east or west, a steep pathway climbing southwest along the edge of a chasm, and a path leading into a canyon to the southeast.",
		exits:   []exit{{"southeast", "DEEP-CANYON"}, {"southwest", "CHASM-ROOM"}, {"east", "DAM-ROOM"}, {"west", "STREAM-VIEW"}},
		blocked: map[string]string{"north": "You would drown."},
		verbs: []verb{
			{"examine lake", "The lake is far too deep and wide for crossing."},
		}},
	{key: "STREAM-VIEW", name: "Stream View", id: 123,
		desc:    "You are standing on a path beside a gently flowing stream. The path follows the stream, which flows from west to east.",
		exits:   []exit{{"east", "RESERVOIR-SOUTH"}},
		blocked: map[string]string{"west": "The stream emerges from a spot too small for you to enter."},
	},
	{key: "DAM-ROOM", name: "Dam", id: 20,
		desc:  "You are standing on the top of the Flood Control Dam #3, which was quite a tourist attraction in times far distant. There are paths to the north, south, and west, and a scramble down.\nThe sluice gates on the dam are closed. Behind the dam, there can be seen a wide reservoir. Water is pouring over the top of the now abandoned dam.\nThere is a control panel here, on which a large metal bolt is mounted. Directly above the bolt is a small green plastic bubble.",
		exits: []exit{{"south", "DEEP-CANYON"}, {"down", "DAM-BASE"}, {"east", "DAM-BASE"}, {"north", "DAM-LOBBY"}, {"west", "RESERVOIR-SOUTH"}},
		verbs: []verb{
			{"turn bolt with wrench", "The bolt won't turn with your best effort."},
			{"turn bolt", "Your bare hands don't appear to be enough."},
			{"examine bolt", "There's nothing special about the bolt."},
			{"examine control panel", "There's nothing special about the control panel."},
			{"examine green bubble", "The green bubble is dark."},
			{"push green bubble", "Pushing the green plastic bubble has no effect."},
			{"look at reservoir", "Behind the dam, there can be seen a wide reservoir."},
		}},
	{key: "DAM-LOBBY", name: "Dam Lobby", id: 15,
		desc:  "This room appears to have been the waiting room for groups touring the dam. There are open doorways here to the north and east marked \"Private\", and there is a path leading south over the top of the dam.\nSome guidebooks entitled \"Flood Control Dam #3\" are on the reception desk.\nThere is a matchbook whose cover says \"Visit Beautiful FCD#3\" here.",
		exits: []exit{{"south", "DAM-ROOM"}, {"north", "MAINTENANCE-ROOM"}, {"east", "MAINTENANCE-ROOM"}},
		verbs: []verb{
			{"take guidebook", "Taken."},
			{"read guidebook", "\"        Flood Control Dam #3\n\nFCD#3 was constructed in year 783 of the Great Underground Empire to harness the mighty Frigid River. This work was supported by a grant of 37 million zorkmids from your omnipotent local tyrant Lord Dimwit Flathead the Excessive.\""},
			{"take matchbook", "Taken."},
			{"open matchbook", "Opened."},
		}},
	{key: "MAINTENANCE-ROOM", name: "Maintenance Room", id: 18,
		desc:  "This is what appears to have been the maintenance room for Flood Control Dam #3. Apparently, this room has been ransacked recently, for most of the valuable equipment is gone. On the wall in front of you is a group of buttons colored blue, yellow, brown, and red. There are doorways to the west and south.\nThere is a wrench here.\nThere is a screwdriver here.\nThere is an object which looks like a tube of toothpaste here.",
		exits: []exit{{"south", "DAM-LOBBY"}, {"west", "DAM-LOBBY"}},
		verbs: []verb{
			{"push yellow button", "Click."},
			{"push brown button", "Click."},
			{"push red button", "The lights within the room come on."},
			{"push blue button", "There is a rumbling sound and a stream of water appears to burst from the east wall of the room (apparently, a leak has occurred in a pipe)."},
			{"take wrench", "Taken."},
			{"take screwdriver", "Taken."},
			{"take tube", "Taken."},
			{"examine tool chests", "The chests are all empty."},
		}},
	{key: "DAM-BASE", name: "Dam Base", id: 22,
		desc:  "You are at the base of Flood Control Dam #3, which looms above you and to the north. The river Frigid is flowing by here. Along the river are the White Cliffs which seem to form giant walls stretching from north to south along the shores of the river as it winds its way downstream.\nThere is a folded pile of plastic here which has a small valve attached.",
		exits: []exit{{"north", "DAM-ROOM"}, {"up", "DAM-ROOM"}},
		verbs: []verb{
			{"examine pile of plastic", "There's nothing special about the pile of plastic."},
			{"inflate plastic", "You don't have enough lung power to inflate it."},
		}},
	{key: "FOREST-1", name: "Forest", id: 196,
		desc:    "This is a forest, with trees in all directions. To the east, there appears to be sunlight.",
		exits:   []exit{{"north", "GRATING-CLEARING"}, {"east", "PATH"}, {"south", "FOREST-3"}},
		blocked: map[string]string{"up": "There is no tree here suitable for climbing.", "west": "You would need a machete to go further west."},
		verbs: []verb{
			{"listen", "You hear in the distance the chirping of a song bird."},
		}},
	{key: "FOREST-2", name: "Forest", id: 197,
		desc:      "This is a dimly lit forest, with large trees all around.",
		exits:     []exit{{"south", "CLEARING"}, {"west", "PATH"}},
		blocked:   map[string]string{"up": "There is no tree here suitable for climbing.", "north": "The forest becomes impenetrable to the north."},
		unmodeled: []string{"east"},
	},
	{key: "FOREST-3", name: "Forest", id: 199,
		desc:    "This is a dimly lit forest, with large trees all around.",
		exits:   []exit{{"north", "CLEARING"}, {"west", "FOREST-1"}, {"northwest", "SOUTH-OF-HOUSE"}},
		blocked: map[string]string{"up": "There is no tree here suitable for climbing.", "east": "The rank undergrowth prevents eastward movement.", "south": "Storm-tossed trees block your way."},
	},
	{key: "PATH", name: "Forest Path", id: 202,
		desc:  "This is a path winding through a dimly lit forest. The path heads north-south here. One particularly large tree with some low branches stands at the edge of the path.",
		exits: []exit{{"up", "UP-A-TREE"}, {"north", "GRATING-CLEARING"}, {"east", "FOREST-2"}, {"south", "NORTH-OF-HOUSE"}, {"west", "FOREST-1"}},
		verbs: []verb{
			{"examine tree", "There's nothing special about the tree."},
		}},
	{key: "UP-A-TREE", name: "Up a Tree", id: 88,
		desc:    "You are about 10 feet above the ground nestled among some large branches. The nearest branch above you is above your reach.\nBeside you on the branch is a small bird's nest.\nIn the bird's nest is a large egg encrusted with precious jewels, apparently scavenged by a childless songbird.",
		exits:   []exit{{"down", "PATH"}},
		blocked: map[string]string{"up": "You cannot climb any higher."},
		verbs: []verb{
			{"take egg", "Taken."},
			{"open egg", "You have neither the tools nor the expertise."},
			{"examine nest", "There's nothing special about the bird's nest."},
		}},
	{key: "GRATING-CLEARING", name: "Clearing", id: 203,
		desc:    "You are in a clearing, with a forest surrounding you on all sides. A path leads south.\nOn the ground is a pile of leaves.",
		exits:   []exit{{"east", "FOREST-2"}, {"west", "FOREST-1"}, {"south", "PATH"}},
		blocked: map[string]string{"north": "The forest becomes impenetrable to the north."},
		verbs: []verb{
			{"move leaves", "In disturbing the pile of leaves, a grating is revealed."},
			{"open grating", "The grating is locked."},
		}},
	{key: "CLEARING", name: "Clearing", id: 205,
		desc:    "You are in a small clearing in a well marked forest path that extends to the east and west.",
		exits:   []exit{{"east", "CANYON-VIEW"}, {"north", "FOREST-2"}, {"south", "FOREST-3"}, {"west", "EAST-OF-HOUSE"}},
		blocked: map[string]string{"up": "There is no tree here suitable for climbing."},
	},
	{key: "CANYON-VIEW", name: "Canyon View", id: 210,
		desc:    "You are at the top of the Great Canyon on its west wall. From here there is a marvelous view of the canyon and parts of the Frigid River upstream. Across the canyon, the walls of the White Cliffs join the mighty ramparts of the Flathead Mountains to the east. Following the Canyon upstream to the north, Aragain Falls may be seen, complete with rainbow. The mighty Frigid River flows out from a great dark cavern. To the west and south can be seen an immense forest, stretching for miles around. A path leads northwest. It is possible to climb down into the canyon from here.",
		exits:   []exit{{"east", "CLIFF-MIDDLE"}, {"down", "CLIFF-MIDDLE"}, {"northwest", "CLEARING"}, {"west", "FOREST-3"}},
		blocked: map[string]string{"south": "Storm-tossed trees block your way."},
	},
	{key: "CLIFF-MIDDLE", name: "Rocky Ledge", id: 211,
		desc:  "You are on a ledge about halfway up the wall of the river canyon. You can see from here that the main flow from Aragain Falls twists along a passage which it is impossible for you to enter. Below you is the canyon bottom. Above you is more cliff, which appears climbable.",
		exits: []exit{{"up", "CANYON-VIEW"}, {"down", "CANYON-BOTTOM"}},
	},
	{key: "CANYON-BOTTOM", name: "Canyon Bottom", id: 212,
		desc:  "You are beneath the walls of the river canyon which may be climbable here. The lesser part of the runoff of Aragain Falls flows by below. To the north is a narrow path.",
		exits: []exit{{"up", "CLIFF-MIDDLE"}, {"north", "END-OF-RAINBOW"}},
	},
	{key: "END-OF-RAINBOW", name: "End of Rainbow", id: 213,
		desc:      "You are on a small, rocky beach on the continuation of the Frigid River past the Falls. The beach is narrow due to the presence of the White Cliffs. The river canyon opens here and sunlight shines in from above. A rainbow crosses over the falls to the east and a narrow path continues to the southwest.",
		exits:     []exit{{"southwest", "CANYON-BOTTOM"}},
		unmodeled: []string{"up", "northeast", "east"},
		verbs: []verb{
			{"wave sceptre", "Suddenly, the rainbow appears to become solid and, I venture, walkable (I think the giveaway was the stairs and bannister)."},
			{"dig in sand", "You seem to be digging a hole here."},
		}},
}

var (
	roomByKey  = map[string]*room{}
	roomByName = map[string][]*room{} // lower-case name -> rooms
)

func init() {
	ids := map[int]string{}
	for _, r := range roomTable {
		if _, dup := roomByKey[r.key]; dup {
			panic("replaytest: duplicate room key " + r.key)
		}
		if k, dup := ids[r.id]; dup {
			panic(fmt.Sprintf("replaytest: rooms %s and %s share id %d", k, r.key, r.id))
		}
		ids[r.id] = r.key
		roomByKey[r.key] = r
		ln := strings.ToLower(r.name)
		roomByName[ln] = append(roomByName[ln], r)
	}
	for _, r := range roomTable {
		for _, e := range r.exits {
			if roomByKey[e.to] == nil {
				panic("replaytest: room " + r.key + " exits to unknown " + e.to)
			}
		}
	}
}

// lookupRoom resolves a room reference: a key ("FOREST-1") or a unique name
// ("Dam", case-insensitive).
func lookupRoom(ref string) (*room, error) {
	if r := roomByKey[ref]; r != nil {
		return r, nil
	}
	if r := roomByKey[strings.ToUpper(ref)]; r != nil {
		return r, nil
	}
	rs := roomByName[strings.ToLower(strings.TrimSpace(ref))]
	switch len(rs) {
	case 0:
		return nil, fmt.Errorf("replaytest: unknown room %q", ref)
	case 1:
		return rs[0], nil
	}
	keys := make([]string, len(rs))
	for i, r := range rs {
		keys[i] = r.key
	}
	sort.Strings(keys)
	return nil, fmt.Errorf("replaytest: room name %q is ambiguous, use a key (%s)", ref, strings.Join(keys, ", "))
}

// dirTo returns the directions leading from r to the room with key to.
func (r *room) dirTo(to string) []string {
	var ds []string
	for _, e := range r.exits {
		if e.to == to {
			ds = append(ds, e.dir)
		}
	}
	return ds
}

func (r *room) neighbours() []*room {
	var out []*room
	seen := map[string]bool{}
	for _, e := range r.exits {
		if e.to == r.key || seen[e.to] {
			continue
		}
		seen[e.to] = true
		out = append(out, roomByKey[e.to])
	}
	return out
}

var allDirs = []string{"north", "south", "east", "west", "northeast", "northwest", "southeast", "southwest", "up", "down", "in", "out"}

var dirAbbrev = map[string]string{
	"north": "n", "south": "s", "east": "e", "west": "w",
	"northeast": "ne", "northwest": "nw", "southeast": "se", "southwest": "sw",
	"up": "u", "down": "d",
}

// closedDirs lists directions the game refuses in r (no exit at all, or a
// blocked one), excluding exits to rooms outside the model.
func (r *room) closedDirs() []string {
	var out []string
	for _, d := range allDirs {
		if len(r.exitDirs(d)) > 0 || contains(r.unmodeled, d) {
			continue
		}
		out = append(out, d)
	}
	return out
}

func (r *room) exitDirs(d string) []string {
	var out []string
	for _, e := range r.exits {
		if e.dir == d {
			out = append(out, e.to)
		}
	}
	return out
}

func (r *room) refusal(d string) string {
	if m, ok := r.blocked[d]; ok {
		return m
	}
	return "You can't go that way."
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
