package trace

// parseMooncakeFast parses a Mooncake line in the common layout (an object
// with only the keys timestamp, input_length, output_length and hash_ids,
// each at most once, non-negative integers without exponents) into req
// without encoding/json's reflection. It returns false for anything else,
// and the caller falls back to encoding/json, which accepts the rest of
// JSON and reports errors with their position.
func parseMooncakeFast(line []byte, req *mooncakeReq) bool {
	p := fastParser{b: line}
	*req = mooncakeReq{ids: req.ids[:0]}
	if !p.byte('{') {
		return false
	}
	if p.peek() == '}' {
		return false // let the fallback report the missing fields
	}
	for {
		key, ok := p.key()
		if !ok {
			return false
		}
		switch key {
		case "timestamp":
			if req.hasTS {
				return false
			}
			req.ts, req.tsStr, req.hasTS = p.timestamp()
		case "input_length":
			if req.hasIn {
				return false
			}
			req.in, req.hasIn = p.uint()
		case "output_length":
			if req.hasOut {
				return false
			}
			req.out, req.hasOut = p.uint()
		case "hash_ids":
			if req.hasIDs || !p.ids(req) {
				return false
			}
			req.hasIDs = true
		default:
			return false
		}
		if !req.hasTS && key == "timestamp" || !req.hasIn && key == "input_length" || !req.hasOut && key == "output_length" {
			return false
		}
		switch p.next() {
		case ',':
			continue
		case '}':
			return p.end()
		}
		return false
	}
}

// fastParser scans a byte slice; every method skips leading whitespace.
type fastParser struct {
	b []byte
	i int
}

func (p *fastParser) skip() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\r' || p.b[p.i] == '\n') {
		p.i++
	}
}

func (p *fastParser) peek() byte {
	p.skip()
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *fastParser) next() byte {
	c := p.peek()
	if c != 0 {
		p.i++
	}
	return c
}

func (p *fastParser) byte(c byte) bool { return p.next() == c }

func (p *fastParser) end() bool { p.skip(); return p.i == len(p.b) }

// key reads "name": for a name without escapes.
func (p *fastParser) key() (string, bool) {
	if !p.byte('"') {
		return "", false
	}
	start := p.i
	for p.i < len(p.b) && p.b[p.i] != '"' {
		if p.b[p.i] == '\\' || p.b[p.i] < 0x20 {
			return "", false
		}
		p.i++
	}
	if p.i == len(p.b) {
		return "", false
	}
	k := p.b[start:p.i]
	p.i++
	return internKey(k), p.byte(':')
}

// fastKeys are the keys the fast parsers know: internKey returns them
// without allocating.
var fastKeys = append(append([]string(nil), Columns...), "timestamp", "input_length", "output_length", "hash_ids")

// internKey returns k as a string, one of fastKeys when it is one.
func internKey(k []byte) string {
	for _, s := range fastKeys {
		if string(k) == s {
			return s
		}
	}
	return string(k)
}

// timestamp reads a non-negative integer below 2^63, or one in a JSON
// string (LMBench's nanoseconds): "123" with nothing else between the
// quotes. It returns the value, whether it was a string, and ok.
func (p *fastParser) timestamp() (int64, bool, bool) {
	if p.peek() != '"' {
		v, ok := p.uint()
		return v, false, ok
	}
	p.i++
	if p.i == len(p.b) || p.b[p.i] < '0' || p.b[p.i] > '9' {
		return 0, true, false
	}
	v, ok := p.uint()
	if !ok || p.i == len(p.b) || p.b[p.i] != '"' {
		return 0, true, false
	}
	p.i++
	return v, true, true
}

// uint reads a non-negative integer below 2^63 in JSON's syntax (no
// leading zeros, no fraction or exponent).
func (p *fastParser) uint() (int64, bool) {
	v, ok := p.digits()
	if !ok || v >= 1<<63 {
		return 0, false
	}
	return int64(v), true
}

func (p *fastParser) digits() (uint64, bool) {
	p.skip()
	start := p.i
	var v uint64
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		d := uint64(p.b[p.i] - '0')
		if v > (1<<64-1-d)/10 {
			return 0, false
		}
		v = v*10 + d
		p.i++
	}
	n := p.i - start
	if n == 0 || n > 1 && p.b[start] == '0' {
		return 0, false
	}
	if p.i < len(p.b) && (p.b[p.i] == '.' || p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		return 0, false
	}
	return v, true
}

// ids reads an array of non-negative integers into req.ids.
func (p *fastParser) ids(req *mooncakeReq) bool {
	if !p.byte('[') {
		return false
	}
	if p.peek() == ']' {
		p.i++
		return true
	}
	for {
		v, ok := p.digits()
		if !ok {
			return false
		}
		req.ids = append(req.ids, v)
		switch p.next() {
		case ',':
		case ']':
			return true
		default:
			return false
		}
	}
}
