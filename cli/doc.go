// Package cli is the command tree of the kvtier binary: the daemon, the
// operator commands that talk to it, and the simulator.
//
// Each command lives in its own file and adds itself to the root with
// register in an init function, so commands stay independent of each other.
package cli
