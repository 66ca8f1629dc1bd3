package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/kvtier/kvtier/test/guest"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: probe record|topology|ctl|wait|where|move|api|as-user|region-id|authz|metrics|scrape|wait-metric|wait-epochs|badinput|memcpy ...")
		return 2
	}
	var out any
	var err error
	switch cmd, rest := args[0], args[1:]; {
	case cmd == "record" && len(rest) >= 3 && rest[1] == "--":
		return record(rest[0], rest[2:])
	case cmd == "topology" && len(rest) == 0:
		out, err = topology("/sys", "/proc")
	case cmd == "ctl" && len(rest) >= 2:
		var raw json.RawMessage
		raw, err = control(rest[0], joinArgs(rest[1:]))
		out = raw
	case cmd == "wait" && (len(rest) == 1 || len(rest) == 2):
		limit := 60 * time.Second
		if len(rest) == 2 {
			if limit, err = time.ParseDuration(rest[1]); err != nil {
				break
			}
		}
		err = waitSocket(rest[0], limit)
		out = map[string]string{"socket": rest[0]}
	case cmd == "where" && len(rest) == 1:
		out, err = where(rest[0])
	case cmd == "move" && len(rest) == 2:
		var node int
		if node, err = strconv.Atoi(rest[1]); err == nil {
			out, err = move(rest[0], node)
		}
	case cmd == "api" && len(rest) == 2:
		out, err = apiQuery(rest[0], rest[1])
	case cmd == "as-user" && len(rest) >= 4 && rest[2] == "--":
		var uid, gid int
		if uid, err = strconv.Atoi(rest[0]); err == nil {
			if gid, err = strconv.Atoi(rest[1]); err == nil {
				err = asUser(uid, gid, rest[3:])
			}
		}
	case cmd == "region-id" && len(rest) == 2:
		var pid int
		var id uint64
		if pid, err = strconv.Atoi(rest[1]); err == nil {
			if id, err = regionID(rest[0], pid); err == nil {
				fmt.Println(id)
				return 0
			}
		}
	case cmd == "authz" && len(rest) == 3:
		var pid int
		var id uint64
		if pid, err = strconv.Atoi(rest[1]); err == nil {
			if id, err = strconv.ParseUint(rest[2], 10, 64); err == nil {
				out, err = authz(rest[0], pid, id)
			}
		}
	case cmd == "pick" && (len(rest) == 3 || len(rest) == 4):
		var node, n, skip int
		node, err = strconv.Atoi(rest[1])
		if err == nil {
			n, err = strconv.Atoi(rest[2])
		}
		if err == nil && len(rest) == 4 {
			skip, err = strconv.Atoi(rest[3])
		}
		if err != nil {
			break
		}
		var spec string
		if spec, err = pick(rest[0], node, n, skip); err != nil {
			break
		}
		fmt.Println(spec)
		return 0
	case cmd == "moveblocks" && len(rest) == 3:
		var node int
		if node, err = strconv.Atoi(rest[2]); err == nil {
			out, err = moveBlocks(rest[0], rest[1], node)
		}
	case cmd == "metrics" && len(rest) == 1:
		out, err = scrapeOnce(rest[0])
	case cmd == "scrape" && len(rest) == 2:
		var iv time.Duration
		if iv, err = time.ParseDuration(rest[1]); err == nil {
			err = scrape(rest[0], iv)
		}
		if err != nil {
			break
		}
		return 0
	case cmd == "wait-metric" && len(rest) == 4:
		var min float64
		var limit time.Duration
		if min, err = strconv.ParseFloat(rest[2], 64); err == nil {
			if limit, err = time.ParseDuration(rest[3]); err == nil {
				out, err = waitMetric(rest[0], rest[1], min, limit)
			}
		}
	case cmd == "wait-epochs" && len(rest) == 3:
		var n float64
		var limit time.Duration
		if n, err = strconv.ParseFloat(rest[1], 64); err == nil {
			if limit, err = time.ParseDuration(rest[2]); err == nil {
				out, err = waitEpochs(rest[0], n, limit)
			}
		}
	case cmd == "badinput" && len(rest) == 2:
		var wi *workloadInfo
		if wi, err = info(rest[1]); err == nil {
			out, err = badInput(rest[0], wi)
		}
	case cmd == "memcpy" && len(rest) <= 1:
		mib := 64
		if len(rest) == 1 {
			mib, err = strconv.Atoi(rest[0])
		}
		if err == nil {
			out = memcpyRate(mib)
		}
	default:
		fmt.Fprintf(os.Stderr, "probe: bad command line %q\n", args)
		return 2
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "probe:", err)
		return 1
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "probe:", err)
		return 1
	}
	return 0
}

// record runs a command and prints its stdout as one result line; its
// stderr goes to the console for the log.
func record(name string, argv []string) int {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	rc := 0
	if err != nil {
		rc = 127
		if ee, ok := err.(*exec.ExitError); ok {
			rc = ee.ExitCode()
		} else {
			fmt.Fprintf(os.Stderr, "probe record %s: %v\n", name, err)
		}
	}
	fmt.Println(guest.FormatResult(name, rc, out))
	return 0
}

func joinArgs(a []string) string {
	s := a[0]
	for _, x := range a[1:] {
		s += " " + x
	}
	return s
}
