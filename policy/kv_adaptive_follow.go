package policy

// adopter is implemented by experts whose instance on the real cache can
// take over what their shadow instance learned (hit_density's model).
type adopter interface {
	adopt(shadow Policy, scale int64)
}

// reserver is implemented by experts that can allocate the state of n
// residents at once (the residents a new leader's instance will hold), so
// that it does not grow its heap slice by copies while they come in.
type reserver interface {
	reserve(n int)
}

// follow makes expert i's real instance give the victims. When it does not
// run, a new instance of it takes over and the current one, if it holds
// residents, drains (see KVAdaptive); while one drains, a change of
// leader waits.
func (p *KVAdaptive) follow(i int, now Time) {
	if p.reals[i] != nil {
		p.real, p.follows = p.reals[i], i
		return
	}
	if p.old != nil {
		return
	}
	next, err := New(p.cfg.Experts[i], p.env)
	if err != nil { // it was built with the same spec and Env: keep the current expert
		return
	}
	if a, ok := next.(adopter); ok && i < len(p.shadows) {
		a.adopt(p.shadows[i].pol, int64(p.rate))
	}
	if r, ok := next.(reserver); ok {
		r.reserve(p.real.Len())
	}
	if p.real.Len() > 0 {
		p.old = p.real
	}
	p.reals[p.follows], p.reals[i] = nil, next
	p.real, p.follows = next, i
}

// leaves forgets b in the draining old instance and reports whether b was
// resident there (it then moves to the leader's instance).
func (p *KVAdaptive) leaves(b *Block) bool {
	if p.old == nil {
		return false
	}
	n := p.old.Len()
	p.old.Forget(b)
	moved := p.old.Len() < n
	p.drained()
	return moved
}

// drained drops the old instance once it holds no resident.
func (p *KVAdaptive) drained() {
	if p.old != nil && p.old.Len() == 0 {
		p.old = nil
	}
}

// moveAll moves the draining old instance's residents to the leader's at
// once, in the old one's eviction order (its next victim first, admitted
// first), the old one forgetting each as it moves. Only turning the
// shadows off does this (once), since the first expert must then hold
// every resident.
func (p *KVAdaptive) moveAll(now Time) {
	for p.old != nil {
		v, ok := p.old.Victim(now)
		if !ok {
			break
		}
		p.old.Evict(v, now)
		p.old.Forget(v)
		p.real.Access(v, now)
		p.real.Admit(v, now)
		p.drained()
	}
	p.old = nil
}
