package policy

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Env is what a policy may know about the place it runs in.
type Env struct {
	// CapacityBytes is the fast-tier capacity the policy manages.
	CapacityBytes int64
	// CapacityBlocks is the capacity in blocks for policies that size
	// queues or ghost lists in blocks; 0 when unknown.
	CapacityBlocks int
	// Seed seeds any randomness so runs are reproducible.
	Seed int64
	// PerTier is set when the caller runs one instance of the policy per
	// tier of a hierarchy, each choosing its own tier's victims (the lab
	// model's kvtier:SPEC); the default is one instance for the fast tier.
	PerTier bool
}

// Param documents one policy parameter.
type Param struct {
	Name    string // key in a spec
	Default string // value used when the spec omits the key
	Doc     string // one line for `kvtier policies`
}

// Info describes a registered policy.
type Info struct {
	Name    string
	Doc     string
	Params  []Param
	Offline bool // needs Block.Next (the future); simulator only. Only offline policies may read Next (kv_adaptive's shadows keep a flag there)
	// Wrapper policies take inner=NAME and pass the parameters they do
	// not declare to the inner policy.
	Wrapper bool
	New     func(p *Params, env Env) (Policy, error)
}

var (
	regMu    sync.RWMutex
	registry = map[string]Info{}
)

// Register adds a policy. It panics on a duplicate name, which is a
// programming error caught by any test.
func Register(info Info) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[info.Name]; dup {
		panic("policy: duplicate registration of " + info.Name)
	}
	registry[info.Name] = info
}

// List returns every registered policy sorted by name.
func List() []Info {
	regMu.RLock()
	defer regMu.RUnlock()
	out := make([]Info, 0, len(registry))
	for _, i := range registry {
		out = append(out, i)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}

// Lookup returns the policy registered under name.
func Lookup(name string) (Info, error) {
	regMu.RLock()
	info, ok := registry[name]
	regMu.RUnlock()
	if !ok {
		return Info{}, fmt.Errorf("%w %q", ErrUnknownPolicy, name)
	}
	return info, nil
}

// Spec is a parsed policy spec: a name and key=value parameters.
type Spec struct {
	Name   string
	Params map[string]string
}

// ParseSpec parses "name" or "name:key=value,key=value".
func ParseSpec(s string) (Spec, error) {
	name, rest, hasParams := strings.Cut(strings.TrimSpace(s), ":")
	name = strings.TrimSpace(name)
	if name == "" {
		return Spec{}, fmt.Errorf("policy spec %q: %w: empty name", s, ErrBadParam)
	}
	sp := Spec{Name: name, Params: map[string]string{}}
	if !hasParams {
		return sp, nil
	}
	for i, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return Spec{}, fmt.Errorf("policy spec %q: parameter %d %q: %w: want key=value",
				s, i+1, kv, ErrBadParam)
		}
		if _, dup := sp.Params[k]; dup {
			return Spec{}, fmt.Errorf("policy spec %q: %w: %s given twice", s, ErrBadParam, k)
		}
		sp.Params[k] = v
	}
	return sp, nil
}

// String formats the spec canonically, parameters sorted by key.
func (s Spec) String() string {
	if len(s.Params) == 0 {
		return s.Name
	}
	keys := make([]string, 0, len(s.Params))
	for k := range s.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(s.Name)
	for i, k := range keys {
		if i == 0 {
			b.WriteByte(':')
		} else {
			b.WriteByte(',')
		}
		b.WriteString(k + "=" + s.Params[k])
	}
	return b.String()
}

// New builds a fresh policy from a spec string.
func New(spec string, env Env) (Policy, error) {
	sp, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	return NewFromSpec(sp, env)
}

// NewFromSpec builds a fresh policy from a parsed spec.
func NewFromSpec(sp Spec, env Env) (Policy, error) {
	info, err := Lookup(sp.Name)
	if err != nil {
		return nil, err
	}
	p := &Params{policy: info.Name, vals: sp.Params, decl: map[string]Param{}, used: map[string]bool{}}
	for _, d := range info.Params {
		p.decl[d.Name] = d
	}
	pol, err := info.New(p, env)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", info.Name, err)
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	if !info.Wrapper {
		if extra := p.Unused(); len(extra) > 0 {
			return nil, fmt.Errorf("policy %s: %w: unknown parameter %s", info.Name, ErrBadParam, firstKey(extra))
		}
	}
	return pol, nil
}

func firstKey(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys[0]
}

// Params gives a policy constructor typed access to its parameters.
// Conversion errors are collected and reported by New.
type Params struct {
	policy string
	vals   map[string]string
	decl   map[string]Param
	used   map[string]bool
	err    error
}

func (p *Params) raw(key string) string {
	d, ok := p.decl[key]
	if !ok {
		panic("policy " + p.policy + ": parameter " + key + " read but not declared")
	}
	p.used[key] = true
	if v, ok := p.vals[key]; ok {
		return v
	}
	return d.Default
}

func (p *Params) fail(key, v, want string) {
	if p.err == nil {
		p.err = fmt.Errorf("policy %s: %w: %s=%q: want %s", p.policy, ErrBadParam, key, v, want)
	}
}

// Float returns a float parameter.
func (p *Params) Float(key string) float64 {
	v := p.raw(key)
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		p.fail(key, v, "a number")
	}
	return f
}

// Int returns an integer parameter.
func (p *Params) Int(key string) int {
	v := p.raw(key)
	n, err := strconv.Atoi(v)
	if err != nil {
		p.fail(key, v, "an integer")
	}
	return n
}

// String returns a string parameter.
func (p *Params) String(key string) string { return p.raw(key) }

// Check records err as a parameter error if cond is false.
func (p *Params) Check(cond bool, key, want string) {
	if !cond {
		v, ok := p.vals[key]
		if !ok {
			v = p.decl[key].Default
		}
		p.fail(key, v, want)
	}
}

// Err returns the first conversion or range error.
func (p *Params) Err() error { return p.err }

// Unused returns the given parameters the constructor did not read; a
// wrapper passes them to its inner policy.
func (p *Params) Unused() map[string]string {
	out := map[string]string{}
	for k, v := range p.vals {
		if !p.used[k] {
			out[k] = v
		}
	}
	return out
}
