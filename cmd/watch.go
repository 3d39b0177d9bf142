package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/loopbreak/loopbreak/analyze/watch"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/report"
	"github.com/loopbreak/loopbreak/rules"
)

// WatchOptions are watch's inputs.
type WatchOptions struct {
	IO      *IOStreams
	Paths   []string
	Config  configFlags
	Input   inputFlags
	Format  string        // text, jsonl
	FromEnd bool          // --from-end
	Poll    time.Duration // --poll; 0: file system events
	Idle    time.Duration // --idle; 0: never
	ExitOn  []string      // --exit-on RULE/KIND
	Exec    string        // --exec CMD
	ExecOn  []string      // --exec-on RULE/KIND; default: --exit-on's, else every firing
}

// ExitMatch is watch's exit code when --exit-on matched.
const ExitMatch = 3

// matchError is an --exit-on match: exit 3, naming it.
type matchError struct{ msg string }

func (e *matchError) Error() string { return e.msg }

// NewCmdWatch builds `loopbreak watch`; runF replaces the run in tests.
func NewCmdWatch(ios *IOStreams, runF func(*WatchOptions) error) *cobra.Command {
	opts := &WatchOptions{IO: ios}
	c := &cobra.Command{
		Use:   "watch [flags] <log | dir>...",
		Short: "Follow logs as they are written and report each firing as it happens",
		Long: `Follow episode logs while agents write them: a log file, or a directory of
sessions (every log the same walk as analyze's finds, and the ones created
later), and report each rule's firing as soon as it is final, with exactly
analyze's readers, rules and configuration: for a finished log, the firings
watch reported are those 'analyze --format jsonl' reports, in order.

A summary line ends each episode: at the agent's own end record, after --idle
without a write, when its file is deleted, or at Ctrl-C. --exit-on stops at the
first firing of a kind (exit 3); --exec runs a shell command per firing (or per
firing of the --exec-on kinds), the firing's JSON line on its standard input.`,
		Example: `  loopbreak watch game_files/episodes/
  loopbreak watch --set enable_loop_detection=true --set camping_threshold=6 game_files/episodes/
  loopbreak watch --input-format steps --exit-on tool_cycle/stop --exec 'kill -INT $AGENT_PID' run.jsonl
  loopbreak watch --format jsonl --from-end --idle 10m sessions/`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Paths = args
			if slices.Contains(args, "-") {
				return usageErrorf("watch follows files and directories, not standard input (analyze - reads a stream)")
			}
			if err := checkFormat(opts.Format, "text", "jsonl"); err != nil {
				return err
			}
			if err := opts.Input.checkInput(); err != nil {
				return err
			}
			for _, k := range append(append([]string(nil), opts.ExitOn...), opts.ExecOn...) {
				if r, _ := rules.LookupKind(k); r == nil {
					return usageErrorf("%q: not a rule/kind (loopbreak rules lists them)", k)
				}
			}
			if len(opts.ExecOn) > 0 && opts.Exec == "" {
				return usageErrorf("--exec-on needs --exec")
			}
			if opts.Poll < 0 || opts.Idle < 0 {
				return usageErrorf("--poll and --idle take a positive duration")
			}
			if runF != nil {
				return runF(opts)
			}
			return watchRun(opts)
		},
	}
	opts.Config.register(c.Flags())
	f := c.Flags()
	f.BoolVar(&opts.Input.IncludeTests, "include-tests", false, "also follow test_*/test-* episode directories")
	f.StringVar(&opts.Input.Format, "input-format", replay.FormatAuto, "log `format`: auto (detected from the first records), zorkgpt, steps or attempts")
	f.StringVar(&opts.Input.Preset, "preset", "", "read a steps log as a framework writes it: openhands or gemini-cli")
	f.StringArrayVar(&opts.Input.Fields, "field", nil, "map a steps `field` to the log's own name, field=path with a dotted path (repeatable)")
	f.StringVar(&opts.Format, "format", "text", "output `format`: text or jsonl (one JSON object per firing and per episode end)")
	f.BoolVar(&opts.FromEnd, "from-end", false, "report only what is written from now on (what the logs hold is read, not reported)")
	f.DurationVar(&opts.Poll, "poll", 0, "stat the logs at this `interval` instead of waiting for file system events (NFS, some container mounts)")
	f.DurationVar(&opts.Idle, "idle", 0, "end a session after this `duration` without a write (0: never)")
	f.StringArrayVar(&opts.ExitOn, "exit-on", nil, "exit 3 at the first firing of `rule/kind` (repeatable)")
	f.StringVar(&opts.Exec, "exec", "", "run `command` (sh -c) per firing, its JSON line on stdin, LOOPBREAK_SESSION, _EPISODE, _RULE, _KIND, _STEP, _UNIT set")
	f.StringArrayVar(&opts.ExecOn, "exec-on", nil, "run --exec only for `rule/kind` (repeatable; default: the --exit-on kinds, else every firing)")
	return c
}

func watchRun(opts *WatchOptions) error {
	cfg, _, err := opts.Config.load(opts.IO.ErrOut)
	if err != nil {
		return err
	}
	opts.Input.Outputs = rules.NeedsOutputs(cfg)
	// A directory is scanned as analyze scans it.
	var match func(name string) bool // nil: episode_log.jsonl[.gz|.zst]
	var keep func(path string) bool
	switch {
	case opts.Input.agentLogs():
		match = replay.AgentLogName
	case opts.Input.Format == replay.FormatAuto:
		match, keep = scanMatch, scanKeep
	}
	ctx, stop := signalContext()
	defer stop()
	out := &watchOutput{opts: opts, exitOn: kindSet(opts.ExitOn), execOn: kindSet(opts.ExecOn)}
	if len(out.execOn) == 0 {
		out.execOn = out.exitOn
	}
	wopts := watch.Options{Read: opts.Input.options(), Config: cfg, Match: match, Keep: keep, IncludeTests: opts.Input.IncludeTests,
		FromEnd: opts.FromEnd, Poll: opts.Poll, Idle: opts.Idle}
	err = watch.Run(ctx, opts.Paths, wopts, out.event)
	// The commands --exec started finish, unless the watch was
	// interrupted: then they get execGrace, as a second Ctrl-C is not to
	// be needed.
	done := make(chan struct{})
	go func() {
		out.execs.Wait()
		close(done)
	}()
	if ctx.Err() == nil {
		<-done
		return err
	}
	select {
	case <-done:
	case <-time.After(execGrace):
		fmt.Fprintf(opts.IO.ErrOut, "loopbreak: --exec: a command still running after %v is left behind\n", execGrace)
	}
	return err
}

// execGrace is how long an interrupted watch waits for --exec's commands.
const execGrace = 5 * time.Second

func kindSet(keys []string) map[string]bool {
	if len(keys) == 0 {
		return nil
	}
	m := map[string]bool{}
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// watchOutput writes a watch's events.
type watchOutput struct {
	opts           *WatchOptions
	exitOn, execOn map[string]bool
	mu             sync.Mutex     // stderr, shared with --exec's goroutines
	execs          sync.WaitGroup // --exec runs queued or running
	queue          chan execJob
	buf            []byte
}

func (w *watchOutput) event(e watch.Event) error {
	var err error
	if w.opts.Format == "jsonl" {
		err = w.jsonl(e)
	} else {
		err = w.text(e)
	}
	if err != nil {
		return err
	}
	if e.Kind != watch.Firing {
		return nil
	}
	key := e.Firing.KindKey()
	if w.opts.Exec != "" && (w.execOn == nil || w.execOn[key]) {
		w.exec(e)
	}
	if w.exitOn[key] {
		w.execs.Wait() // the command acts before the watch exits
		return &matchError{fmt.Sprintf("--exit-on %s: %s %s %d", key, report.Term(e.Session), e.Firing.Unit, e.Firing.Turn)}
	}
	return nil
}

// firingJSON is the firing as analyze encodes it in an episode's firings.
func firingJSON(e *watch.Event) ([]byte, error) {
	return report.Firing{Firing: e.Firing, AfterCut: e.AfterCut}.MarshalJSON()
}

// firingLine is a firing's JSON line: {"event", "session", "episode",
// "offset"} followed by the members analyze gives it.
func (w *watchOutput) firingLine(e watch.Event) ([]byte, error) {
	fj, err := firingJSON(&e)
	if err != nil {
		return nil, err
	}
	b := []byte(`{"event":"firing","session":`)
	b = appendJSONString(b, e.Session)
	b = append(b, `,"episode":`...)
	b = appendJSONString(b, e.Episode)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, e.Offset, 10)
	b = append(b, ',')
	b = append(b, fj[1:]...) // its members and its closing brace
	return append(b, '\n'), nil
}

// jsonl writes one object per event.
func (w *watchOutput) jsonl(e watch.Event) error {
	if e.Kind == watch.Firing {
		line, err := w.firingLine(e)
		if err == nil {
			_, err = w.opts.IO.Out.Write(line)
		}
		return err
	}
	b := w.buf[:0]
	b = append(b, `{"event":`...)
	b = strconv.AppendQuote(b, eventName(e.Kind)) // ASCII names
	b = append(b, `,"session":`...)
	b = appendJSONString(b, e.Session)
	if e.Episode != "" {
		b = append(b, `,"episode":`...)
		b = appendJSONString(b, e.Episode)
	}
	switch e.Kind {
	case watch.End:
		b = append(b, `,"reason":`...)
		b = appendJSONString(b, e.Reason)
		s := e.Summary
		b = append(b, `,"unit":`...)
		b = appendJSONString(b, s.Unit)
		b = append(b, `,"recorded_end":`...)
		b = appendJSONString(b, s.RecordedEnd)
		b = fmt.Appendf(b, `,"turns":%d,"firings":%d,"termination":`, s.Turns, s.Firings)
		if s.Termination != nil {
			b = strconv.AppendInt(b, int64(s.Termination.Turn), 10)
		} else {
			b = append(b, "null"...)
		}
		b = append(b, `,"counts":{`...)
		for i, k := range sortedCounts(s.Counts) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = fmt.Appendf(b, ":%d", s.Counts[k])
		}
		b = append(b, "}}"...)
		b = append(b, '\n')
		w.buf = b
		_, err := w.opts.IO.Out.Write(b)
		return err
	default:
		if e.Reason != "" {
			b = append(b, `,"reason":`...)
			b = appendJSONString(b, e.Reason)
		}
	}
	b = append(b, "}\n"...)
	w.buf = b
	_, err := w.opts.IO.Out.Write(b)
	return err
}

func eventName(k watch.EventKind) string {
	return [...]string{"firing", "start", "restart", "end", "problem", "revised"}[k]
}

func sortedCounts(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// appendJSONString appends s as a JSON string (control characters
// escaped; invalid UTF-8 as U+FFFD, as encoding/json does).
func appendJSONString(b []byte, s string) []byte {
	data, _ := json.Marshal(s) // a string always encodes
	return append(b, data...)
}

// text writes one line per event for a person.
func (w *watchOutput) text(e watch.Event) error {
	var b strings.Builder
	b.WriteString(time.Now().Format("15:04:05 "))
	if e.Session == "" {
		b.WriteString("loopbreak watch") // about the watch itself (file system events)
	}
	b.WriteString(report.Term(e.Session))
	if e.Episode != "" && e.Episode != replay.DefaultEpisodeID(e.Session) {
		b.WriteString(" [" + report.Term(e.Episode) + "]")
	}
	switch e.Kind {
	case watch.Firing:
		f := e.Firing
		fmt.Fprintf(&b, " %s %d: %s", f.Unit, f.Turn, f.KindKey())
		for _, field := range f.Kind.Fields {
			fmt.Fprintf(&b, " %s=%s", field, textValue(report.FieldValue(f, field)))
		}
		if e.AfterCut {
			b.WriteString(" (after the cut)")
		}
	case watch.End:
		s := e.Summary
		fmt.Fprintf(&b, " ended (%s): %d %ss, %d firings", report.Term(e.Reason), s.Turns, s.Unit, s.Firings)
		if s.Termination != nil {
			fmt.Fprintf(&b, ", would have stopped at %s %d", s.Unit, s.Termination.Turn)
		}
		for _, k := range sortedCounts(s.Counts) {
			fmt.Fprintf(&b, "; %s %d", k, s.Counts[k])
		}
	case watch.Start:
		if e.Reason == "" {
			b.WriteString(" following")
		} else {
			b.WriteString(" following (" + e.Reason + ")")
		}
	case watch.Restart:
		b.WriteString(" starting over: " + report.Term(e.Reason))
	case watch.Revised:
		b.WriteString(" revised: " + report.Term(e.Reason))
	case watch.Problem:
		b.WriteString(": " + report.Term(e.Reason))
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w.opts.IO.Out, b.String())
	return err
}

// textValue spells a firing's field for the text line.
func textValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(v)
	case []string:
		q := make([]string, len(v))
		for i, s := range v {
			q[i] = strconv.Quote(s)
		}
		return "[" + strings.Join(q, ",") + "]"
	}
	return fmt.Sprint(v)
}

// execJob is one run of --exec.
type execJob struct {
	in   []byte   // the firing's JSON line
	env  []string // LOOPBREAK_*
	what string   // the firing, for a failure's message
}

// exec queues --exec for a firing. One worker runs the commands in the
// order of their firings; a full queue holds the watch back rather than
// start hundreds of processes at once. A command's failure is told on
// stderr; the watch goes on.
func (w *watchOutput) exec(e watch.Event) {
	in, err := w.firingLine(e)
	if err != nil {
		return
	}
	f := e.Firing
	job := execJob{in: in, what: fmt.Sprintf("%s %s %d %s", report.Term(e.Session), f.Unit, f.Turn, f.KindKey()),
		env: append(os.Environ(),
			"LOOPBREAK_SESSION="+e.Session,
			"LOOPBREAK_EPISODE="+e.Episode,
			"LOOPBREAK_RULE="+f.Rule.Name,
			"LOOPBREAK_KIND="+f.Kind.Name,
			"LOOPBREAK_STEP="+strconv.Itoa(f.Turn),
			"LOOPBREAK_UNIT="+f.Unit,
		)}
	if w.queue == nil {
		w.queue = make(chan execJob, 64)
		go func() {
			for job := range w.queue {
				w.run(job)
				w.execs.Done()
			}
		}()
	}
	w.execs.Add(1)
	w.queue <- job
}

func (w *watchOutput) run(job execJob) {
	c := exec.Command("sh", "-c", w.opts.Exec)
	c.Env = job.env
	c.Stdin = bytes.NewReader(job.in)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	err := c.Run()
	w.mu.Lock()
	defer w.mu.Unlock()
	if out.Len() > 0 {
		w.opts.IO.ErrOut.Write(out.Bytes())
	}
	if err != nil {
		fmt.Fprintf(w.opts.IO.ErrOut, "loopbreak: --exec for %s: %v\n", job.what, err)
	}
}
