package partial

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/loopbreak/loopbreak/rules"
)

// Read parses the partial file of size bytes in src; every error names
// it (name). An analyze partial's body is left unread (the decoder stands
// before it): the merge reads it twice, one episode at a time, so src
// must stay readable until the merge is done.
func Read(name string, src io.ReaderAt, size int64) (*File, error) {
	p := &File{src: src, size: size}
	if err := p.readHead(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

// ReadBytes is Read of a document held in memory.
func ReadBytes(name string, data []byte) (*File, error) {
	return Read(name, bytes.NewReader(data), int64(len(data)))
}

// Open opens and reads the partial file name, to be read maybe twice
// (analyze: see MergeAnalyze), from the file as it was opened even if a
// shard replaces it meanwhile. A part that cannot be read twice (a pipe:
// merge <(...)) is first copied to a temporary file. Close releases it.
func Open(name string) (*File, error) {
	src, size, closeSrc, err := openPart(name)
	if err != nil {
		return nil, err
	}
	p, err := Read(name, src, size)
	if err != nil {
		closeSrc()
		return nil, err
	}
	p.close = closeSrc
	return p, nil
}

// Close releases what Open opened.
func (p *File) Close() {
	if p.close != nil {
		p.close()
		p.close = nil
	}
}

func openPart(name string) (io.ReaderAt, int64, func(), error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, nil, err
	}
	switch {
	case fi.Mode().IsRegular():
		return f, fi.Size(), func() { f.Close() }, nil
	case fi.IsDir():
		f.Close()
		return nil, 0, nil, fmt.Errorf("%s: a directory, not a partial file", name)
	}
	defer f.Close()
	tmp, err := os.CreateTemp("", "loopbreak-merge-*.json")
	if err != nil {
		return nil, 0, nil, fmt.Errorf("%s: copying it to the temporary directory %s to read it twice: %w", name, os.TempDir(), unwrapPath(err))
	}
	// Gone at once where the system allows it: nothing is left behind
	// if the merge is killed (a SIGPIPE from merge ... | head).
	unlinked := os.Remove(tmp.Name()) == nil
	closeTmp := func() {
		tmp.Close()
		if !unlinked {
			os.Remove(tmp.Name())
		}
	}
	// Plain reader and writer: the error says which side failed.
	size, err := io.Copy(struct{ io.Writer }{tmp}, struct{ io.Reader }{f})
	if err != nil {
		closeTmp()
		var pe *os.PathError
		if errors.As(err, &pe) && pe.Path == tmp.Name() {
			// The copy's own name (unlinked already) means nothing to
			// the user; its directory is what they can free or move.
			return nil, 0, nil, fmt.Errorf("%s: copying it to the temporary directory %s to read it twice: %w", name, os.TempDir(), pe.Err)
		}
		return nil, 0, nil, fmt.Errorf("%s: %w", name, unwrapPath(err))
	}
	return tmp, size, closeTmp, nil
}

// unwrapPath drops an *os.PathError's operation and path, for a caller
// that names the file itself.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// readHead reads the document up to an analyze body, or to its end.
func (p *File) readHead() error {
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
func (p *File) readFields() error {
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
		case "shard_logs":
			v = &p.ShardLogs
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
func (p *File) readEnd() error {
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
func (p *File) readBodyEnd() error {
	if p.bodyHeld { // the body alone, the rest read already
		p.bodyNext, p.dec = false, nil
		return nil
	}
	return p.readEnd()
}

// checkHead checks the header fields read so far.
func (p *File) checkHead() error {
	if err := p.newerVersion(); err != nil {
		return err
	}
	if p.unknown != nil {
		return fmt.Errorf("not a loopbreak partial file: %v", p.unknown)
	}
	switch {
	case p.Kind != Kind:
		return fmt.Errorf("not a loopbreak partial file (kind %q, want %q)", p.Kind, Kind)
	case p.SchemaVersion != Version:
		return fmt.Errorf("partial schema version %d; this loopbreak reads version %d", p.SchemaVersion, Version)
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
func (p *File) newerVersion() error {
	if p.Kind == Kind && p.SchemaVersion > Version {
		return fmt.Errorf("partial schema version %d; this loopbreak reads version %d", p.SchemaVersion, Version)
	}
	return nil
}

// syntaxError is a read or decoding error of the document.
func (p *File) syntaxError(err error) error {
	if v := p.newerVersion(); v != nil {
		return v
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("truncated partial file: it ends inside the document, after %d bytes (copied before its shard finished writing it?)", p.size)
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Errorf("not a loopbreak partial file: %v (at byte %d)", err, syn.Offset+p.offsetShift)
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
func (p *File) config() (*rules.Config, error) {
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
func (p *File) decodeBody(v any) error {
	dec := json.NewDecoder(bytes.NewReader(p.Body))
	dec.DisallowUnknownFields()
	p.Body = nil
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s body: %v", p.Command, err)
	}
	return nil
}

// checkLog says whether a log position is one of the inputs, and one
// this part covers.
func (p *File) checkLog(i int) error {
	if i < 0 || i >= p.Inputs.Logs {
		return fmt.Errorf("log index %d out of range (%d logs)", i, p.Inputs.Logs)
	}
	if p.owner != nil && p.owner[i] != p.part {
		return fmt.Errorf("log %d is not one of shard %d/%d's (shard_logs)", i, p.Shard.K, p.Shard.N)
	}
	return nil
}

// checkErrLog is checkLog for errors, which may come from the walk (-1).
func (p *File) checkErrLog(i int) error {
	if i == -1 {
		return nil
	}
	return p.checkLog(i)
}
