package sim

import "encoding/json"

// MarshalJSON encodes r with its JSON field names. A result of the lab
// model (Mode ModeLab), which measures no p99 latency, re-promotions or
// fast-tier utilisation, has null for those fields rather than 0, as the
// CSVs leave them empty: a reader cannot take an unmeasured figure for a
// perfect one.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result // without the method, so no recursion
	if r.Mode != ModeLab {
		return json.Marshal(plain(r))
	}
	// The outer fields are shallower than plain's of the same name, so
	// encoding/json writes them instead.
	return json.Marshal(struct {
		plain
		P99LatencyMs    *float64 `json:"p99_latency_ms"`
		Repromotions    *int64   `json:"repromotions"`
		RepromotionRate *float64 `json:"repromotion_rate"`
		Utilisation     *float64 `json:"fast_utilisation"`
	}{plain: plain(r)})
}
