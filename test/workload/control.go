package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// serve answers line commands on a unix socket until "quit", one
// connection at a time; each command gets one JSON line back:
//
//	info          {"pid":..,"arenas":[..]}
//	verify        this pass: {"blocks":N,"mismatched":[..]}
//	read          read every block of every arena once (a PhaseReport)
//	phase NAME    run a phase (a PhaseReport)
//	refill        write the next generation into every block
//	touch SPEC [N] read blocks SPEC ("0-7,9", "b:0-3") N rounds (a PhaseReport)
//	complete SPEC mark blocks SPEC think_complete through the daemon's API
//	register      register every arena again (after a daemon restart)
//	quit          the final Report; the program then exits
func (w *workload) serve(path string) (Report, error) {
	_ = os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return Report{}, fmt.Errorf("control socket: %w", err)
	}
	defer ln.Close()
	defer os.Remove(path)
	for {
		conn, err := ln.Accept()
		if err != nil {
			return Report{}, fmt.Errorf("control socket %s: %w", path, err)
		}
		rep, quit := w.session(conn)
		conn.Close()
		if quit {
			return rep, nil
		}
	}
}

// session handles one connection; it reports whether quit was asked.
func (w *workload) session(conn net.Conn) (Report, bool) {
	sc := bufio.NewScanner(conn)
	enc := json.NewEncoder(conn)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		var reply any
		switch {
		case f[0] == "quit" && len(f) == 1:
			rep := w.finish()
			_ = enc.Encode(rep)
			return rep, true
		case f[0] == "info" && len(f) == 1:
			reply = struct {
				PID    int         `json:"pid"`
				Arenas []ArenaInfo `json:"arenas"`
			}{os.Getpid(), w.info()}
		case f[0] == "verify" && len(f) == 1:
			reply = w.verifyPass()
		case f[0] == "read" && len(f) == 1:
			reply = w.readAll()
		case f[0] == "phase" && len(f) == 2:
			p, err := w.runPhase(f[1])
			reply = errOr(p, err)
		case f[0] == "touch" && (len(f) == 2 || len(f) == 3):
			reply = w.touchReply(f[1:])
		case f[0] == "complete" && len(f) == 2:
			reply = errOr(w.info(), w.complete(f[1]))
		case f[0] == "register" && len(f) == 1:
			reply = errOr(w.info(), w.reregister())
		case f[0] == "refill" && len(f) == 1:
			for _, a := range w.arenas {
				a.fill(a.gen + 1)
			}
			reply = w.info()
		default:
			reply = map[string]string{"error": fmt.Sprintf("unknown command %q (want info, verify, read, phase NAME, touch SPEC [N], complete SPEC, register, refill or quit)", sc.Text())}
		}
		if err := enc.Encode(reply); err != nil {
			return Report{}, false
		}
	}
	return Report{}, false
}

// readAll reads every block of every arena once, for the read command.
func (w *workload) readAll() PhaseReport {
	var p PhaseReport
	for _, a := range w.arenas {
		all := make([]int, a.blocks())
		for i := range all {
			all[i] = i
		}
		w.readOnce(a, all, &p)
	}
	p.Name = "read"
	return p
}

// touchReply runs the touch command, args being SPEC [N]: blocks SPEC read
// N rounds (1). A rounds argument that is not a positive number is an error
// reply and reads nothing.
func (w *workload) touchReply(args []string) any {
	rounds := 1
	if len(args) == 2 {
		n, err := strconv.Atoi(args[1])
		if err != nil || n <= 0 {
			return map[string]string{"error": fmt.Sprintf("touch: rounds %q: want a positive number", args[1])}
		}
		rounds = n
	}
	p, err := w.touch(args[0], rounds)
	return errOr(p, err)
}

// verifyPass verifies every arena and reports this pass only.
func (w *workload) verifyPass() VerifyReport {
	before := len(w.rep.Verify.Mismatched)
	v := w.verifyAll()
	v.Mismatched = append([]string{}, v.Mismatched[before:]...)
	return v
}

func errOr(v any, err error) any {
	if err != nil {
		return map[string]any{"error": err.Error(), "result": v}
	}
	return v
}
