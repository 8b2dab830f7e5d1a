/**
 * The transport through Redis Sentinel (`redis+sentinel://`) on a group of the test's own: a
 * master, a replica and three sentinels on loopback (test/support/RedisSentinels.ts), the
 * service and a probe each signed in as its ACL user, as in production. The master is SIGKILLed
 * while the probe's and ingest's reads are blocked in XREADGROUP: the sentinels promote the
 * replica, and every connection follows by itself: a job published after the kill reaches the
 * probe's read that was blocked at the kill, and its result reaches ingest's, on the new master.
 * A failover asked for (SENTINEL FAILOVER) leaves the old master up, demoted: its READONLY and
 * UNBLOCKED errors move the connections the same way. Also: TLS, and the start's errors.
 */
import { randomBytes } from "node:crypto"
import { writeFileSync } from "node:fs"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"

import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber } from "effect"

import { probeAclRules, serviceAclRules } from "../../src/queue/ProbeAcl.js"
import * as RedisJobTransport from "../../src/queue/redis/RedisJobTransport.js"
import { makeCa, makeLeaf } from "../support/Certificates.js"
import { startSentinelGroup } from "../support/RedisSentinels.js"
import { spawnRedisServer } from "../support/RedisServer.js"
import { heartbeatOf, jobsFor, readAll, resultFor } from "./transportContract.js"

const prefix = "sentinel:"
const password = (user: string) => `${user}-${randomBytes(12).toString("hex")}`
const users = { service: password("service"), probe: password("probe") }

const sentinelGroup = Effect.acquireRelease(
  Effect.promise(() =>
    startSentinelGroup({
      aclUsers: {
        service: ["reset", "on", `>${users.service}`, ...serviceAclRules(prefix)],
        probe: ["reset", "on", `>${users.probe}`, ...probeAclRules(prefix, "eu")]
      }
    })
  ),
  (group) => Effect.promise(group.stop)
)

/**
 * A master and a sentinel answering only TLS (the sentinel reaches the master over TLS too,
 * `tls-replication`), with a certificate for 127.0.0.1 from a private CA made on the spot.
 */
const tlsSentinel = Effect.acquireRelease(
  Effect.promise(async () => {
    const dir = await mkdtemp(join(tmpdir(), "sps-sentinel-tls-"))
    const ca = await makeCa()
    const leaf = await makeLeaf({ ca, daysLeft: 30 })
    await writeFile(join(dir, "ca.pem"), ca.cert)
    await writeFile(join(dir, "cert.pem"), leaf.cert)
    await writeFile(join(dir, "key.pem"), leaf.key)
    const tls = [
      ...["tls-cert-file", join(dir, "cert.pem"), "tls-key-file", join(dir, "key.pem")],
      ...["tls-ca-cert-file", join(dir, "ca.pem"), "tls-auth-clients", "no", "tls-replication", "yes"]
    ]
    const pairs = (list: ReadonlyArray<string>) =>
      list.flatMap((item, i) => (i % 2 === 0 ? [`${item} ${list[i + 1]}`] : []))
    const master = await spawnRedisServer((port) => [
      ...["--port", "0", "--tls-port", String(port), "--bind", "127.0.0.1", "--save", "", "--dir", dir],
      ...tls.map((item, i) => (i % 2 === 0 ? `--${item}` : item))
    ])
    const sentinel = await spawnRedisServer((port) => {
      // A sentinel writes to its configuration file: one of its own, per port tried.
      const conf = join(dir, `sentinel-${port}.conf`)
      writeFileSync(
        conf,
        ["bind 127.0.0.1", `dir ${dir}`, ...pairs(tls), `sentinel monitor tls 127.0.0.1 ${master.port} 1`].join("\n") +
          "\n"
      )
      return [conf, "--sentinel", "--port", "0", "--tls-port", String(port)]
    })
    return { ca: ca.cert, dir, processes: [master, sentinel], url: `rediss+sentinel://127.0.0.1:${sentinel.port}/tls` }
  }),
  ({ dir, processes }) =>
    Effect.promise(async () => {
      for (const { child, exited } of processes) {
        child.kill("SIGKILL")
        await exited
      }
      await rm(dir, { recursive: true, force: true })
    })
)

/** Polls `condition` every 100 ms until it holds, for at most 10 s. */
const until = async (what: string, condition: () => Promise<boolean>) => {
  const deadline = Date.now() + 10_000
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Runs `effect` again every 100 ms until it succeeds, for at most `limitMs`. */
const retryFor = <A, E>(effect: Effect.Effect<A, E>, limitMs: number) =>
  Effect.gen(function*() {
    const deadline = Date.now() + limitMs
    for (;;) {
      const exit = yield* Effect.exit(effect)
      if (Exit.isSuccess(exit) || Date.now() > deadline) return yield* exit
      yield* Effect.sleep("100 millis")
    }
  })

describe("redis streams through Sentinel", () => {
  it.live(
    "the master SIGKILLed: publishers and blocked readers follow the promoted replica",
    () =>
      Effect.gen(function*() {
        const group = yield* sentinelGroup
        const service = yield* RedisJobTransport.make({ url: group.url("service", users.service), prefix })
        const probeQueue = yield* RedisJobTransport.make({
          url: group.url("probe", users.probe),
          prefix,
          readyCheck: false
        })
        yield* probeQueue.publishHeartbeat("eu", heartbeatOf("eu-1"))
        const probe = yield* probeQueue.jobConsumer("eu", "eu-1")
        const ingest = yield* service.resultConsumer("ingest-1")

        // Through the first master.
        const before = jobsFor(2, "before", ["eu"])
        yield* service.publishJobs(before)
        const taken = yield* readAll(probe, 2)
        expect(taken.map((d) => d.value)).toEqual(before)
        yield* probe.ack(taken.map((d) => d.id))
        yield* probeQueue.publishResults(taken.map((d) => resultFor(d.value, "eu")))
        const stored = yield* readAll(ingest, 2)
        expect(stored.map((d) => d.value.jobId)).toEqual(before.map((job) => job.id))
        yield* ingest.ack(stored.map((d) => d.id))

        const [first, replica] = group.dataPorts
        expect(yield* Effect.promise(group.masterPort)).toBe(first)
        // Everything so far is on the replica (WAIT: acknowledged by one replica), so the kill loses nothing.
        const master = group.admin(first!)
        expect(yield* Effect.promise(() => master.call("WAIT", "1", "5000"))).toBe(1)

        // Both reads blocked in XREADGROUP on the master when it dies.
        const probeRead = yield* Effect.forkChild(probe.read(10, 60_000))
        const ingestRead = yield* Effect.forkChild(ingest.read(10, 60_000))
        const blocked = Effect.promise(async () =>
          ((await master.client("LIST")) as string).split("\n").filter((line) =>
            / flags=\w*b/.test(line) && line.includes("cmd=xreadgroup")
          ).length
        )
        expect(yield* retryFor(blocked.pipe(Effect.filterOrFail((n) => n === 2)), 10_000)).toBe(2)

        const killedAt = yield* Effect.promise(() => group.kill(first!))
        // Published at once: queued while no master answers, sent to the new one (retried should
        // a command give up first).
        const after = jobsFor(3, "after", ["eu"])
        yield* retryFor(service.publishJobs(after), 30_000)
        const publishedAfterMs = Date.now() - killedAt
        const failedOverAt = yield* Effect.promise(() => group.failedOverFrom(first!, 30_000))
        expect(yield* Effect.promise(group.masterPort)).toBe(replica)

        // The read blocked at the kill, sent again to the new master, gets the new jobs.
        const read = yield* Fiber.join(probeRead)
        const rest = read.length < 3 ? yield* readAll(probe, 3 - read.length) : []
        const delivered = [...read, ...rest]
        expect(delivered.map((d) => d.value)).toEqual(after)
        yield* retryFor(probe.ack(delivered.map((d) => d.id)), 10_000)
        yield* retryFor(probeQueue.publishResults(delivered.map((d) => resultFor(d.value, "eu"))), 10_000)
        const ingested = [...(yield* Fiber.join(ingestRead))]
        if (ingested.length < 3) ingested.push(...(yield* readAll(ingest, 3 - ingested.length)))
        expect(ingested.map((d) => d.value.jobId)).toEqual(after.map((job) => job.id))
        yield* ingest.ack(ingested.map((d) => d.id))

        // All on the new master, under the ACL users (the sentinels' default user sees the connections).
        const newMaster = group.admin(replica!)
        const clients = ((yield* Effect.promise(() => newMaster.client("LIST"))) as string).split("\n")
        expect(clients.some((line) => line.includes(" user=probe ") && line.includes("name=status-page-eu-eu-1")))
          .toBe(true)
        expect(
          clients.some((line) => line.includes(" user=service ") && line.includes("name=status-page-ingest-ingest-1"))
        )
          .toBe(true)
        expect(yield* Effect.promise(() => newMaster.xpending(`${prefix}jobs:eu`, "eu"))).toEqual([0, null, null, null])
        // The sentinels take about down-after (1 s) and an election to promote the replica.
        expect(failedOverAt - killedAt).toBeLessThan(15_000)
        expect(publishedAfterMs).toBeLessThan(20_000)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "a failover with the old master up (SENTINEL FAILOVER): the demoted master's errors move every connection",
    () =>
      Effect.gen(function*() {
        const group = yield* sentinelGroup
        const service = yield* RedisJobTransport.make({ url: group.url("service", users.service), prefix })
        const probeQueue = yield* RedisJobTransport.make({
          url: group.url("probe", users.probe),
          prefix,
          readyCheck: false
        })
        yield* probeQueue.publishHeartbeat("eu", heartbeatOf("eu-1"))
        const probe = yield* probeQueue.jobConsumer("eu", "eu-1")
        const ingest = yield* service.resultConsumer("ingest-1")
        // A first run through, so both consumers' next reads block on their streams.
        const before = jobsFor(1, "before", ["eu"])
        yield* service.publishJobs(before)
        const taken = yield* readAll(probe, 1)
        yield* probe.ack(taken.map((d) => d.id))
        yield* probeQueue.publishResults(taken.map((d) => resultFor(d.value, "eu")))
        yield* ingest.ack((yield* readAll(ingest, 1)).map((d) => d.id))
        const [first, replica] = group.dataPorts
        const master = group.admin(first!)
        expect(yield* Effect.promise(() => master.call("WAIT", "1", "5000"))).toBe(1)
        const probeRead = yield* Effect.forkChild(probe.read(10, 60_000))
        const ingestRead = yield* Effect.forkChild(ingest.read(10, 60_000))
        const blocked = Effect.promise(async () =>
          ((await master.client("LIST")) as string).split("\n").filter((line) =>
            / flags=\w*b/.test(line) && line.includes("cmd=xreadgroup")
          ).length
        )
        expect(yield* retryFor(blocked.pipe(Effect.filterOrFail((n) => n === 2)), 10_000)).toBe(2)

        // The sentinels promote the replica at once, and demote the old master once they see it
        // still a master (their INFO, every 10 s); the test demotes it as soon as they name the
        // new one. Nothing breaks a connection: the old master refuses writes and unblocks its readers.
        yield* Effect.promise(() => group.admin(group.sentinelPorts[0]!).call("SENTINEL", "FAILOVER", group.name))
        yield* Effect.promise(() =>
          until("the sentinel naming the new master", async () => (await group.masterPort()) === replica)
        )
        yield* Effect.promise(() => master.call("REPLICAOF", "127.0.0.1", String(replica)))
        yield* Effect.promise(() =>
          until("the old master a replica", async () => (await master.info("replication")).includes("role:slave"))
        )
        const after = jobsFor(3, "after", ["eu"])
        yield* service.publishJobs(after)
        const read = yield* Fiber.join(probeRead)
        const delivered = [...read, ...(read.length < 3 ? yield* readAll(probe, 3 - read.length) : [])]
        expect(delivered.map((d) => d.value)).toEqual(after)
        yield* probe.ack(delivered.map((d) => d.id))
        yield* probeQueue.publishResults(delivered.map((d) => resultFor(d.value, "eu")))
        const ingested = [...(yield* Fiber.join(ingestRead))]
        if (ingested.length < 3) ingested.push(...(yield* readAll(ingest, 3 - ingested.length)))
        expect(ingested.map((d) => d.value.jobId)).toEqual(after.map((job) => job.id))
        yield* ingest.ack(ingested.map((d) => d.id))
        const newMaster = group.admin(replica!)
        expect(yield* Effect.promise(() => newMaster.xpending(`${prefix}jobs:eu`, "eu"))).toEqual([0, null, null, null])
        // No connection of the transports is left on the old master.
        const left = ((yield* Effect.promise(() => master.client("LIST"))) as string).split("\n")
        expect(left.filter((line) => / user=(probe|service) /.test(line))).toEqual([])
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "rediss+sentinel://: TLS to the sentinel and the master, both checked against the CA given",
    () =>
      Effect.gen(function*() {
        const server = yield* tlsSentinel
        const start = (url: string, ca?: string) =>
          Effect.exit(
            RedisJobTransport.make({ url, ...(ca === undefined ? {} : { ca }), prefix }).pipe(
              Effect.flatMap((queue) => queue.knownRegions()),
              Effect.scoped,
              Effect.timeout("15 seconds")
            )
          )
        expect(yield* start(server.url, server.ca)).toEqual(Exit.succeed(new Set()))
        // The system's CAs alone do not know the private CA (ioredis keeps the sentinel's TLS error
        // to itself: the start fails naming the sentinel); plain TCP does not reach a TLS port.
        const untrusted = yield* start(server.url)
        expect(String(Exit.isFailure(untrusted) ? untrusted.cause : "")).toMatch(
          /master "tls": failed to connect to sentinel 127\.0\.0\.1:\d+/
        )
        const plain = yield* start(server.url.replace("rediss+", "redis+"), server.ca)
        expect(Exit.isFailure(plain)).toBe(true)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live("a master no sentinel knows stops the start, saying so", () =>
    Effect.gen(function*() {
      const group = yield* sentinelGroup
      const exit = yield* Effect.exit(
        RedisJobTransport.make({ url: group.url("service", users.service).replace(/\/status$/, "/other"), prefix })
      )
      expect(Exit.isFailure(exit)).toBe(true)
      expect(String(Exit.isFailure(exit) ? exit.cause : "")).toMatch(
        /through the sentinels, master "other": failed to connect to sentinel 127\.0\.0\.1:\d+ because ERR No such master with that name/
      )
      // A malformed URL, before any connection.
      const malformed = yield* Effect.exit(
        RedisJobTransport.make({ url: "redis+sentinel://127.0.0.1:1", prefix })
      )
      expect(String(Exit.isFailure(malformed) ? malformed.cause : "")).toContain("REDIS_URL: a Sentinel URL is")
    }).pipe(Effect.scoped), 60_000)
})
