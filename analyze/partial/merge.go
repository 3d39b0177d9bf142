package partial

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Merger is a set of parts that one run could have produced together,
// ready to be merged by their command: Analyze, Sweep or Check.
type Merger struct {
	Command string
	// Args are the log arguments of the first part, as its shard was
	// given them (to name them: no episodes in …).
	Args  []string
	parts []*File
	names []string
}

// Merge checks that parts (names[i] is parts[i]'s file) belong
// together: the same command, settings, configuration and inputs, each
// shard 1/N to N/N given once.
func Merge(parts []*File, names []string) (*Merger, error) {
	if err := compatible(parts, names); err != nil {
		return nil, err
	}
	return &Merger{Command: parts[0].Command, Args: parts[0].Args, parts: parts, names: names}, nil
}

// Settings decodes the parts' settings (all equal) into v.
func (m *Merger) Settings(v any) error {
	if err := json.Unmarshal(m.parts[0].Settings, v); err != nil {
		return fmt.Errorf("%s: %s settings: %v", m.names[0], m.Command, err)
	}
	return nil
}

// compatible refuses parts that one run could not have produced together:
// another command, settings, configuration or corpus, another N, a shard
// given twice or missing. names[i] is parts[i]'s file.
func compatible(parts []*File, names []string) error {
	first := parts[0]
	cfg0, _ := json.Marshal(first.Config)
	seen := map[int]string{}
	for i, p := range parts {
		what := ""
		cfg, _ := json.Marshal(p.Config)
		switch {
		case p.Command != first.Command:
			what = fmt.Sprintf("is a partial of %s, %s of %s", p.Command, names[0], first.Command)
		case !bytes.Equal(compactJSON(p.Settings), compactJSON(first.Settings)):
			what = fmt.Sprintf("was made with other %s settings than %s (%s, not %s)", p.Command, names[0], compactJSON(p.Settings), compactJSON(first.Settings))
		case !bytes.Equal(cfg, cfg0):
			what = fmt.Sprintf("was made with another configuration than %s (%s)", names[0], configDiff(first.Config, p.Config))
		case p.Inputs != first.Inputs:
			what = fmt.Sprintf("was made from other inputs than %s (%d logs, %s; not %d, %s): run every shard over the same arguments", names[0], p.Inputs.Logs, p.Inputs.Digest, first.Inputs.Logs, first.Inputs.Digest)
		case p.Shard.N != first.Shard.N:
			what = fmt.Sprintf("is shard %d/%d, %s is of %d shards", p.Shard.K, p.Shard.N, names[0], first.Shard.N)
		}
		if what != "" {
			return fmt.Errorf("cannot merge: %s %s", names[i], what)
		}
		if prev, dup := seen[p.Shard.K]; dup {
			return fmt.Errorf("cannot merge: shard %d/%d given twice (%s and %s)", p.Shard.K, p.Shard.N, prev, names[i])
		}
		seen[p.Shard.K] = names[i]
	}
	var missing []string
	for k := 1; k <= first.Shard.N; k++ {
		if _, ok := seen[k]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", k, first.Shard.N))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("cannot merge: shard %s missing", strings.Join(missing, ", "))
	}
	return nil
}

func compactJSON(b []byte) []byte {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return b
	}
	return out.Bytes()
}

// configDiff names the keys whose values differ.
func configDiff(a, b map[string]any) string {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	var diff []string
	for k := range keys {
		x, _ := json.Marshal(a[k])
		y, _ := json.Marshal(b[k])
		if !bytes.Equal(x, y) {
			diff = append(diff, fmt.Sprintf("%s = %s, not %s", k, y, x))
		}
	}
	sort.Strings(diff)
	return strings.Join(diff, "; ")
}
