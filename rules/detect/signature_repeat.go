package detect

import "bytes"

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
// equal. It keeps max(5, Threshold) signatures, as the design's window of 5
// does, each in a buffer reused when the window moves on: a step
// allocates only when it fires.
//
// A signature's output part, a scan of the whole output, is made only
// when the signature is compared with one of the same norm(action): two
// signatures whose actions differ differ, when neither action holds a
// '|' (the first '|' of each is then the one after the action). Most
// steps of a log follow a step of another action and precede one.
type SignatureRepeat struct {
	threshold int
	ring      []sigSlot // step n's signature in ring[n % len]
	n         int       // steps seen
	fired     string    // the signature of the last firing: a loop's next firing has it too
}

// sigSlot is a step's signature in the ring, with the action and output
// it was made from. The fields a step reads side by side, where four
// slices of them cost a bounds test and a cache line each.
type sigSlot struct {
	sig            []byte
	action, output string
	// cut is the length of the signature's norm(action), before its
	// '|'; whole says its output's part is made (until then the
	// signature ends at the '|').
	cut   int
	whole bool
}

// sigReuse is how many of the latest signatures a step's action and
// output are compared with before its signature is made: a loop repeats
// a step, and the same two strings make the same signature.
const sigReuse = 8

// NewSignatureRepeat returns a detector with no history.
func NewSignatureRepeat(c SignatureConfig) (*SignatureRepeat, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	ring := make([]sigSlot, max(5, c.Threshold))
	if len(ring) <= 16 {
		// The ring's first signatures in one block, sigCap bytes each (a
		// short action and 50 code points fit): grown from nothing, byte
		// by byte, they cost three allocations a step until the ring came
		// round, most of a short episode's. A slot that needs more grows
		// on its own (each is a full slice expression of the block).
		block := make([]byte, len(ring)*sigCap)
		for i := range ring {
			ring[i].sig = block[i*sigCap : i*sigCap : (i+1)*sigCap]
		}
	}
	return &SignatureRepeat{threshold: c.Threshold, ring: ring}, nil
}

// sigCap is the room NewSignatureRepeat gives each of the ring's first
// signatures.
const sigCap = 96

// Step adds a step's signature and returns the firing, if any.
func (d *SignatureRepeat) Step(s Step) []SignatureFiring {
	if f, ok := d.Check(&s); ok {
		return []SignatureFiring{f}
	}
	return nil
}

// Reset forgets the steps seen, keeping the ring's memory (but a
// signature's that outgrew sigCap by far): a detector starts another
// episode as a new one would.
func (d *SignatureRepeat) Reset() {
	d.n, d.fired = 0, ""
	for i := range d.ring {
		if cap(d.ring[i].sig) > 16*sigCap {
			d.ring[i].sig = nil
		}
	}
}

// Threshold is the configuration's signature_threshold.
func (d *SignatureRepeat) Threshold() int { return d.threshold }

// same says the signatures of slots a and b are equal, making their
// output parts unless their actions tell them apart or their norm(action)
// and output are both equal (then so are their signatures: 10,754 of
// the 89,691 output parts the 100 MB steps log made were of such pairs,
// steps of a loop further apart than sigReuse or told apart by an
// action's case or spaces).
func same(a, b *sigSlot) bool {
	x, y := a.sig[:a.cut], b.sig[:b.cut]
	if bytes.Equal(x, y) {
		if a.output == b.output {
			return true
		}
	} else if bytes.IndexByte(x, '|') < 0 && bytes.IndexByte(y, '|') < 0 {
		return false
	}
	return bytes.Equal(a.wholeSig(), b.wholeSig())
}

// wholeSig returns the slot's signature, making its output's part first
// if it is not made.
func (t *sigSlot) wholeSig() []byte {
	if !t.whole {
		t.sig = appendOutputSignature(t.sig[:t.cut+1], t.output)
		t.whole = true
	}
	return t.sig
}

// Check is Step for a caller that reports the firing at once: a step
// fires at most once, and Step's list of one allocated each time.
func (d *SignatureRepeat) Check(s *Step) (SignatureFiring, bool) {
	ring := d.ring
	k := len(ring)
	slot := d.n % k
	cur := &ring[slot]
	sig, made := cur.sig[:0], false
	cut, whole := 0, false
	// The ring's slots from the latest back, an index counted down
	// (a division a slot cost as much as the comparison).
	for i, j := 0, slot; i < min(d.n, k, sigReuse); i++ {
		if j--; j < 0 {
			j = k - 1
		}
		if t := &ring[j]; t.output == s.Output && t.action == s.Action {
			if j == slot {
				sig = cur.sig // already in place
			} else {
				sig = append(sig, t.sig...)
			}
			cut, whole, made = t.cut, t.whole, true
			break
		}
	}
	if !made {
		sig = appendNorm(sig, s.Action)
		cut = len(sig)
		sig = append(sig, '|')
	}
	*cur = sigSlot{sig: sig, action: s.Action, output: s.Output, cut: cut, whole: whole}
	d.n++
	if d.n < d.threshold {
		return SignatureFiring{}, false
	}
	for i, j := 2, slot; i <= d.threshold; i++ {
		if j--; j < 0 {
			j = k - 1
		}
		if !same(&ring[j], cur) {
			return SignatureFiring{}, false
		}
	}
	sig = cur.wholeSig()        // compared, maybe not made
	if d.fired != string(sig) { // compared without a copy
		d.fired = string(sig)
	}
	return SignatureFiring{
		Firing:    Firing{Step: s.N, Rule: "signature_repeat", Kind: KindLoop, Origin: OriginGeneric},
		Signature: d.fired,
	}, true
}
