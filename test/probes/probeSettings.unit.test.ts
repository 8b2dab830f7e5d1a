/**
 * The probe's settings as an operator gives them: a probe agent configured from the variables
 * (`ProbeAgent.layerConfig`, what `npm run probe` and the in-process probe run) takes jobs from
 * the in-process transport and checks real TLS servers on loopback whose certificates are made
 * in the test. PROBE_EXTRA_CA_FILE decides whether a private CA is trusted; SSL_EXPIRY_WARNING_DAYS
 * decides when a certificate close to expiry fails. (The checks' own options are tested in
 * httpCheck.unit.test.ts and sslExpiryCheck.unit.test.ts.)
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"

import { describe, expect, it } from "@effect/vitest"
import { Array as Arr, ConfigProvider, Effect, Exit, Layer, Result } from "effect"

import * as ProbeAgent from "../../probes/ProbeAgent.js"
import { CheckJob, isMissed } from "../../src/domain/CheckJob.js"
import * as InProcessJobTransport from "../../src/queue/InProcessJobTransport.js"
import { JobTransport } from "../../src/queue/JobTransport.js"
import { readAll } from "../queue/transportContract.js"
import { makeCa, makeLeaf, type Pem, startHttpsServer } from "../support/Certificates.js"

const serve = (leaf: Pem) =>
  Effect.acquireRelease(Effect.promise(() => startHttpsServer(leaf)), (server) => Effect.promise(server.close))

/** A directory for the CA files, removed afterwards. */
const tempDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "sps-probe-ca-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

const writePem = (dir: string, name: string, pem: string) =>
  Effect.promise(async () => {
    const path = join(dir, name)
    await writeFile(path, pem)
    return path
  })

const job = (monitorId: string, type: "http" | "ssl_expiry", url: string) =>
  CheckJob.forRun(
    { monitorId, type, url, timeoutMs: 3000, expectedStatusCode: 200, intervalSeconds: 60 },
    Date.now()
  )

/** A probe agent configured from `variables` alone runs `jobs`; the results it publishes, by monitor id. */
const probeWith = (variables: Record<string, string>, jobs: ReadonlyArray<CheckJob>) =>
  Effect.gen(function*() {
    const transport = yield* InProcessJobTransport.make()
    const ingest = yield* transport.resultConsumer("ingest-test")
    yield* Layer.buildWithScope(
      ProbeAgent.layerConfig({ readBlockMs: 100 }).pipe(Layer.provide(Layer.succeed(JobTransport, transport))),
      yield* Effect.scope
    ).pipe(Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(variables)))
    yield* transport.publishJobs(jobs)
    const [results, misses] = Arr.partition(
      (yield* readAll(ingest, jobs.length)).map((d) => d.value),
      (report) => isMissed(report) ? Result.fail(report) : Result.succeed(report)
    )
    expect(misses).toEqual([])
    expect(results).toHaveLength(jobs.length)
    return new Map(results.map((result) => [result.monitorId, result]))
  }).pipe(Effect.scoped)

describe("probe settings", () => {
  it.live("PROBE_EXTRA_CA_FILE: checks trust a private CA only when the file holds it", () =>
    Effect.gen(function*() {
      const ca = yield* Effect.promise(makeCa)
      const otherCa = yield* Effect.promise(makeCa)
      const server = yield* serve(yield* Effect.promise(() => makeLeaf({ ca, daysLeft: 90 })))
      const dir = yield* tempDir
      const caFile = yield* writePem(dir, "ca.pem", ca.cert)
      const otherCaFile = yield* writePem(dir, "other-ca.pem", otherCa.cert)
      const jobs = [
        job("https", "http", `https://localhost:${server.port}/`),
        job("tls", "ssl_expiry", `localhost:${server.port}`)
      ]

      const trusting = yield* probeWith({ PROBE_EXTRA_CA_FILE: caFile }, jobs)
      expect(trusting.get("https")).toMatchObject({ ok: true, statusCode: 200, error: null })
      expect(trusting.get("tls")).toMatchObject({ ok: true, error: null, sslDaysLeft: 90 })

      // Without the file the chain cannot be built; with another CA (of the same name) its signature fails.
      for (const variables of [{}, { PROBE_EXTRA_CA_FILE: otherCaFile }]) {
        const distrusting = yield* probeWith(variables, jobs)
        const label = JSON.stringify(variables)
        const reason = "(UNABLE_TO_VERIFY_LEAF_SIGNATURE|CERT_SIGNATURE_FAILURE)"
        expect(distrusting.get("https"), label).toMatchObject({ ok: false, statusCode: null })
        expect(distrusting.get("https")?.error, label).toMatch(new RegExp(reason))
        expect(distrusting.get("tls"), label).toMatchObject({ ok: false, sslDaysLeft: 90 })
        expect(distrusting.get("tls")?.error, label).toMatch(new RegExp(`^certificate not trusted: ${reason}`))
      }

      // A file that cannot be read stops the probe at start, naming it.
      const missing = join(dir, "missing.pem")
      const exit = yield* Effect.exit(probeWith({ PROBE_EXTRA_CA_FILE: missing }, jobs))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(String(Exit.isFailure(exit) ? exit.cause : "")).toContain(`PROBE_EXTRA_CA_FILE ${missing} cannot be read`)
    }).pipe(Effect.scoped))

  it.live("SSL_EXPIRY_WARNING_DAYS: a certificate with 10 days left fails below the setting, passes at or above it", () =>
    Effect.gen(function*() {
      const ca = yield* Effect.promise(makeCa)
      const server = yield* serve(yield* Effect.promise(() => makeLeaf({ ca, daysLeft: 10 })))
      const caFile = yield* writePem(yield* tempDir, "ca.pem", ca.cert)
      const check = job("tls", "ssl_expiry", `localhost:${server.port}`)
      const outcome = (days?: string) =>
        Effect.map(
          probeWith({ PROBE_EXTRA_CA_FILE: caFile, ...(days === undefined ? {} : { SSL_EXPIRY_WARNING_DAYS: days }) }, [
            check
          ]),
          (results) => results.get("tls")
        )

      // Unset: the default threshold, 14 days.
      expect(yield* outcome()).toMatchObject({
        ok: false,
        sslDaysLeft: 10,
        error: "certificate expires in 10 days (threshold 14)"
      })
      expect(yield* outcome("11")).toMatchObject({
        ok: false,
        sslDaysLeft: 10,
        error: "certificate expires in 10 days (threshold 11)"
      })
      expect(yield* outcome("10")).toMatchObject({ ok: true, sslDaysLeft: 10, error: null })
      expect(yield* outcome("7")).toMatchObject({ ok: true, sslDaysLeft: 10, error: null })
    }).pipe(Effect.scoped))
})
