/**
 * The Redis ACL rules of the fleet's users. A probe of one region (docs/operations.md, "Running a probe in another
 * region"): it reads and acknowledges its region's jobs, and appends to its region's results
 * stream, nothing else. It cannot read or write another region's streams, cannot add a job
 * (even to its own region), cannot read results, and cannot list keys. No I/O here.
 *
 * - `~<prefix>jobs:<region>` with the consumer-group commands a probe uses: XREADGROUP, XACK,
 *   XCLAIM (keep-alive, a silent sibling's jobs, handing jobs back), XAUTOCLAIM (jobs left
 *   pending), XINFO CONSUMERS and XPENDING (which siblings are silent, and what they hold),
 *   XGROUP CREATE (its region's group, on first start), XGROUP DELCONSUMER (leaving the group,
 *   forgetting dead siblings' names).
 * - a selector `(+xadd %W~<prefix>results:<region>)`: XADD, write-only, to its results stream.
 * - CLIENT SETNAME (connection names). Not INFO: a probe's connections skip ioredis' ready
 *   check (RedisTransportOptions.readyCheck), and INFO tells about the whole server.
 *
 * Within its own region a probe can still do harm these commands allow: trim its results
 * stream (XADD MAXLEN 0) or give entries explicit ids, drop or take over its siblings' pending
 * jobs (XGROUP DELCONSUMER, XCLAIM). Each touches only its region's streams, whose reports it
 * could forge anyway; the other regions' streams are out of its reach.
 */
export const probeCommands = [
  "+xreadgroup",
  "+xack",
  "+xclaim",
  "+xautoclaim",
  "+xgroup|create",
  "+xgroup|delconsumer",
  "+xinfo|consumers",
  "+xpending",
  "+client|setname"
] as const

/** The rules after `ACL SETUSER <user> reset on ><password>`, one argument each. */
export const probeAclRules = (prefix: string, region: string): ReadonlyArray<string> => [
  "-@all",
  ...probeCommands,
  `~${prefix}jobs:${region}`,
  `(+xadd %W~${prefix}results:${region})`
]

/** The whole command, as docs/operations.md shows it for redis-cli. */
export const probeAclCommand = (user: string, password: string, prefix: string, region: string) =>
  ["ACL SETUSER", user, "reset", "on", `>${password}`, ...probeAclRules(prefix, region)].join(" ")

/**
 * The rules of the service's own user (scheduler and ingest): the stream commands on every
 * region's streams, SCAN to find the regions, CLIENT SETNAME and INFO. Nothing else of Redis.
 */
export const serviceAclRules = (prefix: string): ReadonlyArray<string> => [
  "-@all",
  "+@stream",
  "+scan",
  "+client|setname",
  "+info",
  `~${prefix}jobs:*`,
  `~${prefix}results:*`
]

/** The service's command, as docs/operations.md shows it for redis-cli. */
export const serviceAclCommand = (user: string, password: string, prefix: string) =>
  ["ACL SETUSER", user, "reset", "on", `>${password}`, ...serviceAclRules(prefix)].join(" ")
