//go:build linux && amd64

package bpf

import (
	"fmt"

	"github.com/cilium/ebpf/link"
)

func init() { samplers["fault"] = openFault }

// openFault attaches to exceptions:page_fault_user as a raw tracepoint
// (no tracefs needed). Its arguments are (address, regs, error_code);
// error_code bit 1 is set for writes.
func openFault(opts Options) (Sampler, error) {
	c, err := load("fault", kvtierProgOnFault, opts, nil)
	if err != nil {
		return nil, err
	}
	l, err := link.AttachRawTracepoint(link.RawTracepointOptions{Name: "page_fault_user", Program: c.objs.Prog})
	if err != nil {
		c.Close()
		return nil, classify(fmt.Errorf("attaching to tracepoint exceptions:page_fault_user: %w", err))
	}
	c.closers = append(c.closers, l)
	return c, nil
}
