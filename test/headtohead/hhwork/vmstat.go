package main

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
)

// migrated returns the kernel's pgmigrate_success counter: every page
// migrated so far, whoever moved it (move_pages, NUMA balancing,
// demotion, DAMOS). It returns -1 when /proc/vmstat cannot be read.
func migrated() int64 {
	b, err := os.ReadFile("/proc/vmstat")
	if err != nil {
		return -1
	}
	return vmstatField(b, "pgmigrate_success")
}

// vmstatField returns the value of name in /proc/vmstat's text, -1 when
// it is absent.
func vmstatField(b []byte, name string) int64 {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := bytes.Cut(sc.Bytes(), []byte{' '})
		if !ok || string(k) != name {
			continue
		}
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return -1
		}
		return n
	}
	return -1
}

// since returns the pages migrated since start (a migrated() value), or
// -1 when either reading failed.
func since(start int64) int64 {
	now := migrated()
	if start < 0 || now < 0 {
		return -1
	}
	return now - start
}
