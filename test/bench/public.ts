/**
 * Benchmark of the public reads under load: GET /api/v1/status, then the status page (`/`)
 * without and with `Accept-Encoding: gzip`, of the real service (20 components, 5 active
 * incidents, 3 maintenance windows, PostgreSQL behind it), each against a bare node:http server
 * that returns the same status, headers and bytes, in alternating rounds of the same run, each
 * loaded by autocannon in its own process with 64 connections. It measures and prints; it
 * asserts nothing. Needs PostgreSQL as the tests do (TEST_DATABASE_URL).
 *
 * Then the same load with changes: a history of 500 incidents with 2,000 updates is added, and
 * an operator posts an incident update every second while autocannon loads the summary, then
 * the status page (`/`). It reports the readers' p99 next to the anchor's, and how long a write
 * takes until this instance's public summary shows it (the write's response plus the first GET
 * that sees it), idle and under load.
 *
 * Last, 20 status pages of 50 components each over the same snapshot: a page by slug (its HTML
 * and its summary), and a page by the host name it is served at, next to the bare server.
 *
 *   npm run bench:public            (BENCH_ROUNDS, BENCH_SECONDS, BENCH_CONNECTIONS override)
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

import { ConfigProvider, Context, Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import pg from "pg"

import { CreateApiKey } from "../../src/domain/Auth.js"
import { PublicHttpServer } from "../../src/http/PublicHttpServer.js"
import { HttpLive } from "../../src/http/Server.js"
import { Database } from "../../src/persistence/Database.js"
import { ApiKeys } from "../../src/services/auth/ApiKeys.js"
import { minimumLogLevel } from "../support/Logs.js"
import { freshDatabaseUrl } from "../support/TestDatabase.js"
import { autocannon, type AutocannonResult, incidentHistorySql, rawGet, type RawResponse } from "./Autocannon.js"

const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64)

const load = (url: string, headers: ReadonlyArray<string> = []) => autocannon(url, { connections, seconds, headers })

/**
 * `load`, with the CPU time this process spent per request answered, in µs: the servers run
 * here and autocannon does not, so on a machine whose other work blurs throughput this still
 * tells what each answer costs.
 */
const loadWithCpu = (url: string, headers: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const before = process.cpuUsage()
    const result = yield* load(url, headers)
    const used = process.cpuUsage(before)
    return { ...result, cpu: (used.user + used.system) / Math.max(1, result.total) }
  })

/** The bench's API key (admin writes need one). */
let apiKey = ""

const postNow = async (base: string, path: string, body: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
    body: JSON.stringify(body)
  })
  if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`)
  return (await response.json()) as { id: string }
}
const post = (base: string, path: string, body: unknown) => Effect.promise(() => postNow(base, path, body))

/** The incident history of the public reads (see incidentHistorySql). */
const seedHistory = (databaseUrl: string) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    try {
      await client.query(incidentHistorySql)
    } finally {
      await client.end()
    }
  })

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = values.toSorted((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN
}

/**
 * Posts an incident update, then reads the summary until it shows it: the milliseconds until
 * this instance's public readers see the change (the write's own response included).
 */
const writeUntilVisible = async (base: string, incidentId: string, n: number) => {
  const started = performance.now()
  const message = `Progress note ${n}`
  await postNow(base, `/api/v1/admin/incidents/${incidentId}/updates`, { status: "monitoring", message })
  const written = performance.now() - started
  for (;;) {
    const summary = await (await fetch(`${base}/api/v1/status`)).json() as {
      activeIncidents: Array<{ message: string }>
    }
    if (summary.activeIncidents.some((incident) => incident.message === message)) {
      return { written, visible: performance.now() - started }
    }
  }
}

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

const mean = (results: ReadonlyArray<AutocannonResult>, key: keyof AutocannonResult) =>
  results.reduce((sum, r) => sum + r[key], 0) / results.length

/** A bare node:http server that answers every request with `reference`'s status, headers and bytes; its base URL. */
const bareServer = (reference: RawResponse) =>
  Effect.gen(function*() {
    // Node writes these itself, per connection and response.
    const { connection: _c, date: _d, "keep-alive": _k, "transfer-encoding": _t, ...headers } = reference.headers
    const server = createServer((_request, response) => {
      response.writeHead(reference.status, headers)
      response.end(reference.body)
    })
    yield* Effect.acquireRelease(
      Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))),
      () => Effect.promise(() => new Promise((resolve) => server.close(resolve)))
    )
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })

/**
 * GET `path` of the service with `headers` next to a bare server answering with exactly the bytes
 * and headers the service sends to that request, in alternating rounds.
 */
const compareWithBare = (serviceBase: string, path: string, headers: Record<string, string>) =>
  Effect.gen(function*() {
    const reference = yield* Effect.promise(() => rawGet(`${serviceBase}${path}`, headers))
    const bare = yield* bareServer(reference)
    const named = Object.entries(headers).map(([name, value]) => `${name}: ${value}`).join(", ")
    console.log(
      `\nGET ${path}${named === "" ? "" : ` (${named})`}: ${reference.status}, ${reference.body.byteLength} bytes${
        reference.headers["content-encoding"] ? ` ${reference.headers["content-encoding"]}` : ""
      }`
    )
    console.log("round  server      req/s   p50 ms   p99 ms  non-2xx  CPU µs/req")
    const totals = {
      service: [] as Array<AutocannonResult & { cpu: number }>,
      bare: [] as Array<AutocannonResult & { cpu: number }>
    }
    const asAutocannon = Object.entries(headers).map(([name, value]) => `${name}=${value}`)
    for (let round = 1; round <= rounds; round++) {
      // Alternate which goes first, so neither always runs on a warmer machine.
      const order = round % 2 === 1 ? (["service", "bare"] as const) : (["bare", "service"] as const)
      for (const which of order) {
        const result = yield* loadWithCpu(`${which === "service" ? serviceBase : bare}${path}`, asAutocannon)
        totals[which].push(result)
        console.log(
          `${String(round).padStart(5)}  ${which.padEnd(8)}${fixed(result.requestsPerSecond)} ${fixed(result.p50)} ${
            fixed(result.p99)
          } ${fixed(result.non2xx)} ${result.cpu.toFixed(1).padStart(11)}`
        )
      }
    }
    const serviceRps = mean(totals.service, "requestsPerSecond")
    const bareRps = mean(totals.bare, "requestsPerSecond")
    const cpu = (results: ReadonlyArray<{ cpu: number }>) => results.reduce((sum, r) => sum + r.cpu, 0) / results.length
    for (const which of ["service", "bare"] as const) {
      console.log(
        `mean   ${which.padEnd(8)}${fixed(mean(totals[which], "requestsPerSecond"))} ${
          fixed(mean(totals[which], "p50"))
        } ${fixed(mean(totals[which], "p99"))}          ${cpu(totals[which]).toFixed(1).padStart(11)}`
      )
    }
    console.log(
      `ratio  service / bare throughput: ${(serviceRps / bareRps).toFixed(2)}; bare / service CPU per request: ${
        (cpu(totals.bare) / cpu(totals.service)).toFixed(2)
      }`
    )
  })

/**
 * 1,000 more components (written in one statement, then announced by one more through the API)
 * and 20 pages of 50 of them, the eighth served at `status-7.example.test`; the address of the
 * eleventh page.
 */
const seedPages = (databaseUrl: string, base: string) =>
  Effect.gen(function*() {
    const ids = yield* Effect.promise(async () => {
      const client = new pg.Client({ connectionString: databaseUrl })
      await client.connect()
      try {
        const { rows } = await client.query<{ id: string }>(`
          insert into components (name, description, display_order)
          select 'Page component ' || n, 'Part of a product line', 100 + n from generate_series(1, 1000) n
          returning id`)
        return rows.map((row) => row.id)
      } finally {
        await client.end()
      }
    })
    yield* post(base, "/api/v1/admin/components", { name: "Announces the others" })
    for (let page = 0; page < 20; page++) {
      yield* post(base, "/api/v1/admin/pages", {
        slug: `product-${page}`,
        title: `Product line ${page}`,
        ...(page === 7 ? { domain: "status-7.example.test" } : {}),
        items: ids.slice(page * 50, page * 50 + 50).map((id) => ({ type: "component", id }))
      })
    }
    return "/p/product-10"
  })

const main = Effect.gen(function*() {
  const { url } = yield* freshDatabaseUrl
  const service = yield* Layer.build(HttpLive.pipe(
    Layer.provideMerge(PublicHttpServer({ port: 0, host: "127.0.0.1" })),
    Layer.provideMerge(Database),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ DATABASE_URL: url }))),
    Layer.provideMerge(minimumLogLevel("Warn"))
  ))
  const address = Context.get(service, HttpServer.HttpServer).address
  if (address._tag === "UnixPathAddress") return yield* Effect.die(new Error("expected a TCP address"))
  const serviceBase = `http://127.0.0.1:${address.port}`
  apiKey = (yield* Effect.flatMap(ApiKeys, (keys) =>
    keys.create(new CreateApiKey({ name: "bench" }), { userId: null, role: "owner" })).pipe(
      Effect.provide(ApiKeys.layer),
      Effect.provide(service)
    )).key
  yield* seed(serviceBase)

  // Each read next to a bare server answering with exactly the bytes and headers the service
  // sends to that request (autocannon's: no gzip unless asked).
  console.log(`${connections} connections, ${rounds} x ${seconds} s rounds, service and bare alternating`)
  yield* compareWithBare(serviceBase, "/api/v1/status", {})
  yield* compareWithBare(serviceBase, "/", {})
  yield* compareWithBare(serviceBase, "/", { "accept-encoding": "gzip" })

  // With changes: the history, then one write a second during the load.
  yield* seedHistory(url)
  const live = yield* post(serviceBase, "/api/v1/admin/incidents", { title: "Live incident", message: "Investigating" })
  const idle: Array<{ written: number; visible: number }> = []
  for (let n = 0; n < 10; n++) {
    idle.push(
      yield* Effect.promise(() =>
        writeUntilVisible(serviceBase, live.id, n)
      )
    )
  }
  const report = (label: string, samples: ReadonlyArray<{ written: number; visible: number }>) =>
    console.log(
      `${label}: write p50 ${
        percentile(samples.map((s) => s.written), 0.5).toFixed(0)
      } ms, max ${Math.max(...samples.map((s) => s.written)).toFixed(0)} ms; visible p50 ${
        percentile(samples.map((s) => s.visible), 0.5).toFixed(0)
      } ms, max ${Math.max(...samples.map((s) => s.visible)).toFixed(0)} ms`
    )
  console.log(`\nwith 500 incidents / 2,000 updates of history`)
  report("idle, 10 writes", idle)
  // The summary (the fast path, next to the anchor) and the status page (rendered per snapshot;
  // asked for gzip as browsers do, else its 90-day bars make it a test of loopback bandwidth).
  for (const path of ["/api/v1/status", "/"]) {
    // p99.9 and max too: a reader that waits for a rebuild is rare next to the others (64 of
    // thousands a second), so it shows there first.
    console.log(`GET ${path} while 1 write/s\nround  server      req/s   p50 ms   p99 ms  non-2xx p99.9 ms   max ms`)
    const changing: Array<AutocannonResult> = []
    const underLoad: Array<{ written: number; visible: number }> = []
    for (let round = 1; round <= rounds; round++) {
      let writing = true
      const writer = (async () => {
        for (let n = 0; writing; n++) {
          const tick = performance.now()
          underLoad.push(await writeUntilVisible(serviceBase, live.id, 1000 * round + n))
          await new Promise((resolve) =>
            setTimeout(resolve, Math.max(0, 1000 - (performance.now() - tick)))
          )
        }
      })()
      const result = yield* load(`${serviceBase}${path}`, path === "/" ? ["accept-encoding=gzip"] : [])
      writing = false
      yield* Effect.promise(() => writer)
      changing.push(result)
      console.log(
        `${String(round).padStart(5)}  service ${fixed(result.requestsPerSecond)} ${fixed(result.p50)} ${
          fixed(result.p99)
        } ${fixed(result.non2xx)} ${fixed(result.p999)} ${fixed(result.max)}`
      )
    }
    console.log(
      `mean   service ${fixed(mean(changing, "requestsPerSecond"))} ${fixed(mean(changing, "p50"))} ${
        fixed(mean(changing, "p99"))
      }          ${fixed(mean(changing, "p999"))} ${fixed(mean(changing, "max"))}`
    )
    report(`under load, ${underLoad.length} writes`, underLoad)
  }

  // Last, as it makes the default page 1,020 components long: twenty pages of 50 components each
  // over the same snapshot, a page by slug and one by the host name it is served at, each next to
  // the bare server with its bytes.
  const pageBase = yield* seedPages(url, serviceBase)
  console.log(`\n20 pages of 50 components (1,020 components in all)`)
  yield* compareWithBare(serviceBase, `${pageBase}/`, { "accept-encoding": "gzip" })
  yield* compareWithBare(serviceBase, `${pageBase}/api/v1/status`, {})
  yield* compareWithBare(serviceBase, "/", { "accept-encoding": "gzip", host: "status-7.example.test" })
})

Effect.runPromise(Effect.scoped(main)).catch((error) => {
  console.error(error)
  process.exitCode = 1
})
