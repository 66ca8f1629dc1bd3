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
//	probe moveblocks SOCKET LIST NODE   move blocks LIST ("0,3-5") of the first arena to NODE
//	probe pick SOCKET NODE N [SKIP]     up to N blocks of the first arena on NODE ("8,9,12")
//	probe metrics URL                   one scrape of the daemon's kvtier_ metrics
//	probe scrape URL INTERVAL           a scrape a line (JSON) every INTERVAL until SIGTERM
//	probe wait-metric URL NAME MIN T    wait up to T until metric NAME >= MIN
//	probe wait-epochs URL N T           wait up to T until the daemon ran N more epochs
//	probe badinput SOCKET WLSOCKET      malformed API requests and the daemon's answers
//	probe memcpy [MIB]                  copy throughput of the guest (MB/s)
package main
