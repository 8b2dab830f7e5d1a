/**
 * `rediss://`: the transport over TLS to a redis-server of the test's own (the machine's Redis
 * has no TLS port), on loopback, with a certificate from a private CA made on the spot. The
 * server verifies nothing of the client; the client verifies the server: trusted only with
 * the CA given (REDIS_CA_FILE), and a plain `redis://` to the TLS port gets nowhere.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"

import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer } from "effect"

import { JobTransport } from "../../src/queue/JobTransport.js"
import * as RedisJobTransport from "../../src/queue/redis/RedisJobTransport.js"
import { makeCa, makeLeaf } from "../support/Certificates.js"
import { spawnRedisServer } from "../support/RedisServer.js"
import { heartbeatOf, jobsFor, readAll, resultFor } from "./transportContract.js"

/** A redis-server answering only TLS on a free loopback port; its CA's PEM file. */
const tlsRedis = Effect.acquireRelease(
  Effect.promise(async () => {
    const dir = await mkdtemp(join(tmpdir(), "sps-redis-tls-"))
    const ca = await makeCa()
    const leaf = await makeLeaf({ ca, daysLeft: 30 })
    await writeFile(join(dir, "ca.pem"), ca.cert)
    await writeFile(join(dir, "cert.pem"), leaf.cert)
    await writeFile(join(dir, "key.pem"), leaf.key)
    // A free port, another if redis-server finds it taken meanwhile.
    const { child, exited, port } = await spawnRedisServer((tlsPort) => [
      ...["--port", "0", "--tls-port", String(tlsPort), "--bind", "127.0.0.1"],
      ...["--tls-cert-file", join(dir, "cert.pem"), "--tls-key-file", join(dir, "key.pem")],
      ...["--tls-ca-cert-file", join(dir, "ca.pem"), "--tls-auth-clients", "no"],
      ...["--save", "", "--appendonly", "no", "--dir", dir]
    ])
    return { port, caFile: join(dir, "ca.pem"), ca: ca.cert, dir, child, exited }
  }),
  ({ child, dir, exited }) =>
    Effect.promise(async () => {
      child.kill("SIGKILL")
      await exited
      await rm(dir, { recursive: true, force: true })
    })
)

describe("redis streams over TLS", () => {
  it.live("rediss:// with the CA of REDIS_CA_FILE: jobs and results go through", () =>
    Effect.gen(function*() {
      const server = yield* tlsRedis
      const transport = RedisJobTransport.layerConfig({ url: `rediss://127.0.0.1:${server.port}`, prefix: "tls:" })
      yield* Effect.gen(function*() {
        const queue = yield* JobTransport
        yield* queue.publishHeartbeat("eu", heartbeatOf("eu-1"))
        const probe = yield* queue.jobConsumer("eu", "eu-1")
        const ingest = yield* queue.resultConsumer("ingest-1")
        const jobs = jobsFor(2)
        yield* queue.publishJobs(jobs)
        const taken = yield* readAll(probe, 2)
        expect(taken.map((d) => d.value)).toEqual(jobs)
        yield* queue.publishResults(taken.map((d) => resultFor(d.value, "eu")))
        const results = yield* readAll(ingest, 2)
        expect(results.map((d) => d.value.jobId)).toEqual(jobs.map((j) => j.id))
        expect((yield* ingest.takeHeartbeats()).map((beat) => beat.heartbeat.name)).toEqual(["eu-1"])
      }).pipe(
        Effect.scoped,
        Effect.provide(transport),
        Effect.provideService(
          ConfigProvider.ConfigProvider,
          ConfigProvider.fromUnknown({ REDIS_CA_FILE: server.caFile })
        )
      )
    }).pipe(Effect.scoped))

  it.live("the server's certificate is verified, and plain redis:// does not reach a TLS port", () =>
    Effect.gen(function*() {
      const server = yield* tlsRedis
      const start = (url: string, ca?: string) =>
        Effect.exit(
          RedisJobTransport.make({ url, ...(ca === undefined ? {} : { ca }), prefix: "tls:" }).pipe(
            Effect.flatMap((queue) => queue.knownRegions()),
            Effect.scoped,
            Effect.timeout("5 seconds")
          )
        )
      // The system's CAs alone do not know the private CA.
      const untrusted = yield* start(`rediss://127.0.0.1:${server.port}`)
      expect(Exit.isFailure(untrusted)).toBe(true)
      expect(String(Exit.isFailure(untrusted) ? untrusted.cause : "")).toMatch(/self.signed|unable to (get|verify)/i)
      const plain = yield* start(`redis://127.0.0.1:${server.port}`)
      expect(Exit.isFailure(plain)).toBe(true)
      // With the CA: connected (an empty Redis knows no region).
      const trusted = yield* start(`rediss://127.0.0.1:${server.port}`, server.ca)
      expect(trusted).toEqual(Exit.succeed(new Set()))
      // A CA file that cannot be read stops the start, naming it.
      const missing = join(server.dir, "missing.pem")
      const exit = yield* Effect.exit(
        Layer.build(RedisJobTransport.layerConfig({ url: `rediss://127.0.0.1:${server.port}` })).pipe(
          Effect.scoped,
          Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown({ REDIS_CA_FILE: missing }))
        )
      )
      expect(String(Exit.isFailure(exit) ? exit.cause : "")).toContain(`REDIS_CA_FILE ${missing} cannot be read`)
    }).pipe(Effect.scoped))
})
