// Command probe runs inside the end-to-end test guests. It is the guest
// side of the results protocol of package test/guest and the independent
// observer of placement: it reads the topology through package numa, talks
// to the workload's control socket, moves the workload's arenas with
// numa.MovePages and checks where their pages are with move_pages(2)
// queries, independently of the daemon's own view.
//
//	probe record NAME -- CMD [ARG...]   run CMD, print its stdout as a result line
//	probe topology                      numa.ReadTopology and the kernel's tiering state
//	probe ctl SOCKET COMMAND...         one workload control command, its JSON reply
//	probe wait SOCKET [TIMEOUT]         wait until the workload's socket answers
//	probe where SOCKET                  pages of every arena per node
//	probe move SOCKET NODE              move every arena to NODE; timing and placement
//	probe api SOCKET WHAT               the daemon's status, regions, placement, topology or policy
//	probe memcpy [MIB]                  copy throughput of the guest (MB/s)
package main
