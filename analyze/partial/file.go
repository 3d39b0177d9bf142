// Package partial is sharding and merging: which logs a shard reads
// (Select), the partial file a shard writes (Write, Stream, and the
// per-command bodies), its versioned reader (Read, Open) and the merge of
// every shard's part into what one run over all the logs reports (Merge).
// It holds no words: cmd renders what a merge gives.
//
// A partial file is what `analyze|sweep|check --partial` writes for one
// shard and `loopbreak merge` reads: exact sums and histograms (never a
// mean), the per-episode rows the final output lists, and enough about
// the run (command, settings, configuration, inputs, shard) to refuse to
// merge parts that do not belong together. docs/sharding.md: "Partial files".
package partial

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/analyze/outfile"
	"github.com/loopbreak/loopbreak/rules"
)

const (
	// Kind is a partial file's "kind".
	Kind = "loopbreak-partial"
	// Version is the schema version this loopbreak writes and reads.
	// 2: shard_logs, the logs each part covers.
	Version = 2
)

// File is the document; Body depends on Command.
type File struct {
	Kind          string `json:"kind"`
	SchemaVersion int    `json:"schema_version"`
	Command       string `json:"command"` // analyze, sweep or check
	// Args are the command's log arguments as given, to name them as one
	// run does (no episodes in …); shards may see them under other
	// mount points, so they are not compared.
	Args []string `json:"args"`
	// Settings are the command's flags that shape its output (a grid,
	// --by-episode, the shard's --format); parts must agree on them.
	Settings json.RawMessage `json:"settings"`
	Config   map[string]any  `json:"config"`
	Shard    Shard           `json:"shard"`
	Inputs   Inputs          `json:"inputs"`
	// ShardLogs are the positions among all the logs of this shard's,
	// ascending: a merge checks that the parts cover every log once.
	ShardLogs []int `json:"shard_logs"`
	// Body is a sweep's or check's body. An analyze body is not held:
	// the merge streams it from src (analyze.go).
	Body json.RawMessage `json:"body"`

	// src holds the document (size bytes); dec reads it, up to the
	// analyze body while bodyNext.
	src      io.ReaderAt
	size     int64
	dec      *json.Decoder
	bodyNext bool
	bodyHeld bool // an analyze body read before its header, held in src
	hasBody  bool
	unknown  error // the first unknown field, reported once the version is known
	// offsetShift turns dec's offsets into src's once dec is a decoder
	// that took over after the episodes array (decoderAfter).
	offsetShift int64
	close       func() // Open's: releases src
	// owner[i] is the part (index among the merged ones) that covers log
	// i, and part is this one's: set by Merge.
	owner []int32
	part  int32
}

// Inputs describe every shard's logs, not just this one's.
type Inputs struct {
	Logs   int    `json:"logs"`
	Digest string `json:"digest"`
}

// Error is an unreadable file and its position among the logs; -1 for
// what the directory walk skipped, which a run lists first.
type Error struct {
	Log int `json:"log"`
	analyze.FileError
}

// WalkErrors are the errors of a partial before any log is read.
func WalkErrors(set *LogSet) []Error {
	errs := []Error{}
	for _, e := range set.WalkErrs {
		errs = append(errs, Error{Log: -1, FileError: e})
	}
	return errs
}

// New starts the partial file of a run of command over the logs of set
// (args as given); settings is marshalled.
func New(command string, settings any, cfg *rules.Config, args []string, set *LogSet) (*File, error) {
	s, err := json.Marshal(settings)
	if err != nil {
		return nil, err
	}
	p := &File{Kind: Kind, SchemaVersion: Version, Command: command, Args: args, Settings: s, Config: cfg.Map(),
		Shard: Shard{K: 1, N: 1}, Inputs: Inputs{Logs: set.Total, Digest: set.Digest}, ShardLogs: append([]int{}, set.Index...)}
	if set.Shard.On() {
		p.Shard = Shard{K: set.Shard.K, N: set.Shard.N}
	}
	return p, nil
}

// Write marshals body into p and writes it to the file output (whole or
// not at all: a killed shard leaves no half-written part for a merge to
// choke on) or, without one ("" or "-"), to out.
func Write(out io.Writer, output string, p *File, body any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	p.Body = b
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if output == "" || output == "-" {
		_, err := out.Write(data)
		return err
	}
	return outfile.Write(output, outfile.Options{Out: out}, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Stream is a partial whose body is written as it is made, member by
// member: memory does not grow with the shard. Nothing is written unless
// Commit is reached (then all of it).
type Stream struct {
	o *outfile.File
	w *bufio.Writer
}

// NewStream starts writing p to the file output or (""/"-") out: the
// header and the body's opening brace.
func NewStream(out io.Writer, output string, p *File) (*Stream, error) {
	p.Body = json.RawMessage("0")
	head, err := json.Marshal(p)
	p.Body = nil
	if err != nil {
		return nil, err
	}
	head, ok := bytes.CutSuffix(head, []byte(`"body":0}`))
	if !ok {
		return nil, errors.New("partial header: body is not its last field") // a bug
	}
	o, err := outfile.Create(output, outfile.Options{Out: out})
	if err != nil {
		return nil, err
	}
	s := &Stream{o: o, w: bufio.NewWriterSize(o, 64<<10)}
	s.w.Write(head)
	s.w.WriteString(`"body":{`)
	return s, nil
}

// Raw writes b as it is (bufio keeps the first error for Commit).
func (s *Stream) Raw(b []byte) { s.w.Write(b) }

// Member writes the body member key: v, after a comma unless first.
func (s *Stream) Member(first bool, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if !first {
		s.w.WriteByte(',')
	}
	s.w.WriteString(strconv.Quote(key) + ":")
	s.w.Write(b)
	return nil
}

// Commit ends the document and puts it in place.
func (s *Stream) Commit() error {
	s.w.WriteString("}}\n")
	if err := s.w.Flush(); err != nil {
		return s.o.Named(err)
	}
	return s.o.Commit()
}

// Abort writes nothing, unless committed.
func (s *Stream) Abort() { s.o.Abort() }
