/**
 * The check types beyond http, tcp, ssl_expiry and dns in a probe agent, with the in-process
 * transport (the embedded default) and in the probe as operators run it:
 * `npm run build:probe`'s bundle, started with plain `node` from a directory with no
 * node_modules above it, taking jobs of each type from its region's stream on the machine's
 * Redis and reporting results. What a probe reads at start holds none of their code (their
 * libraries neither): each is a chunk behind a dynamic import, loaded by the first job of its
 * type. The targets are the machine's real servers and a local gRPC server.
 */
import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"

import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"

import * as ProbeAgent from "../../probes/ProbeAgent.js"
import { buildProbe, inputsAtStart, lazyOnlyInputs } from "../../scripts/buildProbe.js"
import { type CheckDefinition, CheckJob, type CheckResult, isMissed, ProbeReport } from "../../src/domain/CheckJob.js"
import * as InProcessJobTransport from "../../src/queue/InProcessJobTransport.js"
import { JobTransport } from "../../src/queue/JobTransport.js"
import { readAll } from "../queue/transportContract.js"
import { startService } from "../support/ChildProcess.js"
import { redisPrefix, redisUrl } from "../support/Redis.js"
import { serve } from "./support/grpcHealthServer.js"

const region = "check-types"
const encodeJob = Schema.encodeSync(Schema.fromJsonString(CheckJob))
const decodeReport = Schema.decodeUnknownOption(Schema.fromJsonString(ProbeReport))
const decodeReportValue = Schema.decodeUnknownSync(ProbeReport)

const built = Effect.acquireRelease(
  Effect.promise(async () => {
    const dir = mkdtempSync(join(tmpdir(), "probe-check-types-"))
    return { dir, ...(await buildProbe({ outfile: join(dir, "probe.mjs") })) }
  }),
  ({ dir }) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

type Target = Pick<CheckDefinition, "type" | "url"> & Partial<CheckDefinition>

/** One passing target of each type on the machine's servers (and `grpcPort`), then one failing postgres target. */
const targetsFor = (grpcPort: number): ReadonlyArray<Target> => [
  { type: "redis", url: "redis://127.0.0.1:6379/0" },
  { type: "postgres", url: "postgres://postgres@127.0.0.1:5432/postgres" },
  { type: "mysql", url: "mysql://root@127.0.0.1:3306", password: null },
  { type: "mqtt", url: "mqtt://127.0.0.1:1883" },
  { type: "amqp", url: "amqp://guest@127.0.0.1:5672", password: "guest" },
  { type: "icmp", url: "127.0.0.1", pingCount: 1 },
  { type: "grpc", url: `grpc://127.0.0.1:${grpcPort}` },
  // A failure goes through the same path: a database that does not exist.
  { type: "postgres", url: `postgres://postgres@127.0.0.1:5432/e44_missing_${randomUUID().slice(0, 8)}` }
]

const expected = (targets: ReadonlyArray<Target>) => [
  ...targets.slice(0, -1).map((target) => ({ type: target.type, ok: true, error: null })),
  { type: "postgres", ok: false, error: "database does not exist" }
]

describe("the check types in a probe agent", () => {
  it.live("an in-process probe runs a job of each type", () =>
    Effect.gen(function*() {
      const grpcServer = yield* serve({ health: true })
      const targets = targetsFor(grpcServer.port)
      const queue = yield* JobTransport
      const ingest = yield* queue.resultConsumer("ingest-test")
      const run = randomUUID()
      yield* queue.publishJobs(targets.map((target, index) =>
        CheckJob.forRun({
          monitorId: `${run}-${index}`,
          timeoutMs: 5000,
          expectedStatusCode: 200,
          intervalSeconds: 60,
          ...target
        }, Date.now())
      ))
      const reports = (yield* readAll(ingest, targets.length)).map((delivery) => delivery.value)
      // The agent builds each result by hand, with no schema pass: each is what the schema builds
      // from it, every bound held and the same fields in the same order.
      for (const report of reports) {
        const decoded = decodeReportValue(report)
        expect(decoded).toEqual(report)
        expect(Object.keys(decoded)).toEqual(Object.keys(report))
      }
      const outcomes = targets.map((target, index) => {
        const result = reports.find((report) => report.monitorId === `${run}-${index}`)
        return {
          type: target.type,
          ok: result !== undefined && !isMissed(result) ? result.ok : undefined,
          error: result !== undefined && !isMissed(result) ? result.error : undefined
        }
      })
      expect(outcomes).toEqual(expected(targets))
    }).pipe(
      Effect.scoped,
      Effect.provide(
        ProbeAgent.layerConfig({ region: "local", name: "p1" }).pipe(Layer.provideMerge(InProcessJobTransport.layer()))
      )
    ))

  it.live("the bundled probe loads each type's chunk on its first job and runs it against a real server", () =>
    Effect.gen(function*() {
      const bundle = yield* built
      // Nothing of the new types is read at start.
      const lazy = Object.keys(bundle.metafile.inputs).filter((input) => lazyOnlyInputs.some((p) => p.test(input)))
      expect(lazy.some((input) => input.includes("node_modules/pg/"))).toBe(true)
      expect(lazy.some((input) => input.includes("node_modules/mysql2/"))).toBe(true)
      expect(lazy.some((input) => input.includes("node_modules/@grpc/grpc-js/"))).toBe(true)
      expect(inputsAtStart(bundle.metafile, bundle.outfile).filter((input) => lazy.includes(input))).toEqual([])

      const grpcServer = yield* serve({ health: true })
      const { prefix, redis } = yield* redisPrefix
      const probe = yield* Effect.acquireRelease(
        Effect.sync(() =>
          startService(bundle.outfile, {
            REDIS_URL: redisUrl,
            REDIS_STREAM_PREFIX: prefix,
            PROBE_REGION: region,
            PROBE_NAME: "check-types-1",
            HOST: "127.0.0.1"
          }, { plainNode: true, cwd: dirname(bundle.outfile), home: false })
        ),
        ({ child, exited }) => Effect.promise(() => (child.kill("SIGTERM"), exited))
      )
      const targets = targetsFor(grpcServer.port)
      // The probe's group starts at the stream's end when it joins: publish every target until each has a result.
      const run = randomUUID()
      const results = new Map<string, CheckResult>()
      const deadline = Date.now() + 30_000
      let lastId = "0"
      let round = 0
      while (results.size < targets.length && Date.now() < deadline && probe.alive()) {
        round++
        for (const [index, target] of targets.entries()) {
          const monitorId = `${run}-${index}`
          if (results.has(monitorId)) continue
          const job = CheckJob.forRun({
            monitorId,
            timeoutMs: 5000,
            expectedStatusCode: 200,
            intervalSeconds: 60,
            ...target
          }, Date.now() + round)
          yield* Effect.promise(() => redis.xadd(`${prefix}jobs:${region}`, "*", "job", encodeJob(job)))
        }
        const entries = yield* Effect.promise(() =>
          redis.xread("COUNT", 100, "BLOCK", 500, "STREAMS", `${prefix}results:${region}`, lastId)
        )
        for (const [id, fields] of entries?.[0]?.[1] ?? []) {
          lastId = id
          const at = fields.indexOf("result")
          if (at < 0 || at % 2 !== 0) continue
          const report = decodeReport(fields[at + 1])
          if (report._tag === "Some" && !isMissed(report.value) && report.value.monitorId.startsWith(run)) {
            results.set(report.value.monitorId, report.value)
          }
        }
      }
      const outcomes = targets.map((target, index) => {
        const result = results.get(`${run}-${index}`)
        return { type: target.type, ok: result?.ok, error: result?.error }
      })
      expect(outcomes, probe.output()).toEqual(expected(targets))
    }))
})
