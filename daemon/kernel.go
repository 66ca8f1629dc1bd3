package daemon

import (
	"strconv"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/numa"
)

// setKernelStatus describes the kernel's tiering state for status.
func setKernelStatus(mode string, st numa.KernelState, action string) api.KernelTiering {
	kt := api.KernelTiering{Mode: mode, Action: action}
	if st.NUMABalancing != numa.Unknown {
		kt.NUMABalancing = strconv.Itoa(st.NUMABalancing)
	}
	if st.Demotion != numa.Unknown {
		kt.Demotion = strconv.FormatBool(st.Demotion == 1)
	}
	return kt
}
