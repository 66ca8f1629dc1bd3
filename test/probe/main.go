package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"

	"github.com/kvtier/kvtier/test/guest"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// run runs the probe command args names and returns the exit code: 0 on
// success, 1 when the command fails, 2 for a bad command line. Most
// commands print their result as one JSON line; record, region-id, pick
// and scrape print their own.
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
		out, err = ctlCmd(rest)
	case cmd == "wait" && (len(rest) == 1 || len(rest) == 2):
		out, err = waitCmd(rest)
	case cmd == "where" && len(rest) == 1:
		out, err = where(rest[0])
	case cmd == "move" && len(rest) == 2:
		out, err = moveCmd(rest)
	case cmd == "api" && len(rest) == 2:
		out, err = apiQuery(rest[0], rest[1])
	case cmd == "as-user" && len(rest) >= 4 && rest[2] == "--":
		err = asUserCmd(rest)
	case cmd == "region-id" && len(rest) == 2:
		return printed(regionIDCmd(rest))
	case cmd == "authz" && len(rest) == 3:
		out, err = authzCmd(rest)
	case cmd == "pick" && (len(rest) == 3 || len(rest) == 4):
		return printed(pickCmd(rest))
	case cmd == "moveblocks" && len(rest) == 3:
		out, err = moveBlocksCmd(rest)
	case cmd == "metrics" && len(rest) == 1:
		out, err = scrapeOnce(rest[0])
	case cmd == "scrape" && len(rest) == 2:
		return printed(scrapeCmd(rest))
	case cmd == "wait-metric" && len(rest) == 4:
		out, err = waitMetricCmd(rest)
	case cmd == "wait-epochs" && len(rest) == 3:
		out, err = waitEpochsCmd(rest)
	case cmd == "badinput" && len(rest) == 2:
		out, err = badInputCmd(rest)
	case cmd == "memcpy" && len(rest) <= 1:
		out, err = memcpyCmd(rest)
	default:
		fmt.Fprintf(os.Stderr, "probe: bad command line %q\n", args)
		return 2
	}
	return emit(out, err)
}

// emit prints out as one JSON line and returns 0, or, when the command
// failed or out does not encode, prints the error and returns 1.
func emit(out any, err error) int {
	if err == nil {
		err = json.NewEncoder(os.Stdout).Encode(out)
	}
	return printed(err)
}

// printed is the exit code of a command that printed its own result:
// 0, or 1 after printing err.
func printed(err error) int {
	if err != nil {
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
