// Package api holds the request and response types of the kvtier daemon's
// HTTP/JSON API and a Go client for it.
//
// The API is served on a unix socket (DefaultSocket) under the /v1 prefix:
//
//	POST   /v1/regions                  register a KV region (RegisterRequest -> Region)
//	GET    /v1/regions                  list regions ([]Region)
//	GET    /v1/regions/{id}             one region (Region)
//	PATCH  /v1/regions/{id}             update class, priority, refcount, pinned ranges,
//	                                    mark ranges think_complete (UpdateRequest -> Region)
//	DELETE /v1/regions/{id}             unregister a region
//	POST   /v1/regions/{id}/hints       access hints from an engine (HintsRequest -> HintsResponse)
//	GET    /v1/regions/{id}/placement   blocks per node and tier, a page (?offset=&limit=) (Placement)
//	GET    /v1/placement?pid=N          a page of every region (of one pid) ([]Placement)
//	GET    /v1/status                   daemon health (Status)
//	GET    /v1/topology                 NUMA nodes and their tiers (Topology)
//	GET    /v1/policy                   policy and budgets (PolicyInfo)
//	GET    /v1/events                   newline-delimited JSON stream of Event
//	GET    /v1/trace                    trace recording state (TraceStatus)
//	POST   /v1/trace                    start recording (TraceRequest -> TraceStatus)
//	DELETE /v1/trace                    stop recording (TraceStatus)
//
// Errors are 4xx or 5xx responses with an Error body (JSON): 400 for a bad
// request, 403 for what the caller may not do, 404 for a missing region or
// endpoint, 405 (with Allow) for a wrong method on a known path, 409 for a
// conflict, 413 for a body over api.max_body, 429 over api.max_regions or
// api.max_regions_per_process, 503 when the daemon is stopping or out of
// file descriptors (retry later).
//
// Placement answers are paged: at most PlacementPageBlocks blocks an
// answer, from the offset query parameter on; each says the region's
// total blocks and the next page's offset. Client.Placement and
// Client.PlacementByPID fetch every page; PlacementPage and
// PlacementByPIDPage one answer.
//
// openapi.json in this directory is an OpenAPI 3.1 description of the
// same API; tests keep it matched to the routes and to these types.
//
// # Who may do what
//
// The daemon reads each caller's credentials from the socket (SO_PEERCRED,
// and on Linux 6.5 and later SO_PEERPIDFD: a caller that exited is not
// taken for the process that now has its PID).
// Root may do everything. Anyone else may register a process only if it is
// that process or could ptrace it (same uid and gid, dumpable; or
// CAP_SYS_PTRACE), and sees and changes only the regions it registered;
// other regions are 404 to it and absent from lists and the event stream.
// RegisterRequest.PID 0 (omitted) means the calling process, as the kernel
// names it in the daemon's PID namespace: engines in containers omit it.
// POST and DELETE /v1/trace are root-only; TraceRequest.Path is a new file
// inside the daemon's record directory (record.dir), by name or absolute
// path.
//
// The package depends on the standard library only, so engines and tools
// can import it cheaply.
package api
