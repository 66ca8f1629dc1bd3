package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/kvtier/kvtier/daemon/api"
)

// apiQuery asks the daemon's API (status, regions, placement of every
// region of every registered pid, topology, policy).
func apiQuery(socket, what string) (any, error) {
	c := api.NewClient(socket)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	switch what {
	case "status":
		return c.Status(ctx)
	case "regions":
		return c.Regions(ctx)
	case "topology":
		return c.Topology(ctx)
	case "policy":
		return c.Policy(ctx)
	case "placement":
		regions, err := c.Regions(ctx)
		if err != nil {
			return nil, err
		}
		var out []api.Placement
		for _, r := range regions {
			p, err := c.Placement(ctx, r.ID)
			if err != nil {
				return nil, err
			}
			out = append(out, p)
		}
		return out, nil
	}
	fmt.Fprintf(os.Stderr, "probe api: want status, regions, topology, policy or placement, not %q\n", what)
	return nil, fmt.Errorf("bad api query %q", what)
}
