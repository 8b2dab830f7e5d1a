/**
 * Benchmark of the public summary under load: GET /api/v1/status of the real service (20
 * components, 5 active incidents, 3 maintenance windows, PostgreSQL behind it) against a bare
 * node:http server that returns the same bytes, in alternating rounds of the same run, each
 * loaded by autocannon in its own process with 64 connections. It measures and prints; it
 * asserts nothing. Needs PostgreSQL as the tests do (TEST_DATABASE_URL).
 *
 *   npm run bench:public            (BENCH_ROUNDS, BENCH_SECONDS, BENCH_CONNECTIONS override)
 */
import { HttpServer } from "@effect/platform"
import { ConfigProvider, Context, Effect, Layer, Logger, LogLevel } from "effect"
import { execFile } from "node:child_process"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { PublicHttpServer } from "../../src/http/PublicFastPath.js"
import { HttpLive } from "../../src/http/Server.js"
import { Database } from "../../src/persistence/Database.js"
import { freshDatabaseUrl } from "../support/TestDatabase.js"

const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64)

interface Result {
  readonly requestsPerSecond: number
  readonly p50: number
  readonly p99: number
  readonly non2xx: number
}

/** Runs autocannon in a child process, so the load generator does not share the servers' event loop. */
const load = (url: string) =>
  Effect.async<Result, Error>((resume) => {
    execFile(
      "node_modules/.bin/autocannon",
      ["--json", "-c", String(connections), "-d", String(seconds), url],
      { maxBuffer: 64 * 1024 * 1024 },
      (error, stdout) => {
        if (error) return resume(Effect.fail(error))
        const report = JSON.parse(stdout)
        resume(Effect.succeed({
          requestsPerSecond: report.requests.average,
          p50: report.latency.p50,
          p99: report.latency.p99,
          non2xx: report.non2xx
        }))
      }
    )
  })

const post = (base: string, path: string, body: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
    if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`)
    return (await response.json()) as { id: string }
  })

const seed = (base: string) =>
  Effect.gen(function*() {
    const components = yield* Effect.forEach(Array.from({ length: 20 }, (_, i) => i), (i) =>
      post(base, "/api/v1/admin/components", { name: `Component ${i + 1}`, description: `Service number ${i + 1}` }))
    for (let i = 0; i < 5; i++) {
      yield* post(base, "/api/v1/admin/incidents", {
        title: `Incident ${i + 1}`,
        severity: "major",
        message: "We are investigating elevated error rates.",
        componentIds: [components[i]!.id, components[i + 5]!.id]
      })
    }
    const day = 24 * 3600 * 1000
    for (let i = 0; i < 3; i++) {
      yield* post(base, "/api/v1/admin/maintenance", {
        title: `Maintenance ${i + 1}`,
        description: "Planned upgrade",
        scheduledStart: new Date(Date.now() + (i + 1) * day).toISOString(),
        scheduledEnd: new Date(Date.now() + (i + 1) * day + 3600 * 1000).toISOString(),
        componentIds: [components[10 + i]!.id]
      })
    }
  })

const fixed = (n: number) => n.toFixed(0).padStart(8)

const main = Effect.gen(function*() {
  const { url } = yield* freshDatabaseUrl
  const service = yield* Layer.build(HttpLive.pipe(
    Layer.provideMerge(PublicHttpServer({ port: 0, host: "127.0.0.1" })),
    Layer.provide(Database),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromJson({ DATABASE_URL: url }))),
    Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))
  ))
  const address = Context.get(service, HttpServer.HttpServer).address
  if (address._tag !== "TcpAddress") return yield* Effect.dieMessage("expected a TCP address")
  const serviceBase = `http://127.0.0.1:${address.port}`
  yield* seed(serviceBase)

  // The bare server answers with exactly the bytes and headers the service sends.
  const reference = yield* Effect.promise(() => fetch(`${serviceBase}/api/v1/status`))
  const bytes = Buffer.from(yield* Effect.promise(() => reference.arrayBuffer()))
  const headers = {
    "content-type": reference.headers.get("content-type")!,
    etag: reference.headers.get("etag")!,
    "cache-control": reference.headers.get("cache-control")!,
    "content-length": bytes.byteLength
  }
  const bare = createServer((_req, res) => {
    res.writeHead(200, headers)
    res.end(bytes)
  })
  yield* Effect.acquireRelease(
    Effect.promise(() => new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve))),
    () => Effect.promise(() => new Promise((resolve) => bare.close(resolve)))
  )
  const bareBase = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`

  console.log(`GET /api/v1/status (${bytes.byteLength} bytes), ${connections} connections, ${rounds} x ${seconds} s rounds`)
  console.log("round  server      req/s   p50 ms   p99 ms  non-2xx")
  const totals = { service: [] as Array<Result>, bare: [] as Array<Result> }
  for (let round = 1; round <= rounds; round++) {
    // Alternate which goes first, so neither always runs on a warmer machine.
    const order = round % 2 === 1 ? (["service", "bare"] as const) : (["bare", "service"] as const)
    for (const which of order) {
      const result = yield* load(`${which === "service" ? serviceBase : bareBase}/api/v1/status`)
      totals[which].push(result)
      console.log(`${String(round).padStart(5)}  ${which.padEnd(8)}${fixed(result.requestsPerSecond)} ${fixed(result.p50)} ${fixed(result.p99)} ${fixed(result.non2xx)}`)
    }
  }
  const mean = (results: Array<Result>, key: keyof Result) => results.reduce((sum, r) => sum + r[key], 0) / results.length
  const serviceRps = mean(totals.service, "requestsPerSecond")
  const bareRps = mean(totals.bare, "requestsPerSecond")
  console.log(`mean   service ${fixed(serviceRps)} ${fixed(mean(totals.service, "p50"))} ${fixed(mean(totals.service, "p99"))}`)
  console.log(`mean   bare    ${fixed(bareRps)} ${fixed(mean(totals.bare, "p50"))} ${fixed(mean(totals.bare, "p99"))}`)
  console.log(`ratio  service / bare throughput: ${(serviceRps / bareRps).toFixed(2)}`)
})

Effect.runPromise(Effect.scoped(main)).catch((error) => {
  console.error(error)
  process.exitCode = 1
})
