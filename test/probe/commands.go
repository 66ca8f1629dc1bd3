package main

import (
	"fmt"
	"strconv"
	"time"
)

// The functions here parse one probe command's arguments (rest: the words
// after the command's name, their count already checked by run) and run
// it. Each returns the first error, a bad number or a failed command,
// without running anything after it.

// ctlCmd: ctl SOCKET WORDS... sends the words, joined, as one command to
// the workload at SOCKET.
func ctlCmd(rest []string) (any, error) {
	raw, err := control(rest[0], joinArgs(rest[1:]))
	return raw, err
}

// waitCmd: wait SOCKET [LIMIT] waits for the daemon's socket, 60s unless
// LIMIT says.
func waitCmd(rest []string) (any, error) {
	limit := 60 * time.Second
	if len(rest) == 2 {
		var err error
		if limit, err = time.ParseDuration(rest[1]); err != nil {
			return nil, err
		}
	}
	err := waitSocket(rest[0], limit)
	return map[string]string{"socket": rest[0]}, err
}

// moveCmd: move SOCKET NODE has the workload at SOCKET move to NODE.
func moveCmd(rest []string) (any, error) {
	node, err := strconv.Atoi(rest[1])
	if err != nil {
		return nil, err
	}
	return move(rest[0], node)
}

// asUserCmd: as-user UID GID -- ARGV... runs ARGV as UID:GID.
func asUserCmd(rest []string) error {
	uid, err := strconv.Atoi(rest[0])
	if err != nil {
		return err
	}
	gid, err := strconv.Atoi(rest[1])
	if err != nil {
		return err
	}
	return asUser(uid, gid, rest[3:])
}

// regionIDCmd: region-id SOCKET PID prints the id of the first region of
// PID the caller may list.
func regionIDCmd(rest []string) error {
	pid, err := strconv.Atoi(rest[1])
	if err != nil {
		return err
	}
	id, err := regionID(rest[0], pid)
	if err != nil {
		return err
	}
	fmt.Println(id)
	return nil
}

// authzCmd: authz SOCKET PID REGION sends the requests an unprivileged
// caller must be refused or granted; PID and REGION are another user's.
func authzCmd(rest []string) (any, error) {
	pid, err := strconv.Atoi(rest[1])
	if err != nil {
		return nil, err
	}
	id, err := strconv.ParseUint(rest[2], 10, 64)
	if err != nil {
		return nil, err
	}
	return authz(rest[0], pid, id)
}

// pickCmd: pick SOCKET NODE N [SKIP] prints a block list of up to N blocks
// of the first arena wholly on NODE, after skipping SKIP (0) of them.
func pickCmd(rest []string) error {
	var skip int
	node, err := strconv.Atoi(rest[1])
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(rest[2])
	if err != nil {
		return err
	}
	if len(rest) == 4 {
		if skip, err = strconv.Atoi(rest[3]); err != nil {
			return err
		}
	}
	spec, err := pick(rest[0], node, n, skip)
	if err != nil {
		return err
	}
	fmt.Println(spec)
	return nil
}

// moveBlocksCmd: moveblocks SOCKET LIST NODE moves the blocks of the first
// arena that LIST names to NODE.
func moveBlocksCmd(rest []string) (any, error) {
	node, err := strconv.Atoi(rest[2])
	if err != nil {
		return nil, err
	}
	return moveBlocks(rest[0], rest[1], node)
}

// scrapeCmd: scrape URL INTERVAL prints the metrics every INTERVAL until
// SIGTERM or SIGINT.
func scrapeCmd(rest []string) error {
	iv, err := time.ParseDuration(rest[1])
	if err != nil {
		return err
	}
	return scrape(rest[0], iv)
}

// waitMetricCmd: wait-metric URL NAME MIN LIMIT polls URL, for LIMIT at
// most, until the sample NAME reaches at least MIN.
func waitMetricCmd(rest []string) (any, error) {
	least, err := strconv.ParseFloat(rest[2], 64)
	if err != nil {
		return nil, err
	}
	limit, err := time.ParseDuration(rest[3])
	if err != nil {
		return nil, err
	}
	return waitMetric(rest[0], rest[1], least, limit)
}

// waitEpochsCmd: wait-epochs URL N LIMIT waits, for LIMIT at most, until
// the daemon has counted N more epochs.
func waitEpochsCmd(rest []string) (any, error) {
	n, err := strconv.ParseFloat(rest[1], 64)
	if err != nil {
		return nil, err
	}
	limit, err := time.ParseDuration(rest[2])
	if err != nil {
		return nil, err
	}
	return waitEpochs(rest[0], n, limit)
}

// badInputCmd: badinput SOCKET WORKLOAD sends the daemon at SOCKET the
// malformed requests of scenario 6 about the workload at WORKLOAD.
func badInputCmd(rest []string) (any, error) {
	wi, err := info(rest[1])
	if err != nil {
		return nil, err
	}
	return badInput(rest[0], wi)
}

// memcpyCmd: memcpy [MIB] reports the copy rate of a buffer of MIB MiB
// (64), the baseline the move rate is compared with.
func memcpyCmd(rest []string) (any, error) {
	mib := 64
	if len(rest) == 1 {
		var err error
		if mib, err = strconv.Atoi(rest[0]); err != nil {
			return nil, err
		}
	}
	return memcpyRate(mib), nil
}
