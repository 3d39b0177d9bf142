package replay

import (
	"math/rand"
	"strings"
	"testing"
)

// eventFields reads an event's members as v.Fields(openHandsKeys[:]) does
// (setField: encoding/json's names, the last of a repeated one), indexed
// and not: names sought, escaped, of a sought name's length and not
// sought, not ASCII, not UTF-8, repeated, with white space and within a
// value.
func TestEventFields(t *testing.T) {
	names := []string{
		`action`, `args`, `source`, `id`, `observation`, `extras`, `content`, `cause`,
		`\u0061ction`, `ar\u0067s`, `sourc\u0065`, `i\u0064`, `observatio\u006e`, `\"extras`, `con\/tent`, `caus\\e`,
		`actiom`, `Action`, `sourcf`, `ix`, `args `, `causes`, `observations`, `contenu`, `extra`, `timestamp`,
		`actio\u00e9`, `acti\u00e9`, "acti\xc3\xa9", "actio\xff", "\xffargs", `\ud800ction`, ``, `tool_call_metadata`,
	}
	testFieldsAsFields(t, openHandsKeys[:], names, func(ix *valueIndex, v rawValue) []rawValue {
		var f [len(openHandsKeys)]rawValue
		eventFields(ix, v, &f)
		return f[:]
	})
}

// v1Fields reads a V1 event's members as v.Fields(v1Keys[:]) does, from
// the index (recordRaw) and not: as TestEventFields, with names of 9 to
// 16 bytes (compared as two words) and longer.
func TestV1Fields(t *testing.T) {
	names := append(v1Keys[:len(v1Keys):len(v1Keys)],
		`\u006bind`, `parent_i\u0064`, `llm_response_i\u0064`, `rejection_reaso\u006e`, `tool\/name`,
		`kinds`, `Kind`, `parent_ie`, `qarent_id`, `llm_response_iD`, `tool_call_iD`, `rejection_reasoN`, `rejection_reasons`,
		`llm_messagf`, `summarz`, `kez`, `valuE`, `actioN`, `observatioN`, `errors`, `timestamp`, `tool_call_ie`,
		`th\u00e9ught`, "thoughz\xff", "\xffkind", `\udc00ind`, ``, `tool_call_metadata`, `extended_content`)
	testFieldsAsFields(t, v1Keys[:], names, func(ix *valueIndex, v rawValue) []rawValue {
		var f [len(v1Keys)]rawValue
		v1Fields(ix, v, &f)
		return f[:]
	})
}

// testFieldsAsFields holds fill to v.Fields(keys) over random objects of
// members named from names, read with an index and with none.
func testFieldsAsFields(t *testing.T, keys, names []string, fill func(ix *valueIndex, v rawValue) []rawValue) {
	t.Helper()
	vals := []string{
		`1`, `"run"`, `"agent"`, `null`, `true`, `{"action":"x","kind":{}}`, `[1,{"id":2}]`,
		`"` + strings.Repeat("long ", 40) + `"`, `{"command":"ls","thought":"` + strings.Repeat("t", 90) + `"}`,
	}
	rng := rand.New(rand.NewSource(1))
	var ix valueIndex
	want := make([]rawValue, len(keys))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		sp := []string{"", " ", "\n  ", "\t"}[rng.Intn(4)]
		b.WriteString("{" + sp)
		for m, members := 0, rng.Intn(9); m < members; m++ {
			if m > 0 {
				b.WriteString("," + sp)
			}
			b.WriteString(`"` + names[rng.Intn(len(names))] + `"` + []string{":", ": ", " : "}[rng.Intn(3)] + vals[rng.Intn(len(vals))])
		}
		b.WriteString(sp + "}")
		src := []byte(b.String())
		if validValue(src, 0) != len(src) {
			t.Fatalf("%q: not valid", src)
		}
		rawValue(src).Fields(keys, want)
		for _, x := range []*valueIndex{nil, &ix} {
			if x != nil && validValueIx(src, 0, x) != len(src) {
				t.Fatalf("%q: not valid indexed", src)
			}
			got := fill(x, rawValue(src))
			for i := range got {
				if (got[i] == nil) != (want[i] == nil) || string(got[i]) != string(want[i]) {
					t.Fatalf("%s (indexed %v): %s = %q, want %q", src, x != nil, keys[i], got[i], want[i])
				}
			}
		}
	}
}

// readExtrasRef is readExtras as it was: each member switched on by its
// name as encoding/json reads it, metadata's exit code by get.
func readExtrasRef(ix *valueIndex, extras rawValue) (x ohExtras) {
	var metadata rawValue
	ix.members(extras, func(k []byte, esc bool, val rawValue) bool {
		switch string(keyBytes(k, esc)) {
		case "hidden":
			x.m[ohxHidden] = val
		case "agent_state":
			x.m[ohxAgentState] = val
		case "reason":
			x.m[ohxReason] = val
		case "command":
			x.m[ohxCommand] = val
		case "metadata":
			metadata = val
		case "exit_code":
			x.m[ohxExitCode] = val
		}
		return true
	})
	x.m[ohxMetadata] = metadata
	x.metaExitCode[0] = ix.get(metadata, "exit_code")
	return x
}

// readExtras reads an observation's extras as readExtrasRef, indexed (in
// an event, as a line or a trajectory's element is) and not: names
// sought, escaped, of their length, repeated; metadata of every kind,
// its exit code escaped, repeated, nested.
func TestReadExtras(t *testing.T) {
	names := []string{`hidden`, `agent_state`, `reason`, `command`, `exit_code`, `metadata`,
		`hidde\u006e`, `agent_stat\u0065`, `\"reason`, `comm\/and`, `exit_cod\u0065`, `metadat\u0061`,
		`hiddem`, `agent_statf`, `reasom`, `Command`, `exit_codf`, `metadatb`, `pid`, "hidde\xff", `\ud800idden`, ``}
	metas := []string{`null`, `1`, `"x"`, `[{"exit_code":1}]`, `{}`, `{"exit_code":0}`, `{"pid":-1,"exit_code":127,"prefix":""}`,
		`{"exit_code":1,"exit_code":2}`, `{"exit_c\u006fde":3}`, `{"exit_codf":4,"x":{"exit_code":5}}`,
		`{"exit_code":"` + strings.Repeat("e", 80) + `","hostname":"runtime"}`,
		"{\"exit_cod\xff\":6,\"pid\":1}", `{"exit_code":7,"p\u0069d":1,"exit_code":8}`, `{"exit_code":9,"exit_codes":10,"exit_cod":11}`,
		`{"pid":-1,"username":"openhands","hostname":"runtime","working_dir":"/workspace","exit_code":12,"prefix":"","suffix":"\n[done]"}`}
	vals := []string{`true`, `false`, `"ls"`, `null`, `0`, `-1`, `"` + strings.Repeat("long ", 30) + `"`, `{"exit_code":9}`}
	rng := rand.New(rand.NewSource(2))
	var ix valueIndex
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		b.WriteString(`{"id":1,"observation":"run","extras":{`)
		for m, members := 0, rng.Intn(8); m < members; m++ {
			if m > 0 {
				b.WriteString([]string{",", ", "}[rng.Intn(2)])
			}
			name := names[rng.Intn(len(names))]
			val := vals[rng.Intn(len(vals))]
			if strings.HasPrefix(name, "metadat") {
				val = metas[rng.Intn(len(metas))]
			}
			b.WriteString(`"` + name + `":` + val)
		}
		b.WriteString(`}}`)
		src := []byte(b.String())
		if validValueIx(src, 0, &ix) != len(src) {
			t.Fatalf("%q: not valid", src)
		}
		for _, x := range []*valueIndex{nil, &ix} {
			var f [len(openHandsKeys)]rawValue
			eventFields(x, rawValue(src), &f)
			var got ohExtras
			readExtras(x, f[ohkExtras], &got)
			want := readExtrasRef(x, f[ohkExtras])
			for i, p := range [][2]rawValue{{got.m[ohxHidden], want.m[ohxHidden]}, {got.m[ohxAgentState], want.m[ohxAgentState]},
				{got.m[ohxReason], want.m[ohxReason]}, {got.m[ohxCommand], want.m[ohxCommand]}, {got.m[ohxExitCode], want.m[ohxExitCode]},
				{got.m[ohxMetadata], want.m[ohxMetadata]}, {got.metaExitCode[0], want.metaExitCode[0]}} {
				if (p[0] == nil) != (p[1] == nil) || string(p[0]) != string(p[1]) {
					t.Fatalf("%s (indexed %v): member %d %q, want %q", src, x != nil, i, p[0], p[1])
				}
			}
		}
	}
}

// obsFields reads a V1 observation's content, is_error and exit_code as
// v.Fields does, the observation a member of its event (noted one level
// down, as recordRaw reads it) and not indexed: names sought, escaped,
// of their length, not UTF-8, repeated.
func TestV1ObsFields(t *testing.T) {
	keys := []string{"content", "is_error", "exit_code"}
	names := append(keys, `c\u006fntent`, `is_erro\u0072`, `exit\/code`, `contenu`, `Content`, `is_errors`,
		`exit_codf`, `xexit_code`, "conten\xff", `\ud800ontent`, ``, `kind`, `command`, `text`, `te\u0078t`, `texu`, "tex\xff")
	vals := []string{`1`, `-1`, `true`, `null`, `"x"`, `[{"type":"text","text":"ok"}]`, `{"exit_code":2}`,
		`"` + strings.Repeat("out ", 30) + `"`}
	rng := rand.New(rand.NewSource(3))
	var ix valueIndex
	want := make([]rawValue, len(keys))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		b.WriteString(`{"kind":"ObservationEvent","observation":{`)
		for m, members := 0, rng.Intn(8); m < members; m++ {
			if m > 0 {
				b.WriteString([]string{",", ", "}[rng.Intn(2)])
			}
			b.WriteString(`"` + names[rng.Intn(len(names))] + `":` + vals[rng.Intn(len(vals))])
		}
		b.WriteString(`},"id":"e1"}`)
		src := []byte(b.String())
		if validValueIx(src, 0, &ix) != len(src) {
			t.Fatalf("%q: not valid", src)
		}
		for _, x := range []*valueIndex{nil, &ix} {
			var f [len(v1Keys)]rawValue
			v1Fields(x, rawValue(src), &f)
			f[v1kObservation].Fields(keys, want)
			o := openHandsV1Reader{cur: x}
			content, isErr, exit := o.obsFields(f[v1kObservation])
			for i, got := range []rawValue{content, isErr, exit} {
				if (got == nil) != (want[i] == nil) || string(got) != string(want[i]) {
					t.Fatalf("%s (indexed %v): %s = %q, want %q", src, x != nil, keys[i], got, want[i])
				}
			}
			// member, a text part's text and a message's content, as get.
			for _, k := range []struct {
				keys *jsKeys
				name string
			}{{v1TextKey, "text"}, {v1ContentKey, "content"}} {
				if got, want := o.member(f[v1kObservation], k.keys), x.get(f[v1kObservation], k.name); (got == nil) != (want == nil) || string(got) != string(want) {
					t.Fatalf("%s (indexed %v): member %s = %q, get %q", src, x != nil, k.name, got, want)
				}
			}
		}
	}
}

// volatileKey says what openHandsVolatile says of each of its names, of
// each with a byte changed, cut or lengthened, and of other args' names.
func TestVolatileKey(t *testing.T) {
	keys := []string{"", "command", "path", "is_input", "content", "thoughts", "Thought"}
	for name := range openHandsVolatile {
		keys = append(keys, name, name[1:], name[:len(name)-1], name+"s", "x"+name)
		for i := range name {
			b := []byte(name)
			b[i] ^= 0x20
			keys = append(keys, string(b))
			b[i] ^= 0x21
			keys = append(keys, string(b))
		}
	}
	for _, k := range keys {
		if got, want := volatileKey([]byte(k)), openHandsVolatile[k]; got != want {
			t.Errorf("volatileKey(%q) = %v, openHandsVolatile has %v", k, got, want)
		}
		if got, want := skipped(openHandsVolatile, []byte(k)), openHandsVolatile[k]; got != want {
			t.Errorf("skipped(openHandsVolatile, %q) = %v, want %v", k, got, want)
		}
	}
	other := map[string]bool{"command": true}
	if !skipped(other, []byte("command")) || skipped(other, []byte("thought")) || skipped(nil, []byte("thought")) {
		t.Errorf("skipped reads another map (or none) as openHandsVolatile")
	}
}
