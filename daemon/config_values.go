package daemon

import (
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/kvtier/kvtier/policy"
)

// decoder collects diagnostics while converting raw values.
type decoder struct{ diags hcl.Diagnostics }

func (d *decoder) fail(r hcl.Range, summary, detail string) {
	diag := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail}
	if r.Filename != "" {
		diag.Subject = r.Ptr()
	}
	d.diags = append(d.diags, diag)
}

func (d *decoder) check(ok bool, e hcl.Expression, name, want string) {
	if ok {
		return
	}
	var r hcl.Range
	if e != nil {
		r = e.Range()
	}
	d.fail(r, "Invalid "+name, name+": want "+want)
}

func isNull(e hcl.Expression) bool {
	if e == nil {
		return true
	}
	v, diags := e.Value(nil)
	return !diags.HasErrors() && v.IsNull()
}

// value evaluates a literal expression; ok is false when it is absent or
// could not be evaluated (a diagnostic was recorded).
func (d *decoder) value(e hcl.Expression) (cty.Value, bool) {
	if e == nil {
		return cty.NilVal, false
	}
	v, diags := e.Value(nil)
	if diags.HasErrors() {
		d.diags = append(d.diags, diags...)
		return cty.NilVal, false
	}
	if v.IsNull() {
		return cty.NilVal, false
	}
	return v, true
}

func (d *decoder) str(e hcl.Expression, name string) (string, bool) {
	v, ok := d.value(e)
	if !ok {
		return "", false
	}
	if v.Type() != cty.String || !v.IsKnown() {
		d.fail(e.Range(), "Incorrect attribute value type", name+": want a string")
		return "", false
	}
	return v.AsString(), true
}

func (d *decoder) enum(e hcl.Expression, name string, allowed ...string) (string, bool) {
	s, ok := d.str(e, name)
	if !ok {
		return "", false
	}
	for _, a := range allowed {
		if s == a {
			return s, true
		}
	}
	d.fail(e.Range(), "Invalid "+name, fmt.Sprintf("%s %q: want one of %s", name, s, strings.Join(allowed, ", ")))
	return "", false
}

// number decodes a number for which valid holds.
func (d *decoder) number(e hcl.Expression, name string, valid func(float64) bool, want string) (float64, bool) {
	v, ok := d.value(e)
	if !ok {
		return 0, false
	}
	if v.Type() != cty.Number || !v.IsKnown() {
		d.fail(e.Range(), "Incorrect attribute value type", name+": want "+want)
		return 0, false
	}
	f, _ := v.AsBigFloat().Float64()
	if !valid(f) {
		d.fail(e.Range(), "Invalid "+name, fmt.Sprintf("%s %v: want %s", name, f, want))
		return 0, false
	}
	return f, true
}

// size accepts a string with a unit ("4GiB") or a whole number of bytes.
func (d *decoder) size(e hcl.Expression, name string) (int64, bool) {
	v, ok := d.value(e)
	if !ok {
		return 0, false
	}
	switch {
	case v.Type() == cty.String && v.IsKnown():
		n, err := ParseSize(v.AsString())
		if err != nil {
			d.fail(e.Range(), "Invalid size", name+": "+err.Error())
			return 0, false
		}
		return n, true
	case v.Type() == cty.Number && v.IsKnown():
		n, ok := wholeNumber(v)
		if !ok || n < 0 {
			d.fail(e.Range(), "Invalid size", name+": want a whole, non-negative number of bytes or a size such as \"4GiB\"")
			return 0, false
		}
		return n, true
	}
	d.fail(e.Range(), "Incorrect attribute value type", name+": want a size such as \"4GiB\" or a number of bytes")
	return 0, false
}

func (d *decoder) duration(e hcl.Expression, name string) (time.Duration, bool) {
	s, ok := d.str(e, name)
	if !ok {
		return 0, false
	}
	dur, err := ParseDuration(s)
	if err != nil {
		d.fail(e.Range(), "Invalid duration", name+": "+err.Error())
		return 0, false
	}
	return dur, true
}

// priority accepts "low", "normal", "high" or 0, 1, 2.
func (d *decoder) priority(e hcl.Expression) (policy.Priority, bool) {
	v, ok := d.value(e)
	if !ok {
		return 0, false
	}
	if v.Type() == cty.String && v.IsKnown() {
		if p, err := ParsePriority(v.AsString()); err == nil {
			return p, true
		}
	}
	if n, ok := wholeNumber(v); ok && n >= 0 && n <= 2 {
		return policy.Priority(n), true
	}
	d.fail(e.Range(), "Invalid priority", "priority: want \"low\", \"normal\", \"high\" or 0, 1, 2")
	return 0, false
}

// params turns a block's attributes into policy or sampler parameters, in
// the order of their names. check, when not nil, is called with each
// attribute and its value as a string, to report what is wrong with it.
func (d *decoder) params(body hcl.Body, check func(a *hcl.Attribute, value string)) map[string]string {
	out := map[string]string{}
	attrs, diags := body.JustAttributes()
	d.diags = append(d.diags, diags...)
	names := make([]string, 0, len(attrs))
	for name := range attrs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		a := attrs[name]
		v, ok := d.value(a.Expr)
		if !ok || !v.IsKnown() {
			continue
		}
		switch v.Type() {
		case cty.String:
			out[name] = v.AsString()
		case cty.Number:
			// Whole numbers as integers: 'g' would write 1e+06.
			if n, ok := wholeNumber(v); ok {
				out[name] = strconv.FormatInt(n, 10)
			} else {
				out[name] = v.AsBigFloat().Text('g', -1)
			}
		case cty.Bool:
			out[name] = strconv.FormatBool(v.True())
		default:
			d.fail(a.Expr.Range(), "Incorrect parameter type", name+": want a string, number or bool")
			continue
		}
		if check != nil {
			check(a, out[name])
		}
	}
	return out
}

// ParsePriority parses "low", "normal" or "high".
func ParsePriority(s string) (policy.Priority, error) {
	switch s {
	case "low":
		return policy.PriorityLow, nil
	case "normal":
		return policy.PriorityNormal, nil
	case "high":
		return policy.PriorityHigh, nil
	}
	return 0, fmt.Errorf("unknown priority %q (want low, normal or high)", s)
}

// PriorityName is the name ParsePriority accepts.
func PriorityName(p policy.Priority) string {
	switch p {
	case policy.PriorityLow:
		return "low"
	case policy.PriorityHigh:
		return "high"
	}
	return "normal"
}

func wholeNumber(v cty.Value) (int64, bool) {
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.Number {
		return 0, false
	}
	n, acc := v.AsBigFloat().Int64()
	return n, acc == big.Exact
}
