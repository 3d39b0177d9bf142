package detect

import (
	"bytes"
	"strings"
	"unsafe"
)

// SignatureConfig configures signature_repeat.
type SignatureConfig struct {
	// Threshold is signature_threshold: how many equal signatures in a row
	// make a loop.
	Threshold int
}

// SignatureParams declares signature_repeat's keys.
var SignatureParams = []Param{
	{Key: "signature_threshold", Type: TypeInt, Default: 3, Min: bound(2), Max: bound(100),
		Doc: "a loop fires when this many consecutive steps have the same signature"},
}

// DefaultSignatureConfig is signature_repeat's deployed default.
func DefaultSignatureConfig() SignatureConfig { return SignatureConfig{Threshold: 3} }

// Validate checks the configuration against SignatureParams.
func (c SignatureConfig) Validate() error {
	return checkAll(SignatureParams, c.values())
}

func (c SignatureConfig) values() map[string]float64 {
	return map[string]float64{"signature_threshold": float64(c.Threshold)}
}

// SignatureFiring is one signature_repeat firing.
type SignatureFiring struct {
	Firing
	// Signature is the repeated signature.
	Signature string `json:"signature"`
}

// SignatureRepeat is the signature_repeat detector (RULES.md §8): it fires
// at every step whose last Threshold signatures, its own included, are
// equal. Equality being transitive, those are equal when each of them
// equals the one before: the detector counts the equal signatures in a
// row ending at the latest step, which takes one comparison a step, with
// the step before, and keeps two signatures (where it compared the step
// with each of the Threshold-1 before it, in a ring of max(5, Threshold)),
// their parts in buffers reused from step to step: a step allocates only
// when it fires.
//
// A signature's output part, a scan of the whole output, is made only
// when the signature is compared with one of the same norm(action): two
// signatures whose actions differ differ, when neither action holds a
// '|' (the first '|' of each is then the one after the action). Most
// steps of a log follow a step of another action and precede one, and
// most actions are told apart from the one before by their first bytes
// (actionsDiffer), without their norm(action).
type SignatureRepeat struct {
	threshold int
	slots     [2]sigSlot // step n's signature in slots[n%2]
	n         int        // steps seen
	run       int        // equal signatures in a row, the latest step's last
	fired     string     // the signature of the last firing: a loop's next firing has it too
}

// sigSlot is a step's signature, with the action and output it was made
// from.
type sigSlot struct {
	// norm is norm(action) once normed says it is made, out the output's
	// signature once made says it is: the signature is norm, '|' and
	// out, the parts made apart (two outputs of one action are compared
	// without their norm(action)).
	norm, out      []byte
	action, output string
	// outBuf holds output's bytes when Step.Output lives only while its
	// step is checked (OutputTransient): the slot is read again at the
	// next step.
	outBuf []byte
	// plain says out is a fallback signature, and one no structured
	// signature can be equal to (of another output, only a fallback the
	// same); bar says the action holds a '|'.
	normed, made, plain, bar bool
}

// NewSignatureRepeat returns a detector with no history.
func NewSignatureRepeat(c SignatureConfig) (*SignatureRepeat, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	d := &SignatureRepeat{threshold: c.Threshold}
	// The two signatures' parts in one block, sigCap bytes each (a short
	// action, or 50 code points, fit): grown from nothing, byte by byte,
	// they cost allocations at an episode's first steps, most of a short
	// episode's. A part that needs more grows on its own (each is a full
	// slice expression of the block).
	block := make([]byte, 2*len(d.slots)*sigCap)
	for i := range d.slots {
		j := 2 * i * sigCap
		d.slots[i].norm = block[j : j : j+sigCap]
		d.slots[i].out = block[j+sigCap : j+sigCap : j+2*sigCap]
	}
	return d, nil
}

// sigCap is the room NewSignatureRepeat gives each part of a signature.
const sigCap = 64

// Step adds a step's signature and returns the firing, if any.
func (d *SignatureRepeat) Step(s Step) []SignatureFiring {
	if f, ok := d.Check(&s); ok {
		return []SignatureFiring{f}
	}
	return nil
}

// Reset forgets the steps seen, keeping the signatures' memory (but a
// signature's that outgrew sigCap by far): a detector starts another
// episode as a new one would.
func (d *SignatureRepeat) Reset() {
	d.n, d.run, d.fired = 0, 0, ""
	for i := range d.slots {
		if t := &d.slots[i]; cap(t.norm) > 16*sigCap {
			t.norm = nil
		}
		if t := &d.slots[i]; cap(t.out) > 16*sigCap {
			t.out = nil
		}
		if t := &d.slots[i]; cap(t.outBuf) > 64<<10 {
			t.outBuf = nil
		}
	}
}

// Threshold is the configuration's signature_threshold.
func (d *SignatureRepeat) Threshold() int { return d.threshold }

// sameOtherAction says the signatures of slots a and b, whose actions
// are not the same strings, are equal, making their norm(action) unless
// actionsDiffer tells them apart by their first bytes, and their output
// parts unless their norm(action) tells them apart (or it and their
// outputs are equal: steps of a loop told apart by an action's case or
// spaces).
func sameOtherAction(a, b *sigSlot) bool {
	if !a.bar && !b.bar && actionsDiffer(a.action, b.action) {
		return false
	}
	if x, y := a.normOf(), b.normOf(); !bytes.Equal(x, y) {
		if !a.bar && !b.bar {
			return false
		}
		return joinedEqual(x, a.outSig(), y, b.outSig())
	}
	return a.output == b.output || sameOutput(a, b)
}

// sameOutput says the signatures of slots a and b, of one norm(action)
// and outputs that differ, are equal: the signature of one is made (one
// made already, else the shorter), and when it is plain the other's is
// made only if its fallback is the same (of the outputs a steps log
// compares that differ, nearly all differ in their first 50 code
// points), when it is an error's only if errorDiffers cannot tell.
func sameOutput(a, b *sigSlot) bool {
	k, u := a, b
	if !a.made && (b.made || len(b.output) < len(a.output)) {
		k, u = b, a
	}
	f := k.outSig()
	if !u.made && (k.plain && fallbackDiffers(f, u.output) || !k.plain && errorDiffers(f, u.output)) {
		return false
	}
	return bytes.Equal(a.outSig(), b.outSig())
}

// actionsDiffer says norm(a) is not norm(b), from their first bytes up
// to the first that differs as fallbackByte has them (in lower case,
// white space all one), when it can: when neither starts with white
// space and the bytes up to it are ASCII, a byte that differs, or a
// prefix that the other goes on from with a byte that is no white space,
// makes norms that differ there, at a white space before, or in length
// (strings.ToLower keeps an ASCII prefix as its bytes in lower case;
// TrimSpace cuts an action only at white space). False when the bytes do
// not tell.
func actionsDiffer(a, b string) bool {
	if len(a) > 0 && fallbackByte[a[0]] >= 1<<8 || len(b) > 0 && fallbackByte[b[0]] >= 1<<8 {
		return false // white space, or a byte that is not ASCII
	}
	// An empty action is a prefix of every other: its norm, "", differs
	// from one that starts with a byte that is no white space, which the
	// loop below tells at its first index. Ruled out before, a message
	// (no action) beside a tool call, as Cline's steps alternate, took
	// both norms made, the call's copied and lowered whole.
	// Equal ASCII bytes only go on to the next (fallbackByte has one
	// value for each): a common prefix is passed eight bytes at a time
	// first. OpenHands V1's actions (JSON objects) share some 20 bytes,
	// which the loop below took one at a time (6 instructions a byte).
	k := 0
	for k+8 <= len(a) && k+8 <= len(b) {
		if x := load64(a, k); x != load64(b, k) || x&ascii64 != 0 {
			break
		}
		k += 8
	}
	for ; ; k++ {
		if k == len(a) || k == len(b) {
			if len(a) == len(b) {
				return false // the same in lower case
			}
			c := a[k:]
			if k == len(a) {
				c = b[k:]
			}
			return fallbackByte[c[0]] < 1<<8
		}
		x, y := fallbackByte[a[k]], fallbackByte[b[k]]
		if x >= fallbackNotASCII || y >= fallbackNotASCII {
			return false
		}
		if x != y {
			return true // one at least no white space: fallbackByte has one value for all
		}
	}
}

// normOf returns the slot's norm(action), making it first if it is not
// made.
func (t *sigSlot) normOf() []byte {
	if !t.normed {
		t.norm, t.normed = appendNorm(t.norm[:0], t.action), true
	}
	return t.norm
}

// outSig returns the slot's output signature, making it first if it is
// not made.
func (t *sigSlot) outSig() []byte {
	if !t.made {
		b, ok := appendStructured(t.out[:0], t.output)
		if !ok {
			b = appendFallback(b, t.output)
			t.plain = !structuredPrefix(b)
		}
		t.out, t.made = b, true
	}
	return t.out
}

// joinedEqual says x1+"|"+x2 is y1+"|"+y2, without joining them: where
// x1 is the shorter (by n), y1 is x1, '|' and x2's first n-1 bytes, the
// '|' is x2's next, and y2 is the rest of x2.
func joinedEqual(x1, x2, y1, y2 []byte) bool {
	if len(x1)+len(x2) != len(y1)+len(y2) {
		return false
	}
	if len(x1) > len(y1) {
		x1, x2, y1, y2 = y1, y2, x1, x2
	}
	n := len(y1) - len(x1)
	if n == 0 {
		return bytes.Equal(x1, y1) && bytes.Equal(x2, y2)
	}
	// len(x2) = n + len(y2): x2[n-1] is in x2.
	return bytes.Equal(y1[:len(x1)], x1) && y1[len(x1)] == '|' && bytes.Equal(y1[len(x1)+1:], x2[:n-1]) &&
		x2[n-1] == '|' && bytes.Equal(x2[n:], y2)
}

// errorDiffers says that no output but one that holds both parts of f,
// an output's signature "error:<word>-<location>", can have it: the
// output's error signature, if any, would be made of slices of it (the
// word, a \w run, holds no '-'), and its fallback signature, if it has
// none, differs from f (fallbackDiffers). False when f is no error's or
// when the output may have it: in the 20 MB steps log, 1,075 of the
// 5,655 outputs compared with an error's signature lacked its word or
// its location, a search of the output for each where its signature
// scanned it.
func errorDiffers(f []byte, output string) bool {
	rest, ok := bytes.CutPrefix(f, []byte("error:"))
	if !ok {
		return false
	}
	if !fallbackDiffers(f, output) {
		return false
	}
	i := bytes.IndexByte(rest, '-')
	if i < 0 {
		return true // no error signature has it
	}
	// The views do not outlive the call, nor does the slot's signature
	// change during it.
	word := unsafe.String(unsafe.SliceData(rest), i)
	loc := unsafe.String(unsafe.SliceData(rest[i+1:]), len(rest)-i-1)
	return !strings.Contains(output, word) || !strings.Contains(output, loc)
}

// structuredPrefix says a fallback signature starts as the structured
// ones do: then an output whose fallback differs may still have a
// structured signature equal to it ("ERROR:X-Y", and "Error: x at y").
func structuredPrefix(f []byte) bool {
	return bytes.HasPrefix(f, []byte("error:")) || bytes.HasPrefix(f, []byte("test-fail:")) || bytes.HasPrefix(f, []byte("file:"))
}

// Check is Step for a caller that reports the firing at once: a step
// fires at most once, and Step's list of one allocated each time.
func (d *SignatureRepeat) Check(s *Step) (SignatureFiring, bool) {
	sig, ok := d.Fires(s)
	if !ok {
		return SignatureFiring{}, false
	}
	return SignatureFiring{
		Firing:    Firing{Step: s.N, Rule: "signature_repeat", Kind: KindLoop, Origin: OriginGeneric},
		Signature: sig,
	}, true
}

// Fires is Check for a caller that needs only the signature of the
// firing: it adds the step's signature and says whether the step fires,
// with the signature if it does (a step that does not fire was a zero
// SignatureFiring written and copied).
func (d *SignatureRepeat) Fires(s *Step) (sig string, ok bool) {
	// The slot's fields are written one by one, not by a literal: its
	// norm and out keep their arrays (only their lengths are written,
	// where the literal wrote each slice whole, its pointer behind the
	// write barrier's test).
	cur, prev := &d.slots[d.n&1], &d.slots[(d.n+1)&1]
	cur.norm, cur.out = cur.norm[:0], cur.out[:0]
	cur.action = s.Action
	cur.output, cur.outBuf = keptOutput(s, cur.outBuf) // read again at the next step
	switch {
	case d.n == 0 || prev.action != s.Action:
		cur.normed, cur.made, cur.plain, cur.bar = false, false, false, strings.IndexByte(s.Action, '|') >= 0
		if d.n > 0 && sameOtherAction(prev, cur) {
			d.run++
		} else {
			d.run = 1
		}
	case prev.output == s.Output:
		// A loop repeats a step: the same two strings make the same
		// signature, made once for the loop's firings.
		if prev.normed {
			cur.norm = append(cur.norm, prev.norm...)
		}
		if prev.made {
			cur.out = append(cur.out, prev.out...)
		}
		cur.normed, cur.made, cur.plain, cur.bar = prev.normed, prev.made, prev.plain, prev.bar
		d.run++
	default:
		// The same action (its norm copied when made): the outputs tell.
		if prev.normed {
			cur.norm = append(cur.norm, prev.norm...)
		}
		cur.normed, cur.made, cur.plain, cur.bar = prev.normed, false, false, prev.bar
		if sameOutput(prev, cur) {
			d.run++
		} else {
			d.run = 1
		}
	}
	d.n++
	if d.run < d.threshold {
		return "", false
	}
	norm, out := cur.normOf(), cur.outSig() // compared, maybe not made
	if f := d.fired; len(f) != len(norm)+1+len(out) || f[:len(norm)] != string(norm) || f[len(norm)] != '|' || f[len(norm)+1:] != string(out) {
		d.fired = string(norm) + "|" + string(out)
	}
	return d.fired, true
}
