/**
 * `monitor.regions` at the probes: a job is published only to the regions it names (none: every
 * known region, each of which its probe's first heartbeat made known), so a probe of region X
 * never runs a job whose regions leave X out, and none is left pending for a sibling either.
 * Probe agents of three regions on each transport, probing a real loopback HTTP server whose
 * own log says which checks reached it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"

import * as ProbeAgent from "../../probes/ProbeAgent.js"
import { CheckJob, isMissed } from "../../src/domain/CheckJob.js"
import * as InProcessJobTransport from "../../src/queue/InProcessJobTransport.js"
import { JobTransport, type QueueError } from "../../src/queue/JobTransport.js"
import * as RedisJobTransport from "../../src/queue/redis/RedisJobTransport.js"
import { readAll } from "../queue/transportContract.js"
import { redisPrefix, redisUrl } from "../support/Redis.js"
import { httpServer } from "../support/Servers.js"

const regions = ["eu-west", "us-east", "ap-south"] as const

/** Which regions each monitor names (null: every region), and so which probes must run it. */
const monitors: ReadonlyArray<{ readonly id: string; readonly regions: ReadonlyArray<string> | null }> = [
  { id: "eu-only", regions: ["eu-west"] },
  { id: "us-and-ap", regions: ["us-east", "ap-south"] },
  { id: "everywhere", regions: null },
  { id: "elsewhere", regions: ["sa-east"] }
]
const runsIn = (regionsOfMonitor: ReadonlyArray<string> | null) =>
  regions.filter((region) => regionsOfMonitor === null || regionsOfMonitor.includes(region))

const transports: ReadonlyArray<readonly [string, () => Layer.Layer<JobTransport, QueueError>]> = [
  ["in-process", () => InProcessJobTransport.layer()],
  [
    "redis streams",
    () => Layer.unwrap(Effect.map(redisPrefix, ({ prefix }) => RedisJobTransport.layer({ url: redisUrl, prefix })))
  ]
]

describe.each(transports)("probes and monitor regions (%s transport)", (_name, transport) => {
  it.live("a probe runs only the jobs whose regions include its own, and leaves the others to no one", () =>
    Effect.gen(function*() {
      const hits: Array<string> = []
      const target = yield* httpServer((request, response) => {
        hits.push(request.url!)
        response.end()
      })
      const queue = yield* JobTransport
      const ingest = yield* queue.resultConsumer("ingest-test")
      for (const region of regions) {
        yield* Layer.buildWithScope(
          ProbeAgent.layer({ region, name: `${region}-1`, concurrency: 4, claimIdleMs: 30_000, readBlockMs: 100 }),
          yield* Effect.scope
        )
      }
      const scheduledAt = Date.now()
      yield* queue.publishJobs(monitors.map(({ id, regions }) =>
        CheckJob.forRun({
          monitorId: id,
          type: "http",
          url: `${target.url}/${id}`,
          timeoutMs: 5000,
          expectedStatusCode: 200,
          intervalSeconds: 60,
          regions
        }, scheduledAt)
      ))

      // Expected from the monitors alone: one result per (monitor, region it names that has a probe).
      const expected = monitors.flatMap(({ id, regions }) => runsIn(regions).map((region) => `${id} ${region}`)).sort()
      expect(expected).toHaveLength(6)
      const reports = yield* readAll(ingest, expected.length)
      expect(reports.map(({ value }) => `${value.monitorId} ${value.region}`).sort()).toEqual(expected)
      expect(reports.every(({ value }) => !isMissed(value) && value.ok)).toBe(true)
      // Nothing more comes: no probe ran a job outside its region, not even late.
      expect(yield* ingest.read(10, 1_000)).toEqual([])

      // The target's own log: each check arrived once per region that runs it, never from another.
      const count = (id: string) => hits.filter((path) => path === `/${id}`).length
      expect(monitors.map(({ id }) => [id, count(id)])).toEqual(
        monitors.map(({ id, regions }) => [id, runsIn(regions).length])
      )
      // Nothing is left pending in any region: a sibling joining its region finds none.
      for (const region of regions) {
        const sibling = yield* queue.jobConsumer(region, `${region}-2`)
        expect(yield* sibling.claimStale(100, 0)).toEqual([])
      }
    }).pipe(Effect.scoped, Effect.provide(transport())))
})
