package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/kvtier/kvtier/numa"
)

// arenaInfo is the part of the workload's "info" reply the probe needs.
type arenaInfo struct {
	Tenant    string `json:"tenant"`
	Addr      uint64 `json:"addr"`
	Length    uint64 `json:"length"`
	BlockSize uint64 `json:"block_size"`
	Blocks    int    `json:"blocks"`
	RegionID  uint64 `json:"region_id"`
}

type workloadInfo struct {
	PID    int         `json:"pid"`
	Arenas []arenaInfo `json:"arenas"`
}

// control sends one command to the workload and returns its JSON reply.
func control(socket, command string) (json.RawMessage, error) {
	conn, err := net.DialTimeout("unix", socket, 10*time.Second)
	if err != nil {
		return nil, fmt.Errorf("workload control %s: %w", socket, err)
	}
	defer conn.Close()
	if _, err := fmt.Fprintln(conn, command); err != nil {
		return nil, fmt.Errorf("workload control %s: %w", socket, err)
	}
	r := bufio.NewReader(conn)
	line, err := r.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("workload control %s: reply to %q: %w", socket, command, err)
	}
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(line, &e) == nil && e.Error != "" {
		return line, fmt.Errorf("workload: %s", e.Error)
	}
	return json.RawMessage(line), nil
}

func waitSocket(socket string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		_, err := control(socket, "info")
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("workload not ready after %s: %w", limit, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func info(socket string) (*workloadInfo, error) {
	raw, err := control(socket, "info")
	if err != nil {
		return nil, err
	}
	var wi workloadInfo
	if err := json.Unmarshal(raw, &wi); err != nil {
		return nil, fmt.Errorf("workload info: %w", err)
	}
	return &wi, nil
}

// Placement counts an arena's base pages per node ("-1" not present, or
// an errno name).
type Placement struct {
	Tenant string         `json:"tenant"`
	Pages  int            `json:"pages"`
	Nodes  map[string]int `json:"nodes"`
	// Blocks holds each block's node: the node of all its pages, Mixed
	// when they are on different nodes, -1 when none is present.
	Blocks []int `json:"blocks"`
}

// Mixed is the Blocks entry of a block whose pages are on several nodes.
const Mixed = -2

// WhereReport is the placement of every arena of the workload.
type WhereReport struct {
	PID    int         `json:"pid"`
	Arenas []Placement `json:"arenas"`
}

func where(socket string) (*WhereReport, error) {
	wi, err := info(socket)
	if err != nil {
		return nil, err
	}
	return placement(wi)
}

func placement(wi *workloadInfo) (*WhereReport, error) {
	rep := &WhereReport{PID: wi.PID}
	for _, a := range wi.Arenas {
		pages, err := numa.PagesOf(uintptr(a.Addr), uintptr(a.Addr+a.Length))
		if err != nil {
			return nil, err
		}
		status := make([]numa.PageStatus, len(pages))
		if err := numa.QueryPages(wi.PID, pages, status, 0); err != nil {
			return nil, err
		}
		rep.Arenas = append(rep.Arenas, Placement{Tenant: a.Tenant, Pages: len(pages), Nodes: countNodes(status),
			Blocks: blockNodes(status, int(a.BlockSize)/numa.PageSize)})
	}
	return rep, nil
}

func blockNodes(status []numa.PageStatus, perBlock int) []int {
	if perBlock < 1 {
		perBlock = 1
	}
	var out []int
	for off := 0; off < len(status); off += perBlock {
		node := -1
		for _, s := range status[off:min(off+perBlock, len(status))] {
			n, ok := s.OnNode()
			switch {
			case !ok:
			case node == -1:
				node = n
			case node != n:
				node = Mixed
			}
		}
		out = append(out, node)
	}
	return out
}

func countNodes(status []numa.PageStatus) map[string]int {
	m := map[string]int{}
	for _, s := range status {
		if n, ok := s.OnNode(); ok {
			m[strconv.Itoa(n)]++
		} else {
			m[s.String()]++
		}
	}
	return m
}

// MoveReport is one move of every arena to a node.
type MoveReport struct {
	Node    int            `json:"node"`
	Pages   int            `json:"pages"`
	Bytes   uint64         `json:"bytes"`
	Seconds float64        `json:"seconds"`
	MBps    float64        `json:"mb_per_s"`
	Stats   numa.MoveStats `json:"stats"`
	Before  *WhereReport   `json:"before"`
	After   *WhereReport   `json:"after"`
}

func move(socket string, node int) (*MoveReport, error) {
	wi, err := info(socket)
	if err != nil {
		return nil, err
	}
	rep := &MoveReport{Node: node}
	if rep.Before, err = placement(wi); err != nil {
		return nil, err
	}
	var all []uintptr
	for _, a := range wi.Arenas {
		pages, err := numa.PagesOf(uintptr(a.Addr), uintptr(a.Addr+a.Length))
		if err != nil {
			return nil, err
		}
		all = append(all, pages...)
		rep.Bytes += a.Length
	}
	err = movePages(wi, all, rep)
	if err == nil {
		rep.MBps = float64(rep.Bytes) / (1 << 20) / rep.Seconds
	}
	return rep, err
}

// movePages moves pages of the workload to rep.Node, timing the call, and
// records in rep where the arenas are afterwards.
func movePages(wi *workloadInfo, pages []uintptr, rep *MoveReport) error {
	rep.Pages = len(pages)
	status := make([]numa.PageStatus, len(pages))
	start := time.Now()
	var err error
	rep.Stats, err = numa.MovePages(context.Background(), wi.PID, pages, rep.Node, status, numa.MoveOptions{})
	rep.Seconds = time.Since(start).Seconds()
	if err != nil {
		return err
	}
	rep.After, err = placement(wi)
	return err
}

// memcpyRate copies a buffer of mib MiB a few times and reports MB/s
// (MiB/s), the baseline the move rate is compared with.
func memcpyRate(mib int) map[string]float64 {
	src := make([]byte, mib<<20)
	dst := make([]byte, mib<<20)
	for i := range src {
		src[i] = byte(i)
	}
	copy(dst, src) // fault dst in
	const passes = 3
	start := time.Now()
	for range passes {
		copy(dst, src)
	}
	sec := time.Since(start).Seconds()
	return map[string]float64{"mib": float64(mib), "seconds": sec, "mb_per_s": float64(mib*passes) / sec}
}

// pick returns a block list ("8,9,12") of up to n blocks of the first
// arena wholly on node, after skipping the first skip such blocks.
func pick(socket string, node, n, skip int) (string, error) {
	w, err := where(socket)
	if err != nil {
		return "", err
	}
	if len(w.Arenas) == 0 {
		return "", fmt.Errorf("pick: the workload has no arena")
	}
	var out []string
	for i, b := range w.Arenas[0].Blocks {
		if b != node {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		if len(out) == n {
			break
		}
		out = append(out, strconv.Itoa(i))
	}
	if len(out) == 0 {
		return "", fmt.Errorf("pick: no block of arena %s on node %d (blocks %v)", w.Arenas[0].Tenant, node, w.Arenas[0].Blocks)
	}
	return strings.Join(out, ","), nil
}

// moveBlocks moves blocks of the first arena (a list such as "0,3-5") to
// node, as an outside mover would, and reports the outcome.
func moveBlocks(socket, spec string, node int) (*MoveReport, error) {
	wi, err := info(socket)
	if err != nil {
		return nil, err
	}
	if len(wi.Arenas) == 0 {
		return nil, fmt.Errorf("moving blocks %s: the workload has no arena", spec)
	}
	a := wi.Arenas[0]
	blocks, err := numa.ParseList(spec)
	if err != nil {
		return nil, fmt.Errorf("moving blocks: %w", err)
	}
	if len(blocks) == 0 {
		return nil, fmt.Errorf("moving blocks: the block list is empty")
	}
	rep := &MoveReport{Node: node}
	var all []uintptr
	for _, b := range blocks {
		if b >= a.Blocks {
			return nil, fmt.Errorf("moving block %d: arena %s has %d blocks", b, a.Tenant, a.Blocks)
		}
		start := uintptr(a.Addr) + uintptr(b)*uintptr(a.BlockSize)
		pages, err := numa.PagesOf(start, start+uintptr(a.BlockSize))
		if err != nil {
			return nil, err
		}
		all = append(all, pages...)
		rep.Bytes += a.BlockSize
	}
	return rep, movePages(wi, all, rep)
}
