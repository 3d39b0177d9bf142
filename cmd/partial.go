package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/rules"
)

// A partial file is what `analyze|sweep|check --partial` writes for one
// shard and `loopbreak merge` reads: exact sums and histograms (never a
// mean), the per-episode rows the final output lists, and enough about
// the run (command, settings, configuration, inputs, shard) to refuse to
// merge parts that do not belong together. README: "Partial files".
const (
	partialKind    = "loopbreak-partial"
	partialVersion = 1
)

// partialFile is the document; Body depends on Command.
type partialFile struct {
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
	Shard    partialShard    `json:"shard"`
	Inputs   partialInputs   `json:"inputs"`
	// Body is a sweep's or check's body. An analyze body is not held:
	// the merge streams it from src (partial_analyze.go).
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
}

type partialShard struct {
	K int `json:"k"`
	N int `json:"n"`
}

// partialInputs describe every shard's logs, not just this one's.
type partialInputs struct {
	Logs   int    `json:"logs"`
	Digest string `json:"digest"`
}

// partialError is an unreadable file and its position among the logs;
// -1 for what the directory walk skipped, which a run lists first.
type partialError struct {
	Log int `json:"log"`
	analyze.FileError
}

// walkErrors are the errors of a partial before any log is read.
func walkErrors(set *logSet) []partialError {
	errs := []partialError{}
	for _, e := range set.WalkErrs {
		errs = append(errs, partialError{Log: -1, FileError: e})
	}
	return errs
}

// partialFlags are --partial and -o, shared by analyze, sweep and check.
type partialFlags struct {
	Partial bool
	Output  string
}

func (p *partialFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&p.Partial, "partial", false, "write a mergeable partial result (JSON) for `loopbreak merge` instead of the report; use with --shard")
	fs.StringVarP(&p.Output, "output", "o", "", "write to `file` instead of standard output")
}

// check refuses -o without --partial (sweep and check print their report
// to standard output only).
func (p *partialFlags) check() error {
	if p.Output != "" && !p.Partial {
		return usageErrorf("-o: only with --partial")
	}
	return nil
}

// newPartial starts the partial file of a run; settings is marshalled.
func newPartial(command string, settings any, cfg *rules.Config, in *inputFlags, set *logSet) (*partialFile, error) {
	s, err := json.Marshal(settings)
	if err != nil {
		return nil, err
	}
	p := &partialFile{Kind: partialKind, SchemaVersion: partialVersion, Command: command, Args: in.args, Settings: s, Config: cfg.Map(),
		Shard: partialShard{K: 1, N: 1}, Inputs: partialInputs{Logs: set.Total, Digest: set.Digest}}
	if in.Shard.on() {
		p.Shard = partialShard{K: in.Shard.K, N: in.Shard.N}
	}
	return p, nil
}

// write marshals body into the partial and writes it to -o or out.
func (p *partialFile) write(out io.Writer, output string, body any) error {
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
	return writeOutput(out, output, data)
}

// partialStream is a partial whose body is written as it is made, member
// by member: memory does not grow with the shard. Nothing is written
// unless commit is reached (then all of it).
type partialStream struct {
	o *outputFile
	w *bufio.Writer
}

// stream starts writing p to -o or out: the header and the body's
// opening brace.
func (p *partialFile) stream(out io.Writer, output string) (*partialStream, error) {
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
	o, err := createOutput(out, output)
	if err != nil {
		return nil, err
	}
	s := &partialStream{o: o, w: bufio.NewWriterSize(o.w(), 64<<10)}
	s.w.Write(head)
	s.w.WriteString(`"body":{`)
	return s, nil
}

// raw writes b as it is (bufio keeps the first error for flush).
func (s *partialStream) raw(b []byte) { s.w.Write(b) }

// member writes the body member key: v, after a comma unless first.
func (s *partialStream) member(first bool, key string, v any) error {
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

// commit ends the document and puts it in place.
func (s *partialStream) commit() error {
	s.w.WriteString("}}\n")
	if err := s.w.Flush(); err != nil {
		return s.o.named(err)
	}
	return s.o.commit()
}

// abort writes nothing, unless committed.
func (s *partialStream) abort() { s.o.abort() }

// writeOutput writes data to the file (atomically: a killed shard leaves
// no half-written part for a merge to choke on) or, without one, to out.
func writeOutput(out io.Writer, file string, data []byte) error {
	if file == "" || file == "-" {
		_, err := out.Write(data)
		return err
	}
	return writeFileAtomic(file, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeFileAtomic writes a file through a temporary file beside it;
// errors of its own name the file, fill's are returned as they are.
func writeFileAtomic(file string, fill func(io.Writer) error) error {
	o, err := createOutput(nil, file)
	if err != nil {
		return err
	}
	defer o.abort()
	if err := fill(o.tmp); err != nil {
		return err
	}
	return o.commit()
}

// outputFile is an output written through a temporary file and put in
// place whole by commit, so that an error or a kill leaves nothing half
// written: renamed to file, or, without one, copied to out.
type outputFile struct {
	tmp      *os.File
	held     *bytes.Buffer // instead of tmp, when none could be made
	file     string
	out      io.Writer
	unlinked bool // tmp has no name left
}

// w is where the output goes until commit.
func (o *outputFile) w() io.Writer {
	if o.held != nil {
		return o.held
	}
	return o.tmp
}

// createOutput starts the output to file ("" or "-": to out); errors of
// its own name the file.
func createOutput(out io.Writer, file string) (*outputFile, error) {
	if file == "-" {
		file = ""
	}
	dir, pattern := os.TempDir(), "loopbreak-output-*"
	if file != "" {
		dir, pattern = filepath.Dir(file), "."+filepath.Base(file)+".*"
	}
	tmp, err := os.CreateTemp(dir, pattern)
	if err != nil {
		if file == "" { // no temporary directory: held in memory
			return &outputFile{out: out, held: &bytes.Buffer{}}, nil
		}
		return nil, fmt.Errorf("writing %s: %w", file, errors.Unwrap(err)) // CreateTemp's error names the temporary file
	}
	o := &outputFile{tmp: tmp, file: file, out: out}
	if file == "" {
		// Gone at once where the system allows it: a SIGPIPE that
		// kills the copy to out leaves nothing behind.
		o.unlinked = os.Remove(tmp.Name()) == nil
		return o, nil
	}
	// CreateTemp makes 0600; a part is read by the merging job's user.
	if err := tmp.Chmod(0o644); err != nil {
		o.abort()
		return nil, o.named(err)
	}
	return o, nil
}

func (o *outputFile) remove(tmp *os.File) {
	if !o.unlinked {
		os.Remove(tmp.Name())
	}
}

func (o *outputFile) named(err error) error {
	if o.file == "" {
		return err
	}
	return fmt.Errorf("writing %s: %w", o.file, err)
}

// commit puts the output in place.
func (o *outputFile) commit() error {
	if o.held != nil {
		_, err := o.out.Write(o.held.Bytes())
		o.held = nil
		return err
	}
	tmp := o.tmp
	o.tmp = nil
	defer o.remove(tmp) // once renamed, nothing to remove
	if o.file == "" {
		defer tmp.Close()
		if _, err := tmp.Seek(0, io.SeekStart); err != nil {
			return err
		}
		_, err := io.Copy(o.out, tmp)
		return err
	}
	if err := tmp.Close(); err != nil {
		return o.named(err)
	}
	if err := os.Rename(tmp.Name(), o.file); err != nil {
		return o.named(err)
	}
	return nil
}

// abort removes the temporary file, unless committed.
func (o *outputFile) abort() {
	o.held = nil
	if o.tmp != nil {
		o.tmp.Close()
		o.remove(o.tmp)
		o.tmp = nil
	}
}

// readPartial parses one partial file held in memory; every error names it.
func readPartial(name string, data []byte) (*partialFile, error) {
	return readPartialAt(name, bytes.NewReader(data), int64(len(data)))
}

// readPartialAt parses the partial file of size bytes in src; every error
// names it. An analyze partial's body is left unread (p.dec stands before
// it): the merge reads it twice, one episode at a time (mergeAnalyze), so
// src must stay readable until the merge is done.
func readPartialAt(name string, src io.ReaderAt, size int64) (*partialFile, error) {
	p := &partialFile{src: src, size: size}
	if err := p.readHead(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

// readHead reads the document up to an analyze body, or to its end.
func (p *partialFile) readHead() error {
	if p.size == 0 {
		return errors.New("not a loopbreak partial file: empty")
	}
	p.dec = json.NewDecoder(io.NewSectionReader(p.src, 0, p.size))
	p.dec.DisallowUnknownFields()
	tok, err := p.dec.Token()
	if err != nil {
		return p.syntaxError(err)
	}
	if tok != json.Delim('{') {
		return errors.New("not a loopbreak partial file: not a JSON object")
	}
	if err := p.readFields(); err != nil {
		return err
	}
	if p.bodyNext {
		return nil
	}
	return p.readEnd()
}

// readFields reads fields up to the document's end or, in an analyze
// partial whose header is complete, up to its body (p.bodyNext): an
// analyze body holds every episode, too much to keep. Unknown fields are
// reported after the version, which may explain them.
func (p *partialFile) readFields() error {
	for p.dec.More() {
		tok, err := p.dec.Token()
		if err != nil {
			return p.syntaxError(err)
		}
		key, _ := tok.(string)
		var v any
		switch key {
		case "kind":
			v = &p.Kind
		case "schema_version":
			v = &p.SchemaVersion
		case "command":
			v = &p.Command
		case "args":
			v = &p.Args
		case "settings":
			v = &p.Settings
		case "config":
			v = &p.Config
		case "shard":
			v = &p.Shard
		case "inputs":
			v = &p.Inputs
		case "body":
			if p.hasBody {
				return errors.New("not a loopbreak partial file: body given twice")
			}
			p.hasBody = true
			if p.Command == "analyze" && p.checkHead() == nil {
				p.bodyNext = true
				return nil
			}
			// Sweep and check bodies are held (their rows are few per
			// episode); so is a body before its header.
			v = &p.Body
		default:
			if p.unknown == nil {
				p.unknown = fmt.Errorf("json: unknown field %q", key)
			}
			if err := skipValue(p.dec); err != nil {
				return p.syntaxError(err)
			}
			continue
		}
		if err := p.dec.Decode(v); err != nil {
			return p.syntaxError(err)
		}
	}
	return nil
}

// readEnd reads what follows the body and checks the whole header.
func (p *partialFile) readEnd() error {
	p.bodyNext = false
	if err := p.readFields(); err != nil {
		return err
	}
	if p.bodyNext {
		return errors.New("not a loopbreak partial file: body given twice")
	}
	if _, err := p.dec.Token(); err != nil { // the closing brace
		return p.syntaxError(err)
	}
	if p.dec.More() {
		return errors.New("not a loopbreak partial file: data after the document")
	}
	if err := p.checkHead(); err != nil {
		return err
	}
	if !p.hasBody || (p.Command != "analyze" && len(p.Body) == 0) {
		return errors.New("incomplete partial file: settings, config or body missing")
	}
	if p.Command == "analyze" && p.Body != nil {
		// Its body came before its header: read it where it is held.
		p.src, p.size = bytes.NewReader(p.Body), int64(len(p.Body))
		p.Body = nil
		p.dec = json.NewDecoder(io.NewSectionReader(p.src, 0, p.size))
		p.dec.DisallowUnknownFields()
		p.bodyNext, p.bodyHeld = true, true
		return nil
	}
	p.dec = nil
	return nil
}

// readBodyEnd reads what follows an analyze body.
func (p *partialFile) readBodyEnd() error {
	if p.bodyHeld { // the body alone, the rest read already
		p.bodyNext, p.dec = false, nil
		return nil
	}
	return p.readEnd()
}

// checkHead checks the header fields read so far.
func (p *partialFile) checkHead() error {
	if err := p.newerVersion(); err != nil {
		return err
	}
	if p.unknown != nil {
		return fmt.Errorf("not a loopbreak partial file: %v", p.unknown)
	}
	switch {
	case p.Kind != partialKind:
		return fmt.Errorf("not a loopbreak partial file (kind %q, want %q)", p.Kind, partialKind)
	case p.SchemaVersion != partialVersion:
		return fmt.Errorf("partial schema version %d; this loopbreak reads version %d", p.SchemaVersion, partialVersion)
	case p.Command != "analyze" && p.Command != "sweep" && p.Command != "check":
		return fmt.Errorf("partial of unknown command %q", p.Command)
	case p.Shard.N < 1 || p.Shard.K < 1 || p.Shard.K > p.Shard.N:
		return fmt.Errorf("bad shard %d/%d", p.Shard.K, p.Shard.N)
	case p.Inputs.Logs < 0:
		return fmt.Errorf("bad input count %d", p.Inputs.Logs)
	case len(p.Settings) == 0 || p.Config == nil:
		return errors.New("incomplete partial file: settings, config or body missing")
	}
	return nil
}

// newerVersion says "a newer loopbreak" rather than what it wrote that
// this one does not read, when that is the reason.
func (p *partialFile) newerVersion() error {
	if p.Kind == partialKind && p.SchemaVersion > partialVersion {
		return fmt.Errorf("partial schema version %d; this loopbreak reads version %d", p.SchemaVersion, partialVersion)
	}
	return nil
}

// syntaxError is a read or decoding error of the document.
func (p *partialFile) syntaxError(err error) error {
	if v := p.newerVersion(); v != nil {
		return v
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("truncated partial file: it ends inside the document, after %d bytes (copied before its shard finished writing it?)", p.size)
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Errorf("not a loopbreak partial file: %v (at byte %d)", err, syn.Offset)
	}
	return fmt.Errorf("not a loopbreak partial file: %v", err)
}

// skipValue reads past the next value, holding no more of it than a token.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// config rebuilds the configuration a partial was made with.
func (p *partialFile) config() (*rules.Config, error) {
	cfg := rules.Default()
	for _, k := range rules.Keys() {
		if _, ok := p.Config[k]; !ok {
			return nil, fmt.Errorf("config: key %s missing", k)
		}
	}
	for k, v := range p.Config {
		if err := cfg.Set(k, v, rules.Source{Kind: "partial"}); err != nil {
			return nil, fmt.Errorf("config: %v", err)
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("config: %v", err)
	}
	return cfg, nil
}

// decodeBody decodes a partial's body strictly into v, once: the raw body
// is let go, so a merge holds each episode's bytes once, not twice.
func (p *partialFile) decodeBody(v any) error {
	dec := json.NewDecoder(bytes.NewReader(p.Body))
	dec.DisallowUnknownFields()
	p.Body = nil
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s body: %v", p.Command, err)
	}
	return nil
}

// checkLog says whether a log position is one of the inputs.
func (p *partialFile) checkLog(i int) error {
	if i < 0 || i >= p.Inputs.Logs {
		return fmt.Errorf("log index %d out of range (%d logs)", i, p.Inputs.Logs)
	}
	return nil
}

// checkErrLog is checkLog for errors, which may come from the walk (-1).
func (p *partialFile) checkErrLog(i int) error {
	if i == -1 {
		return nil
	}
	return p.checkLog(i)
}

// compatible refuses parts that one run could not have produced together:
// another command, settings, configuration or corpus, another N, a shard
// given twice or missing. names[i] is parts[i]'s file.
func compatible(parts []*partialFile, names []string) error {
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
