package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/kvtier/kvtier/daemon/api"
)

// Heat strip glyphs: one per group of blocks, by the group's tier (the
// majority of its present blocks) and heat (its hottest block against the
// region's hottest: hot from half of it up, warm below, cold at zero).
const (
	glyphNone     = '_'
	glyphFastHot  = '#'
	glyphFastWarm = '+'
	glyphFastCold = '-'
	glyphSlowHot  = 'O'
	glyphSlowWarm = 'o'
	glyphSlowCold = '.'
)

// stripLegend explains the glyphs.
const stripLegend = "heat: fast # hot + warm - cold; slow O hot o warm . cold; _ not present"

// defaultStripWidth keeps "  heat [...]" within 80 columns.
const defaultStripWidth = 64

// heatStrip is a region's blocks drawn as one character per group.
type heatStrip struct {
	GroupBlocks int    `json:"group_blocks"` // blocks per character
	MaxHeat     uint32 `json:"max_heat"`
	Chars       string `json:"chars"`
}

// newHeatStrip draws blocks in at most width characters.
func newHeatStrip(blocks []api.BlockPlacement, width int) heatStrip {
	if width < 1 {
		width = defaultStripWidth
	}
	s := heatStrip{GroupBlocks: max(1, (len(blocks)+width-1)/width)}
	for _, b := range blocks {
		s.MaxHeat = max(s.MaxHeat, b.Heat)
	}
	var sb strings.Builder
	for i := 0; i < len(blocks); i += s.GroupBlocks {
		sb.WriteByte(groupGlyph(blocks[i:min(i+s.GroupBlocks, len(blocks))], s.MaxHeat))
	}
	s.Chars = sb.String()
	return s
}

func groupGlyph(g []api.BlockPlacement, maxHeat uint32) byte {
	var fast, slow int
	var heat uint32
	for _, b := range g {
		switch b.Tier {
		case "fast":
			fast++
		case "slow":
			slow++
		}
		heat = max(heat, b.Heat)
	}
	if fast+slow == 0 {
		return glyphNone
	}
	level := 0 // cold
	if heat > 0 {
		level = 1
		if uint64(heat)*2 >= uint64(maxHeat) {
			level = 2
		}
	}
	if slow > fast {
		return [3]byte{glyphSlowCold, glyphSlowWarm, glyphSlowHot}[level]
	}
	return [3]byte{glyphFastCold, glyphFastWarm, glyphFastHot}[level]
}

// kvRegion is one daemon-tracked region with its block placement.
type kvRegion struct {
	Region    api.Region    `json:"region"`
	Placement api.Placement `json:"placement"`
	Strip     heatStrip     `json:"strip"`
}

// kvPlacementReport is what `kvtier placement --region` prints.
type kvPlacementReport struct {
	Regions []kvRegion `json:"regions"`
}

// regionPlacement asks the daemon for region id and its placement.
func regionPlacement(ctx context.Context, f *clientFlags, id uint64, width int) (kvRegion, error) {
	c := f.client()
	defer c.Close()
	r, err := call(ctx, c, func(c *api.Client, ctx context.Context) (api.Region, error) { return c.Region(ctx, id) })
	if err != nil {
		return kvRegion{}, err
	}
	p, err := call(ctx, c, func(c *api.Client, ctx context.Context) (api.Placement, error) { return c.Placement(ctx, id) })
	if err != nil {
		return kvRegion{}, err
	}
	return kvRegion{Region: r, Placement: p, Strip: newHeatStrip(p.Blocks, width)}, nil
}

// pidRegions asks the daemon for the regions of pid overlapping r (all
// when nil) with their placement.
func pidRegions(ctx context.Context, f *clientFlags, pid int, r *addrRange, width int) ([]kvRegion, error) {
	c := f.client()
	defer c.Close()
	rs, err := call(ctx, c, (*api.Client).Regions)
	if err != nil {
		return nil, err
	}
	ps, err := call(ctx, c, func(c *api.Client, ctx context.Context) ([]api.Placement, error) {
		return c.PlacementByPID(ctx, pid)
	})
	if err != nil {
		return nil, err
	}
	byID := map[uint64]api.Region{}
	for _, reg := range rs {
		byID[reg.ID] = reg
	}
	out := []kvRegion{}
	for _, p := range ps {
		reg, ok := byID[p.Region]
		if !ok || (r != nil && (reg.Addr >= uint64(r.End) || reg.Addr+reg.Length <= uint64(r.Start))) {
			continue
		}
		out = append(out, kvRegion{Region: reg, Placement: p, Strip: newHeatStrip(p.Blocks, width)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Region.ID < out[j].Region.ID })
	return out, nil
}

// daemonNote says why the daemon's view is missing from a --pid report.
func daemonNote(err error) string {
	var ee *exitError
	if errors.As(err, &ee) && ee.code == ExitUnreachable {
		return "daemon not running: KV regions not shown"
	}
	return "KV regions not shown: " + err.Error()
}

// writeKVRegions prints each region's blocks per node and tier and its
// heat strip, then the strip legend.
func writeKVRegions(w io.Writer, rs []kvRegion) error {
	for i, kr := range rs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := writeKVRegion(w, kr); err != nil {
			return err
		}
	}
	if len(rs) == 0 {
		return nil
	}
	_, err := fmt.Fprintf(w, "\n%s\n", stripLegend)
	return err
}

func writeKVRegion(w io.Writer, kr kvRegion) error {
	r, p := kr.Region, kr.Placement
	name := ""
	if r.Name != "" {
		name = fmt.Sprintf(" %q", r.Name)
	}
	fmt.Fprintf(w, "region %d%s: pid %d, tenant %s, class %s, priority %s\n", r.ID, name, r.PID,
		orDash(r.Tenant), r.Class, r.Priority)
	fmt.Fprintf(w, "  %#x-%#x, %s in %d blocks of %s\n", r.Addr, r.Addr+r.Length, topoBytes(r.Length), r.Blocks,
		topoBytes(r.BlockSize))
	fmt.Fprintf(w, "  blocks: %s\n", nodeTierString(p))
	unit := "1 block"
	if kr.Strip.GroupBlocks > 1 {
		unit = fmt.Sprintf("%d blocks", kr.Strip.GroupBlocks)
	}
	_, err := fmt.Fprintf(w, "  heat [%s]\n  1 char = %s, hottest block %d accesses\n", kr.Strip.Chars, unit,
		kr.Strip.MaxHeat)
	return err
}

// nodeTierString is "node0 fast 30, node1 slow 2, not present 0".
func nodeTierString(p api.Placement) string {
	tiers := map[int]string{}
	for _, b := range p.Blocks {
		if b.Node >= 0 {
			tiers[b.Node] = b.Tier
		}
	}
	ids := make([]int, 0, len(p.Nodes))
	for k := range p.Nodes {
		if id, err := strconv.Atoi(k); err == nil {
			ids = append(ids, id)
		}
	}
	sort.Ints(ids)
	parts := make([]string, 0, len(ids)+1)
	for _, id := range ids {
		parts = append(parts, fmt.Sprintf("node%d %s %d", id, orDash(tiers[id]), p.Nodes[strconv.Itoa(id)]))
	}
	parts = append(parts, fmt.Sprintf("not present %d", p.Unmapped))
	return strings.Join(parts, ", ")
}
