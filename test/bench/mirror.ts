/**
 * Benchmark of the static mirror's lag (docs/operations.md, "Static mirror"): how long after a
 * change is answered its publication's last object, the bucket's `index.html`, is written, while
 * autocannon (its own process, BENCH_CONNECTIONS 16, at most BENCH_READ_RATE 1,000 requests/s)
 * reads the status page. The service (20 components, 500 resolved incidents) runs in this process
 * on a fresh PostgreSQL database, publishing to s3rver, a real S3-compatible server, also in this
 * process; every BENCH_INTERVAL_MS (1,000) for BENCH_SECONDS (30) it opens an incident or posts
 * an update, alternately, each waited for before the next.
 *
 * A change's lag: from its write's answer (committed, the snapshot shows it) to the first write
 * of `index.html` after the bucket received the incident's page with the change. The anchor, in
 * the same run and under the same reads: one PUT of the same page's bytes straight to the bucket
 * (what a publication costs at least). Target: p99 lag ≤ 5 s. It measures and prints; it asserts
 * nothing.
 *
 *   npm run bench:mirror   (BENCH_SECONDS, BENCH_INTERVAL_MS, BENCH_CONNECTIONS, BENCH_READ_RATE override)
 */
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3"
import { PgClient } from "@effect/sql-pg"
import { ConfigProvider, Context, Effect, Fiber, Layer } from "effect"
import { HttpServer } from "effect/http"

import { CreateApiKey } from "../../src/domain/Auth.js"
import { PublicHttpServer } from "../../src/http/PublicHttpServer.js"
import { HttpLive } from "../../src/http/Server.js"
import { Database } from "../../src/persistence/Database.js"
import { ApiKeys } from "../../src/services/auth/ApiKeys.js"
import { MirrorPublisher } from "../../src/workers/MirrorPublisher.js"
import { minimumLogLevel } from "../support/Logs.js"
import { s3Credentials, startS3Server } from "../support/S3Server.js"
import { freshDatabaseUrl } from "../support/TestDatabase.js"
import { autocannon, seedHistory } from "./Autocannon.js"

const seconds = Number(process.env.BENCH_SECONDS ?? 30)
const intervalMs = Number(process.env.BENCH_INTERVAL_MS ?? 1000)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16)
const readRate = Number(process.env.BENCH_READ_RATE ?? 1000)

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = values.toSorted((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const main = Effect.gen(function*() {
  const s3 = yield* Effect.acquireRelease(
    Effect.promise(() => startS3Server()),
    (server) => Effect.promise(() => server.dispose())
  )
  const events = s3.timeline

  const { url } = yield* freshDatabaseUrl
  const config = ConfigProvider.layer(ConfigProvider.fromUnknown({
    DATABASE_URL: url,
    MIRROR_S3_URL: `${s3.endpoint}/${s3.bucket}`,
    ...s3Credentials
  }))
  const service = yield* Layer.build(
    Layer.merge(HttpLive, MirrorPublisher).pipe(
      Layer.provideMerge(PublicHttpServer({ port: 0, host: "127.0.0.1" })),
      Layer.provideMerge(Database),
      Layer.provide(config),
      Layer.provideMerge(minimumLogLevel("Warn"))
    )
  )
  const address = Context.get(service, HttpServer.HttpServer).address
  if (address._tag === "UnixPathAddress") return yield* Effect.die(new Error("expected a TCP address"))
  const base = `http://127.0.0.1:${address.port}`
  const apiKey = (yield* Effect.flatMap(ApiKeys, (keys) =>
    keys.create(new CreateApiKey({ name: "bench" }), { userId: null, role: "owner" })).pipe(
      Effect.provide(ApiKeys.layer),
      Effect.provide(service)
    )).key
  const send = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
      body: JSON.stringify(body)
    })
    if (response.status >= 300) {
      throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
    }
    return (await response.json()) as { id: string }
  }
  yield* Effect.promise(async () => {
    for (let i = 0; i < 20; i++) {
      await send("POST", "/api/v1/admin/components", { name: `Component ${i + 1}` })
    }
  })
  yield* Effect.orDie(seedHistory(Context.get(service, PgClient.PgClient)))
  // The first, full publication (every archived incident's page) is not what is measured. The
  // history was written behind the service's back: a component's deletion touches everything.
  yield* Effect.promise(async () => {
    const spare = await send("POST", "/api/v1/admin/components", { name: "Spare" })
    await fetch(`${base}/api/v1/admin/components/${spare.id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${apiKey}` }
    })
    await send("POST", "/api/v1/admin/incidents", { title: "Warm-up", message: "Before the measure" })
    while (
      !events.some((event) =>
        event.key === "index.html"
      )
    ) {
      await sleep(100)
    }
    await sleep(3000)
  })

  const anchorClient = new S3Client({
    endpoint: s3.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: s3Credentials.AWS_ACCESS_KEY_ID, secretAccessKey: s3Credentials.AWS_SECRET_ACCESS_KEY }
  })
  const page = yield* Effect.promise(async () =>
    Buffer.from(await (await fetch(`${base}/`)).arrayBuffer())
  )
  const anchors: Array<number> = []
  const lags: Array<number> = []
  const load = yield* Effect.forkChild(autocannon(`${base}/`, { connections, seconds: seconds + 5, rate: readRate }))
  yield* Effect.promise(async () => {
    let open: string | undefined
    const deadline = performance.now() + seconds * 1000
    for (let n = 0; performance.now() < deadline; n++) {
      const started = performance.now()
      await anchorClient.send(
        new PutObjectCommand({ Bucket: s3.bucket, Key: "bench/anchor.html", Body: page, ContentType: "text/html" })
      )
      anchors.push(performance.now() - started)
      const words = `Change ${n}`
      const sent = performance.now()
      const changed = open ?? (await send("POST", "/api/v1/admin/incidents", { title: words, message: words })).id
      if (open === undefined) {
        open = changed
      } else {
        await send("POST", `/api/v1/admin/incidents/${open}/updates`, { status: "monitoring", message: words })
        open = undefined
      }
      const answered = performance.now()
      const key = `incidents/${changed}`
      // The first index write after the incident's page was written again (since the request:
      // the publication may start before the answer is in), from the answer.
      const lag = await (async () => {
        for (let waited = 0; waited < 30_000; waited += 20) {
          const from = events.findIndex((event) => event.at >= sent && event.key === key)
          const index = from < 0 ? undefined : events.slice(from).find((event) => event.key === "index.html")
          if (index !== undefined) return index.at - answered
          await sleep(20)
        }
        return Infinity
      })()
      lags.push(lag)
      await sleep(Math.max(0, intervalMs - (performance.now() - started)))
    }
  })
  const reads = yield* Effect.orDie(Fiber.join(load))
  anchorClient.destroy()

  console.log(`\nStatic mirror on s3rver, PostgreSQL, ${lags.length} changes under ${readRate || "unlimited"} reads/s`)
  console.log("                              count   p50 ms  p99 ms  max ms")
  const row = (label: string, values: ReadonlyArray<number>) =>
    console.log(
      `${label.padEnd(28)}${String(values.length).padStart(7)}${percentile(values, 0.5).toFixed(0).padStart(9)}${
        percentile(values, 0.99).toFixed(0).padStart(8)
      }${Math.max(...values).toFixed(0).padStart(8)}`
    )
  row("anchor: one PUT of the page", anchors)
  row("mirror lag (change → index)", lags)
  console.log(
    `ratio p50 lag / p50 anchor: ${(percentile(lags, 0.5) / percentile(anchors, 0.5)).toFixed(1)}×; ` +
      `p99 lag ${percentile(lags, 0.99).toFixed(0)} ms, target ≤ 5000 ms: ${
        percentile(lags, 0.99) <= 5000 ? "met" : "missed"
      }`
  )
  console.log(`reads: ${reads.requestsPerSecond.toFixed(0)} req/s, p99 ${reads.p99} ms, ${reads.non2xx} non-2xx`)
})

Effect.runPromise(Effect.scoped(main)).then(() => process.exit(0), (error) => {
  console.error(error)
  process.exit(1)
})
