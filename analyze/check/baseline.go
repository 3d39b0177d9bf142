// Package check is `loopbreak check`: a reviewed baseline file holding, per
// episode, the hash of its log and the outcome the rules gave it, so CI can
// show which episodes change outcome when a rule or threshold changes;
// its comparison with a corpus (drift); and policy gates. Run is the one
// entry point; report words the result.
package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/rules"
)

// BaselineVersion is the schema version of the baseline file.
const BaselineVersion = 1

// DefaultBaseline is the baseline file check uses without --baseline.
const DefaultBaseline = "loopbreak.baseline.json"

// Baseline is the content of a baseline file. Encode writes it in its one
// canonical form: keys in a fixed order, episodes sorted, no timestamps and
// no absolute paths, so the same corpus and configuration give the same
// bytes on every machine.
type Baseline struct {
	SchemaVersion int `json:"schema_version"`
	// Config is every configuration key with the value the baseline was
	// made with (int, float64 or bool; float64 for numbers read back).
	Config   map[string]any `json:"config"`
	Episodes []Entry        `json:"episodes"`
}

// Entry is one episode's entry: where its log is, what the log
// held, and the outcome fields of analyze.
type Entry struct {
	EpisodeID string `json:"episode_id"`
	// Source is the log's path relative to the baseline file's directory,
	// slash-separated ("-" for standard input).
	Source string `json:"source"`
	// LogHash is "sha256:<hex>" of the log file's bytes as stored (before
	// any gzip decoding). Episodes read from one file share it.
	LogHash          string         `json:"log_hash"`
	RecordedTurns    int            `json:"recorded_turns"`
	FinalScore       float64        `json:"final_score"`
	TerminationTurn  *int           `json:"termination_turn"` // null: never terminated
	Checkpoints      []int          `json:"checkpoints"`
	TurnsSaved       int            `json:"turns_saved"`
	LLMCallsSaved    int            `json:"llm_calls_saved"`
	LLMCallsMethod   string         `json:"llm_calls_method"`
	ScoreForfeited   float64        `json:"score_forfeited"`
	FalseTermination bool           `json:"false_termination"`
	Censored         bool           `json:"censored"`
	WouldReject      int            `json:"would_reject"`
	LowConfidence    int            `json:"low_confidence"`
	FiringCounts     map[string]int `json:"firing_counts"` // every registered rule/kind, 0 included
}

// NewBaseline starts a baseline for cfg.
func NewBaseline(cfg *rules.Config) *Baseline {
	return &Baseline{SchemaVersion: BaselineVersion, Config: cfg.Map(), Episodes: []Entry{}}
}

// NewEntry is the baseline form of an outcome.
func NewEntry(o *analyze.Outcome, source, hash string) Entry {
	e := Entry{
		// An id taken from a directory name may not be UTF-8; stored as
		// JSON reads it back, so it matches the next run's.
		EpisodeID:        strings.ToValidUTF8(o.EpisodeID, "\uFFFD"),
		Source:           source,
		LogHash:          hash,
		RecordedTurns:    o.RecordedTurns,
		FinalScore:       finite(o.FinalScore),
		Checkpoints:      make([]int, len(o.Checkpoints)),
		TurnsSaved:       o.TurnsSaved,
		LLMCallsSaved:    o.LLMCallsSaved,
		LLMCallsMethod:   o.LLMCallsMethod,
		ScoreForfeited:   finite(o.ScoreForfeited), // huge scores overflow a difference
		FalseTermination: o.FalseTermination,
		Censored:         o.Censored,
		WouldReject:      o.WouldReject,
		LowConfidence:    o.LowConfidence,
		FiringCounts:     map[string]int{},
	}
	if o.Termination != nil {
		t := o.Termination.Turn
		e.TerminationTurn = &t
	}
	for i, c := range o.Checkpoints {
		e.Checkpoints[i] = c.Turn
	}
	// Every registered kind, so a firing appearing or vanishing is a
	// changed number in review rather than a line added or removed.
	for _, r := range rules.Registry {
		for _, k := range r.Kinds {
			e.FiringCounts[r.Name+"/"+k.Name] = 0
		}
	}
	for k, n := range o.Counts {
		e.FiringCounts[k] = n
	}
	return e
}

// Sort puts episodes in their canonical order: by episode id, then source.
func (b *Baseline) Sort() {
	sort.SliceStable(b.Episodes, func(i, j int) bool { return lessEpisode(&b.Episodes[i], &b.Episodes[j]) })
}

func lessEpisode(a, b *Entry) bool {
	if a.EpisodeID != b.EpisodeID {
		return a.EpisodeID < b.EpisodeID
	}
	return a.Source < b.Source
}

// Encode writes the canonical form: two-space indentation, one block per
// episode, config and firing counts sorted by key, check points on one
// line, a final newline. Episodes are encoded in their current order;
// call Sort first.
func (b *Baseline) Encode() []byte {
	var w bytes.Buffer
	b.encodeHead(&w)
	for i := range b.Episodes {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString("\n    ")
		b.Episodes[i].encode(&w, "    ")
	}
	if len(b.Episodes) > 0 {
		w.WriteString("\n  ")
	}
	w.WriteString(encodeTail)
	return w.Bytes()
}

// encodeHead writes what comes before the episodes; encodeTail follows
// them.
func (b *Baseline) encodeHead(w *bytes.Buffer) {
	w.WriteString("{\n")
	fmt.Fprintf(w, "  \"schema_version\": %d,\n", b.SchemaVersion)
	w.WriteString("  \"config\": ")
	writeObject(w, "  ", slices.Sorted(maps.Keys(b.Config)), func(k string) string { return lit(b.Config[k]) })
	w.WriteString(",\n  \"episodes\": [")
}

const encodeTail = "]\n}\n"

func (e *Entry) encode(w *bytes.Buffer, ind string) {
	// Appended directly (a million entries are written, and compared
	// before that): the bytes fmt and encoding/json wrote.
	b := w.AvailableBuffer()
	b = append(b, "{\n"...)
	field := func(name string) {
		b = append(b, ind...)
		b = append(b, "  \""...)
		b = append(b, name...)
		b = append(b, "\": "...)
	}
	end := func() { b = append(b, ",\n"...) }
	field("episode_id")
	b = appendLitString(b, e.EpisodeID)
	end()
	field("source")
	b = appendLitString(b, e.Source)
	end()
	field("log_hash")
	b = appendLitString(b, e.LogHash)
	end()
	field("recorded_turns")
	b = strconv.AppendInt(b, int64(e.RecordedTurns), 10)
	end()
	field("final_score")
	b = appendLitFloat(b, e.FinalScore)
	end()
	field("termination_turn")
	if e.TerminationTurn != nil {
		b = strconv.AppendInt(b, int64(*e.TerminationTurn), 10)
	} else {
		b = append(b, "null"...)
	}
	end()
	field("checkpoints")
	b = append(b, '[')
	for i, c := range e.Checkpoints {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, int64(c), 10)
	}
	b = append(b, ']')
	end()
	field("turns_saved")
	b = strconv.AppendInt(b, int64(e.TurnsSaved), 10)
	end()
	field("llm_calls_saved")
	b = strconv.AppendInt(b, int64(e.LLMCallsSaved), 10)
	end()
	field("llm_calls_method")
	b = appendLitString(b, e.LLMCallsMethod)
	end()
	field("score_forfeited")
	b = appendLitFloat(b, e.ScoreForfeited)
	end()
	field("false_termination")
	b = strconv.AppendBool(b, e.FalseTermination)
	end()
	field("censored")
	b = strconv.AppendBool(b, e.Censored)
	end()
	field("would_reject")
	b = strconv.AppendInt(b, int64(e.WouldReject), 10)
	end()
	field("low_confidence")
	b = strconv.AppendInt(b, int64(e.LowConfidence), 10)
	end()
	field("firing_counts")
	if len(e.FiringCounts) == 0 {
		b = append(b, "{}"...)
	} else {
		b = append(b, '{')
		for i, k := range slices.Sorted(maps.Keys(e.FiringCounts)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '\n')
			b = append(b, ind...)
			b = append(b, "    "...)
			b = appendLitString(b, k)
			b = append(b, ": "...)
			b = strconv.AppendInt(b, int64(e.FiringCounts[k]), 10)
		}
		b = append(b, '\n')
		b = append(b, ind...)
		b = append(b, "  }"...)
	}
	b = append(b, '\n')
	b = append(b, ind...)
	b = append(b, '}')
	w.Write(b)
}

// appendLitString appends lit(s): a string of printable ASCII other than
// a quote or backslash as it is, any other through encoding/json.
func appendLitString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return append(b, lit(s)...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendLitFloat appends lit(f): where encoding/json writes a float64
// without an exponent (0, or 1e-6 <= |f| < 1e21), strconv's shortest
// form is its form.
func appendLitFloat(b []byte, f float64) []byte {
	if a := math.Abs(f); a == 0 || (a >= 1e-6 && a < 1e21) {
		return strconv.AppendFloat(b, f, 'f', -1, 64)
	}
	return append(b, lit(f)...)
}

func writeObject(w *bytes.Buffer, ind string, keys []string, val func(string) string) {
	if len(keys) == 0 {
		w.WriteString("{}")
		return
	}
	w.WriteString("{")
	for i, k := range keys {
		if i > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, "\n%s  %s: %s", ind, lit(k), val(k))
	}
	fmt.Fprintf(w, "\n%s}", ind)
}

func finite(x float64) float64 {
	v, _ := analyze.Finite(x)
	return v
}

// lit is the JSON literal of a scalar, without HTML escaping. A
// non-finite float is clamped (never "null": a null would read back as
// 0 and show as drift on every later check).
func lit(v any) string {
	if f, ok := v.(float64); ok {
		v = finite(f)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "null" // not a scalar: never produced
	}
	return strings.TrimSuffix(b.String(), "\n")
}
