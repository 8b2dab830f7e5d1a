/**
 * Probe identity on the machine's Redis: two regions, each with a real ACL user made with the
 * rules docs/operations.md gives (`probeAclRules`), deleted afterwards. A probe authenticated as
 * region A reads only A's jobs and writes only A's results (NOPERM otherwise), and runs checks
 * end to end (scheduler -> probe -> ingest -> PostgreSQL, the service on a user of its own, also
 * as the docs give it); reports that were not scheduled (a
 * stream of a region the monitor does not ask for, a date a century ahead, a time off the
 * monitor's slots, an unknown monitor, a job id of another run, an oversized error, a NUL)
 * change nothing in the database. A probe's user may not run INFO: its connections skip the
 * ready check.
 */
import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"

import { expect, layer } from "@effect/vitest"
import { ConfigProvider, DateTime, Effect, Layer } from "effect"
import { Redis } from "ioredis"

import * as ProbeAgent from "../../probes/ProbeAgent.js"
import { CheckResult, errorMaxLength, jobIdOf } from "../../src/domain/CheckJob.js"
import { probeAclCommand, probeAclRules, serviceAclCommand, serviceAclRules } from "../../src/queue/ProbeAcl.js"
import * as RedisJobTransport from "../../src/queue/redis/RedisJobTransport.js"
import { CheckScheduler } from "../../src/workers/CheckScheduler.js"
import { IngestConsumer } from "../../src/workers/IngestConsumer.js"
import { jobsFor } from "../queue/transportContract.js"
import { checkResult, slotOf } from "../support/CheckResults.js"
import { eventually, realPause } from "../support/Eventually.js"
import { aclUser, redisPrefix } from "../support/Redis.js"
import { httpServer } from "../support/Servers.js"
import { storedRuns } from "../support/StoredRuns.js"
import { ApiClient, LiveTestServer } from "../support/TestServer.js"

/** A raw connection as `url`, closed with the scope. */
const connectAs = (url: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const redis = new Redis(url, { lazyConnect: true, enableReadyCheck: false })
      redis.on("error", () => undefined)
      await redis.connect()
      return redis
    }),
    (redis) => Effect.promise(() => redis.quit())
  )

/** The reply of a command, or its error message. */
const outcome = (run: () => Promise<unknown>) =>
  Effect.promise(() => run().then(() => "OK", (error: Error) => error.message))

const noPermission = /^NOPERM/

/** Two regions with a user each, on a fresh prefix. */
const regionsWithUsers = Effect.gen(function*() {
  const { prefix, redis: admin } = yield* redisPrefix
  const [a, b] = [`a${randomUUID().slice(0, 8)}`, `b${randomUUID().slice(0, 8)}`]
  return {
    prefix,
    admin,
    a,
    b,
    userA: yield* aclUser(admin, `probe-${a}`, probeAclRules(prefix, a)),
    userB: yield* aclUser(admin, `probe-${b}`, probeAclRules(prefix, b)),
    service: yield* aclUser(admin, "service", serviceAclRules(prefix))
  }
})

/** Roles of the service (scheduler, ingest) as the service's own Redis user. */
const serviceRoles = <E, R>(url: string, prefix: string, roles: Layer.Layer<never, E, R>) =>
  Effect.gen(function*() {
    yield* Layer.buildWithScope(
      roles.pipe(Layer.provide(RedisJobTransport.layer({ url, prefix }))),
      yield* Effect.scope
    )
  }).pipe(
    Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown({ QUEUE_CLAIM_IDLE_MS: "1000" }))
  )

const monitored = (regions: ReadonlyArray<string> | null, url = "https://example.com") =>
  Effect.gen(function*() {
    const client = yield* ApiClient
    const component = yield* client.components.create({ payload: { name: `Probed ${randomUUID()}` } })
    const monitor = yield* client.monitors.create({
      payload: { componentId: component.id, type: "http", url, regions, failureThreshold: 1, intervalSeconds: 30 }
    })
    return { client, component, monitor }
  })

layer(LiveTestServer(), { excludeTestServices: true, timeout: "90 seconds" })("probe identity", (it) => {
  it.effect("docs/operations.md gives the ACL rules the tests use", () =>
    Effect.sync(() => {
      const operations = readFileSync(new URL("../../docs/operations.md", import.meta.url), "utf8")
      expect(operations).toContain(probeAclCommand("probe-eu-west-1", "<password>", "", "eu-west"))
      expect(operations).toContain(serviceAclCommand("status-page", "<password>", ""))
    }))

  it.effect("a probe of region A can neither read B's jobs nor write B's results, nor add jobs, nor read results", () =>
    Effect.gen(function*() {
      const { a, admin, b, prefix, userA } = yield* regionsWithUsers
      const asA = yield* connectAs(userA.url)
      // B's stream and group exist, with a job in it.
      yield* Effect.promise(() =>
        admin.xgroup("CREATE", `${prefix}jobs:${b}`, b, "0", "MKSTREAM").then(() =>
          admin.xadd(`${prefix}jobs:${b}`, "*", "job", "{}")
        )
      )
      const attempts = {
        readJobsOfB: yield* outcome(() =>
          asA.xreadgroup("GROUP", b, "thief", "COUNT", 10, "STREAMS", `${prefix}jobs:${b}`, ">")
        ),
        joinGroupOfB: yield* outcome(() => asA.xgroup("CREATE", `${prefix}jobs:${b}`, a, "0")),
        claimJobsOfB: yield* outcome(() => asA.xautoclaim(`${prefix}jobs:${b}`, b, "thief", 0, "0-0")),
        rangeJobsOfB: yield* outcome(() => asA.xrange(`${prefix}jobs:${b}`, "-", "+")),
        pendingJobsOfB: yield* outcome(() => asA.xpending(`${prefix}jobs:${b}`, b)),
        consumersOfB: yield* outcome(() => asA.xinfo("CONSUMERS", `${prefix}jobs:${b}`, b)),
        writeResultsOfB: yield* outcome(() => asA.xadd(`${prefix}results:${b}`, "*", "result", "{}")),
        addJobForA: yield* outcome(() => asA.xadd(`${prefix}jobs:${a}`, "*", "job", "{}")),
        addJobForB: yield* outcome(() => asA.xadd(`${prefix}jobs:${b}`, "*", "job", "{}")),
        readResultsOfA: yield* outcome(() => asA.xrange(`${prefix}results:${a}`, "-", "+")),
        listKeys: yield* outcome(() => asA.scan("0", "MATCH", `${prefix}*`)),
        serverInfo: yield* outcome(() => asA.info()),
        otherKey: yield* outcome(() => asA.get(`${prefix}anything`))
      }
      for (const [attempt, reply] of Object.entries(attempts)) expect(reply, attempt).toMatch(noPermission)
      // What it may do: its own group on its own jobs, and XADD to its own results.
      expect(yield* outcome(() => asA.xgroup("CREATE", `${prefix}jobs:${a}`, a, "$", "MKSTREAM"))).toBe("OK")
      expect(yield* outcome(() => asA.xpending(`${prefix}jobs:${a}`, a))).toBe("OK")
      expect(yield* outcome(() => asA.xinfo("CONSUMERS", `${prefix}jobs:${a}`, a))).toBe("OK")
      expect(yield* outcome(() => asA.xadd(`${prefix}results:${a}`, "*", "result", "{}"))).toBe("OK")

      // The same through the transport a probe runs on.
      const transport = yield* RedisJobTransport.make({ url: userA.url, prefix, readyCheck: false })
      const joinB = yield* Effect.flip(transport.jobConsumer(b, "thief"))
      expect(joinB.message).toMatch(/NOPERM/)
      const reportAsB = yield* Effect.flip(transport.publishResults([checkResult("m", b, Date.now(), false)]))
      expect(reportAsB.message).toMatch(/NOPERM/)
      const joinA = yield* transport.jobConsumer(a, "probe-1")
      expect(yield* joinA.read(10, 10)).toEqual([])
      // B's job is still there, unread.
      expect(yield* Effect.promise(() => admin.xlen(`${prefix}jobs:${b}`))).toBe(1)
      expect((yield* Effect.promise(() => admin.xpending(`${prefix}jobs:${b}`, b)))[0]).toBe(0)
    }))

  it.effect("a probe whose user predates +xpending still works: a silent sibling's jobs wait for the claim time", () =>
    Effect.gen(function*() {
      const { a, admin, prefix } = yield* regionsWithUsers
      const before = yield* aclUser(
        admin,
        `probe-${a}-before`,
        probeAclRules(prefix, a).filter((r) => r !== "+xpending")
      )
      const transport = yield* RedisJobTransport.make({ url: before.url, prefix, readyCheck: false })
      const probe = yield* transport.jobConsumer(a, "probe-1")
      // A sibling that took a job and died.
      const [job] = jobsFor(1, "m", [a])
      yield* Effect.promise(() =>
        admin.xadd(`${prefix}jobs:${a}`, "*", "job", JSON.stringify(job)).then(() =>
          admin.xreadgroup("GROUP", a, "dead", "COUNT", 10, "STREAMS", `${prefix}jobs:${a}`, ">")
        )
      )
      yield* realPause(200)
      expect(yield* probe.claimFromSilent(10, 100)).toEqual([])
      expect(yield* probe.claimFromSilent(10, 100)).toEqual([])
      expect((yield* probe.claimStale(10, 100)).map((d) => d.value.id)).toEqual([job!.id])
    }))

  it.effect("a probe authenticated as its region's user runs that region's checks end to end", () =>
    Effect.gen(function*() {
      const { a, admin, b, prefix, service, userA } = yield* regionsWithUsers
      const hits: Array<string> = []
      const target = yield* httpServer((request, response) => {
        hits.push(request.url!)
        response.end("ok")
      })
      const { client, monitor } = yield* monitored([a, b], `${target.url}/checked`)
      yield* serviceRoles(service.url, prefix, Layer.mergeAll(IngestConsumer, CheckScheduler))
      // The probe of A, on its own credentials only.
      yield* Layer.buildWithScope(
        ProbeAgent.layer({ region: a, name: "probe-a-1", concurrency: 4, claimIdleMs: 30_000, readBlockMs: 100 }).pipe(
          Layer.provide(RedisJobTransport.layer({ url: userA.url, prefix, readyCheck: false }))
        ),
        yield* Effect.scope
      )
      // The scheduler publishes the monitor's current slot to A and B; only A has a probe.
      const [run] = yield* eventually(storedRuns([monitor.id]), (runs) => runs.length > 0, 30_000)
      expect(run).toEqual({ jobId: expect.stringMatching(`^${monitor.id}:\\d+$`), region: a, results: 1, misses: 0 })
      const [listed] = yield* client.monitors.results({ params: { id: monitor.id }, query: {} })
      expect(listed).toMatchObject({ outcome: "checked", region: a, probe: "probe-a-1", ok: true })
      expect(hits).toContain("/checked")
      // Without INFO in its rules, nothing it ran was refused: its connections skipped the ready check.
      const refused = yield* Effect.promise(() => admin.call("ACL", "LOG") as Promise<Array<Array<unknown>>>)
      expect(
        refused.map((fields) => new Map(fields.flatMap((v, i) => i % 2 === 0 ? [[v, fields[i + 1]]] : [])))
          .filter((entry) => entry.get("username") === userA.name)
          .map((entry) => entry.get("object"))
      ).toEqual([])
      // Its heartbeat reached the registry, under the region of its stream.
      const probes = yield* eventually(
        client.probes.list({ query: {} }),
        (list) => list.some((probe) => probe.region === a),
        10_000
      )
      expect(probes.filter((probe) => probe.region === a || probe.region === b)).toEqual([
        expect.objectContaining({ name: "probe-a-1", region: a, online: true, concurrency: 4 })
      ])
    }))

  it.effect("reports of runs that were not scheduled change nothing in the database", () =>
    Effect.gen(function*() {
      const { a, admin, b, prefix, service, userA } = yield* regionsWithUsers
      const { client, component, monitor } = yield* monitored([a, b])
      yield* serviceRoles(service.url, prefix, IngestConsumer)
      const asA = yield* connectAs(userA.url)
      // The monitor's latest run (its slots are 30 s apart), and the ones before it.
      const now = slotOf(monitor.id, Date.now(), 30)
      const century = 100 * 525_960 * 60_000
      const failing = (at: number, region = a) => checkResult(monitor.id, region, at, false)
      const forged = [
        // From a compromised probe of A, on its own stream:
        { as: asA, region: a, report: failing(now + century) },
        { as: asA, region: a, report: checkResult(`no-such-monitor-${randomUUID()}`, a, now, false) },
        { as: asA, region: a, report: CheckResult.make({ ...failing(now), jobId: jobIdOf(monitor.id, now - 60_000) }) },
        { as: asA, region: a, report: failing(now - 1) },
        { as: asA, region: a, report: { ...failing(now - 90_000), error: "x".repeat(errorMaxLength + 1) } },
        { as: asA, region: a, report: { ...failing(now - 120_000), error: "nul \u0000" } },
        // From anyone able to write to Redis, on a stream of a region the monitor does not ask for,
        // naming A in its payload:
        { as: admin, region: "elsewhere", report: failing(now - 150_000, a) }
      ]
      for (const { as, region, report } of forged) {
        yield* Effect.promise(() => as.xadd(`${prefix}results:${region}`, "*", "result", JSON.stringify(report)))
      }
      // Then a genuine success of A: once it is stored, every entry before it was read.
      const genuine = checkResult(monitor.id, a, now - 30_000, true)
      yield* Effect.promise(() => asA.xadd(`${prefix}results:${a}`, "*", "result", JSON.stringify(genuine)))
      const stored = yield* eventually(storedRuns([monitor.id]), (runs) => runs.length > 0, 20_000)
      expect(stored).toEqual([{ jobId: genuine.jobId, region: a, results: 1, misses: 0 }])
      expect(yield* storedRuns([forged[1]!.report.monitorId])).toEqual([])
      // Every forged entry was acknowledged, none left for a retry.
      // (-1 until ingest has found the stream and made its group.)
      const pending = (region: string) =>
        Effect.promise(() =>
          (admin.xpending(`${prefix}results:${region}`, "ingest") as Promise<[number]>).catch(() => [-1] as [number])
        )
      const consumed = (region: string) =>
        Effect.promise(async () => {
          const groups = await admin.xinfo("GROUPS", `${prefix}results:${region}`).catch(() => []) as Array<
            Array<unknown>
          >
          const group = groups.map((fields) =>
            new Map(fields.flatMap((v, i) => i % 2 === 0 ? [[v, fields[i + 1]]] : []))
          )
            .find((fields) => fields.get("name") === "ingest")
          return group?.get("entries-read") as number | undefined
        })
      // Read too: the group read every entry of the stream.
      expect(yield* eventually(consumed("elsewhere"), (read) => read === 1, 10_000)).toBe(1)
      expect((yield* eventually(pending("elsewhere"), ([count]) => count === 0))[0]).toBe(0)
      expect((yield* eventually(pending(a), ([count]) => count === 0))[0]).toBe(0)
      // The monitor saw one success of A: nothing failed, nothing went down.
      const [state] = (yield* client.monitors.list({ query: {} })).filter((m) => m.id === monitor.id)
      expect(state?.state).not.toBe("down")
      expect(state?.regionStates.map((r) => [r.region, r.consecutiveFailures])).toEqual([[a, 0]])
      expect((yield* client.components.list({ query: {} })).find((c) => c.id === component.id)?.status).toBe(
        "operational"
      )
      const runs = yield* client.monitors.results({ params: { id: monitor.id }, query: {} })
      expect(runs.map((r) => [r.region, DateTime.toEpochMillis(r.scheduledAt)])).toEqual([[a, genuine.scheduledAt]])
    }))
})
