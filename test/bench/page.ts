/**
 * Benchmark of the status page's weight: `GET /` of the real service (PostgreSQL behind it) with
 * 20, 50 and 200 components, each a service of its own on a fresh database, seeded as a real page
 * looks after months of use: every component with an HTTP monitor in two regions, 90 days of
 * daily uptime rollups (mostly whole days, some dips and outages), 24 hours of hourly response
 * times per region, two groups of five, three active incidents, five resolved ones on past days
 * (so their days' cells name them) and an upcoming maintenance window. For each size it prints:
 *
 * - the bytes of `GET /` as sent without `Accept-Encoding` and as a browser asks
 *   (`gzip, deflate, br`), with the encoding the service chose;
 * - where they go: each part of the page (uptime bars, response-time charts, stylesheet,
 *   subscribe form, the rest) in plain bytes, and the gzipped bytes the page loses without it;
 * - the first contentful paint in headless Chromium (Debian's, as the browser tests) with
 *   DevTools' "Slow 4G" network profile set through CDP (puppeteer's
 *   PredefinedNetworkConditions['Slow 4G']: 562.5 ms latency, 1.6 Mbps × 0.9 down, 750 kbps ×
 *   0.9 up), no CPU throttling as in DevTools' preset (BENCH_CPU_THROTTLE=4 sets
 *   Emulation.setCPUThrottlingRate), a fresh browser context per run (nothing cached), the
 *   median of BENCH_RUNS runs, and every request made before it;
 *
 * each against the targets of issue 46 (50 components: at most 40 kB gzipped, FCP within 1 s),
 * and the FCP next to an anchor measured in the same run: a page of the same gzipped size that
 * is one request and paints at once, so the anchor's FCP is what the network alone costs.
 * It measures and prints; it asserts nothing. Needs PostgreSQL as the tests do
 * (TEST_DATABASE_URL) and Chromium (CHROMIUM_PATH, default /usr/bin/chromium).
 *
 *   npm run bench:page    (BENCH_RUNS, BENCH_SIZES=20,50,200, BENCH_CPU_THROTTLE override; BENCH_SAVE=<dir>
 *                         writes each page's HTML there)
 */
import { randomBytes } from "node:crypto"
import { writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { gzipSync } from "node:zlib"

import { ConfigProvider, Context, Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import pg from "pg"
import { type Browser, chromium } from "playwright-core"

import { CreateApiKey } from "../../src/domain/Auth.js"
import { bucketCount, bucketOf } from "../../src/domain/ResponseTimeHistogram.js"
import { PublicHttpServer } from "../../src/http/PublicHttpServer.js"
import { HttpLive } from "../../src/http/Server.js"
import { Database } from "../../src/persistence/Database.js"
import { ApiKeys } from "../../src/services/auth/ApiKeys.js"
import { chromiumPath } from "../support/Browser.js"
import { minimumLogLevel } from "../support/Logs.js"
import { freshDatabaseUrl } from "../support/TestDatabase.js"
import { rawGet } from "./Autocannon.js"

const runs = Number(process.env.BENCH_RUNS ?? 5)
const sizes = (process.env.BENCH_SIZES ?? "20,50,200").split(",").map(Number)
const cpuThrottle = Number(process.env.BENCH_CPU_THROTTLE ?? 1)

/** Issue 46's targets, at 50 components. */
const targetGzipBytes = 40 * 1024
const targetFcpMs = 1000

/** Chrome DevTools' "Slow 4G", as puppeteer's PredefinedNetworkConditions['Slow 4G'] defines it. */
const slow4g = {
  offline: false,
  latency: 150 * 3.75,
  downloadThroughput: ((1.6 * 1000 * 1000) / 8) * 0.9,
  uploadThroughput: ((750 * 1000) / 8) * 0.9
}

const day = 86_400_000
const hour = 3_600_000
const regions = ["eu-west", "us-east"]

/** A fixed sequence, so every run seeds the same page. */
const random = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
  return seed / 2 ** 31
}

const service = Effect.gen(function*() {
  const { url } = yield* freshDatabaseUrl
  const context = yield* Layer.build(HttpLive.pipe(
    Layer.provideMerge(PublicHttpServer({ port: 0, host: "127.0.0.1" })),
    Layer.provideMerge(Database),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ DATABASE_URL: url }))),
    Layer.provideMerge(minimumLogLevel("Warn"))
  ))
  const address = Context.get(context, HttpServer.HttpServer).address
  if (address._tag === "UnixPathAddress") return yield* Effect.die(new Error("expected a TCP address"))
  const apiKey = (yield* Effect.flatMap(ApiKeys, (keys) =>
    keys.create(new CreateApiKey({ name: "bench" }), { userId: null, role: "owner" })).pipe(
      Effect.provide(ApiKeys.layer),
      Effect.provide(context)
    )).key
  return { base: `http://127.0.0.1:${address.port}`, databaseUrl: url, apiKey }
})

const admin =
  (base: string, apiKey: string) => async <A = { id: string }>(path: string, body: unknown, method = "POST") => {
    const response = await fetch(`${base}/api/v1/admin${path}`, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
      body: JSON.stringify(body)
    })
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
    return (await response.json()) as A
  }

const withClient = async <A>(databaseUrl: string, f: (client: pg.Client) => Promise<A>) => {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end()
  }
}

/** A histogram of `count` checks around `typical` ms, as the rollups store it. */
const histogram = (next: () => number, typical: number, count: number) => {
  const buckets = Array.from({ length: bucketCount }, () => 0)
  let sum = 0
  let min = Infinity
  let max = 0
  for (let i = 0; i < count; i++) {
    const ms = typical * (0.7 + next() * 0.6) * (next() < 0.05 ? 3 : 1)
    buckets[bucketOf(ms)]! += 1
    sum += ms
    min = Math.min(min, ms)
    max = Math.max(max, ms)
  }
  while (buckets.length > 0 && buckets.at(-1) === 0) buckets.pop()
  return { buckets, sum, min, max }
}

/** The page of `size` components described at the top. */
const seed = async (base: string, databaseUrl: string, apiKey: string, size: number) => {
  const post = admin(base, apiKey)
  const next = random(size)
  const groups = [
    await post("/component-groups", { name: "Platform" }),
    await post("/component-groups", {
      name: "Edge network"
    })
  ]
  const components: Array<{ id: string }> = []
  for (let i = 0; i < size; i++) {
    components.push(
      await post("/components", {
        name: `Service ${String(i + 1).padStart(3, "0")}`,
        description: i % 3 === 0 ? "Customer-facing API and its workers" : undefined,
        ...(i < 10 ? { groupId: groups[Math.floor(i / 5)]!.id } : {})
      })
    )
  }
  const monitors: Array<{ id: string }> = []
  for (const [i, component] of components.entries()) {
    monitors.push(
      await post("/monitors", {
        componentId: component.id,
        type: "http",
        url: `http://127.0.0.1:9/health/${i}`,
        intervalSeconds: 60,
        regions
      })
    )
  }
  const now = Date.now()
  const today = Math.floor(now / day) * day
  await withClient(databaseUrl, async (client) => {
    // Created long ago: every day of the bar is a day it existed.
    await client.query(`update components set created_at = now() - interval '120 days'`)
    const uptime: Array<unknown> = []
    for (const component of components) {
      for (let d = 1; d < 90; d++) {
        const roll = next()
        const down = roll < 0.9 ? 0 : roll < 0.96 ? 60 + next() * 600 : roll < 0.99 ? 900 + next() * 3000 : 8000
        uptime.push([component.id, new Date(today - d * day), 86_400, Math.round(down)])
      }
    }
    for (let i = 0; i < uptime.length; i += 5000) {
      const rows = uptime.slice(i, i + 5000) as Array<[string, Date, number, number]>
      await client.query(
        `insert into uptime_rollups (component_id, granularity, bucket_start, observed_seconds, downtime_seconds)
         select c, 'day', b, o, d from unnest($1::text[], $2::timestamptz[], $3::float8[], $4::float8[]) as t(c, b, o, d)
         on conflict do nothing`,
        [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2]), rows.map((r) => r[3])]
      )
    }
    const firstHour = Math.floor(now / hour) * hour - 23 * hour
    for (const monitor of monitors) {
      const typical = 40 + next() * 300
      for (const region of regions) {
        const values: Array<string> = []
        const parameters: Array<unknown> = []
        for (let h = 0; h < 24; h++) {
          const { buckets, max, min, sum } = histogram(next, typical * (region === "us-east" ? 1.4 : 1), 60)
          const at = new Date(firstHour + h * hour)
          const n = parameters.length
          values.push(
            `($${n + 1}, 'hour', $${n + 2}, $${n + 3}, 60, $${n + 4}, $${n + 5}, $${n + 6}, $${
              n + 7
            }, 0, 0, 0, 0, 0, 0, 0, 0)`
          )
          parameters.push(monitor.id, at, region, sum, min, max, buckets)
        }
        await client.query(
          `insert into response_time_rollups (monitor_id, granularity, bucket_start, region, count, sum_ms, min_ms, max_ms,
             buckets, dns_sum_ms, dns_count, connect_sum_ms, connect_count, tls_sum_ms, tls_count, first_byte_sum_ms,
             first_byte_count) values ${values.join(", ")}`,
          parameters
        )
      }
    }
  })
  // The public state reads a component again when it changes: each is renamed to its own name.
  for (const [i, component] of components.entries()) {
    await post(`/components/${component.id}`, { name: `Service ${String(i + 1).padStart(3, "0")}` }, "PUT")
  }
  // Five resolved incidents on past days, then three open ones; the writes refresh the snapshot.
  const resolved: Array<{ id: string; daysAgo: number }> = []
  for (let i = 0; i < 5; i++) {
    const incident = await post("/incidents", {
      title: `Elevated error rates on checkout ${i + 1}`,
      severity: "major",
      message: "We are investigating elevated error rates.",
      componentIds: [components[(i * 7) % size]!.id, components[(i * 7 + 3) % size]!.id]
    })
    await post(`/incidents/${incident.id}/updates`, { status: "resolved", message: "Fixed; error rates are normal." })
    resolved.push({ id: incident.id, daysAgo: 3 + i * 11 })
  }
  await withClient(databaseUrl, async (client) => {
    for (const { daysAgo, id } of resolved) {
      await client.query(
        `update incidents set created_at = now() - make_interval(days => $2), updated_at = now() - make_interval(days => $2) + interval '2 hours',
           resolved_at = now() - make_interval(days => $2) + interval '2 hours' where id = $1`,
        [id, daysAgo]
      )
      await client.query(
        `update incident_updates set created_at = now() - make_interval(days => $2) + interval '1 hour' where incident_id = $1`,
        [id, daysAgo]
      )
    }
  })
  for (let i = 0; i < 3; i++) {
    await post("/incidents", {
      title: `Delayed notifications ${i + 1}`,
      severity: i === 0 ? "critical" : "minor",
      message: "Notifications are delayed by up to 10 minutes. We have found the cause and are deploying a fix.",
      componentIds: [components[i + 10 < size ? i + 10 : i]!.id]
    })
  }
  await post("/maintenance", {
    title: "Database upgrade",
    description: "The primary database moves to a new major version. Writes pause for up to five minutes.",
    scheduledStart: new Date(now + 2 * day).toISOString(),
    scheduledEnd: new Date(now + 2 * day + 2 * hour).toISOString(),
    componentIds: [components[0]!.id, components[1]!.id]
  })
}

/** The parts of the page, each by the markup that starts and ends it (the stylesheet is one element). */
const parts: ReadonlyArray<readonly [string, RegExp]> = [
  ["uptime bars", /<div class="?uptime"?>.*?<\/ol>.*?<\/div>/gs],
  ["response-time charts", /<figure class="?response-times"?>.*?<\/figure>/gs],
  ["stylesheet", /<style>.*?<\/style>/gs],
  ["subscribe form", /<section aria-labelledby="?subscribe-title"?>.*?<\/section>/gs],
  ["component cards less bars and charts", /<li class="?card"?><div class="?row"?><h[34]>.*?(?=<div class="?uptime)/gs]
]

const gz = (text: string) => gzipSync(Buffer.from(text)).byteLength

/** Each part's plain bytes, and the gzipped bytes the page loses without it. */
const breakdown = (page: string) => {
  const whole = gz(page)
  const rows = parts.map(([name, pattern]) => {
    const found = page.match(pattern) ?? []
    const plain = found.reduce((sum, text) => sum + Buffer.byteLength(text), 0)
    return { name, count: found.length, plain, gzip: whole - gz(page.replace(pattern, "")) }
  })
  return { whole, rows }
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = values.toSorted((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

interface PaintRun {
  readonly fcp: number
  /** What was requested before the first contentful paint: navigation and subresources, ms from the start. */
  readonly before: ReadonlyArray<{ readonly url: string; readonly start: number; readonly end: number }>
  readonly requests: number
}

/** One cold load of `url` on "Slow 4G": its first contentful paint and what it requested before. */
const paint = async (browser: Browser, url: string): Promise<PaintRun> => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } })
  try {
    const page = await context.newPage()
    const cdp = await context.newCDPSession(page)
    await cdp.send("Network.enable")
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true })
    await cdp.send("Network.emulateNetworkConditions", slow4g)
    if (cpuThrottle > 1) await cdp.send("Emulation.setCPUThrottlingRate", { rate: cpuThrottle })
    let requests = 0
    page.on("request", () => requests++)
    await page.goto(url, { waitUntil: "load" })
    const measured = await page.waitForFunction(() => {
      const fcp = performance.getEntriesByName("first-contentful-paint")[0]
      if (fcp === undefined) return undefined
      const entries = [
        ...performance.getEntriesByType("navigation"),
        ...performance.getEntriesByType("resource")
      ] as Array<PerformanceResourceTiming>
      return {
        fcp: fcp.startTime,
        before: entries.filter((entry) => entry.startTime < fcp.startTime).map((entry) => ({
          url: entry.name,
          start: entry.startTime,
          end: entry.responseEnd
        }))
      }
    })
    return { ...(await measured.jsonValue())!, requests }
  } finally {
    await context.close()
  }
}

/** A one-request page of `bytes` gzipped bytes that paints at once: the network's share of an FCP. */
const anchorServer = async (gzipBytes: number) => {
  // Random base64 in a comment (gzip leaves about 3/4 of it), so the page is about `gzipBytes` on the wire.
  const filler = randomBytes(Math.round(gzipBytes * 0.99)).toString("base64")
  const body = gzipSync(
    Buffer.from(`<!doctype html><html lang="en"><title>Anchor</title><p>Anchor<!--${filler}--></p>`)
  )
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-encoding": "gzip" })
    response.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    bytes: body.byteLength,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

const kB = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`

const measure = (browser: Browser, size: number) =>
  Effect.scoped(Effect.gen(function*() {
    const { apiKey, base, databaseUrl } = yield* service
    yield* Effect.promise(() => seed(base, databaseUrl, apiKey, size))
    const plain = yield* Effect.promise(() => rawGet(`${base}/`, {}))
    const browserLike = yield* Effect.promise(() => rawGet(`${base}/`, { "accept-encoding": "gzip, deflate, br" }))
    const html = plain.body.toString()
    if (process.env.BENCH_SAVE) writeFileSync(`${process.env.BENCH_SAVE}/page-${size}.html`, html)
    // The seed shows: every component's bar and chart.
    const bars = (html.match(/<ol class="?bar/g) ?? []).length
    const charts = (html.match(/<figure class="?response-times/g) ?? []).length
    const encoding = browserLike.headers["content-encoding"] ?? "identity"
    console.log(
      `\n${size} components (${bars} bars incl. 2 groups', ${charts} charts): GET / ${plain.status}, ${plain.body.byteLength} bytes (${
        kB(plain.body.byteLength)
      }) plain; ${browserLike.body.byteLength} bytes (${
        kB(browserLike.body.byteLength)
      }) ${encoding} for "Accept-Encoding: gzip, deflate, br"`
    )
    const { rows, whole } = breakdown(html)
    console.log("part                                  count   plain bytes   share   gzip bytes it adds")
    for (const row of rows) {
      console.log(
        `${row.name.padEnd(36)} ${String(row.count).padStart(6)} ${String(row.plain).padStart(13)} ${
          ((100 * row.plain) / plain.body.byteLength).toFixed(1).padStart(6)
        } % ${String(row.gzip).padStart(12)}`
      )
    }
    const listed = rows.reduce((sum, row) => sum + row.plain, 0)
    console.log(`${"the rest".padEnd(36)} ${"".padStart(6)} ${String(plain.body.byteLength - listed).padStart(13)}`)
    console.log(`(gzip level 6 here: ${whole} bytes for the whole page)`)

    const anchor = yield* Effect.promise(() => anchorServer(browserLike.body.byteLength))
    const page: Array<PaintRun> = []
    const anchors: Array<PaintRun> = []
    for (let run = 0; run < runs; run++) {
      // Alternate which goes first, so neither always runs on a warmer machine.
      for (const which of run % 2 === 0 ? ["page", "anchor"] : ["anchor", "page"]) {
        if (which === "page") page.push(yield* Effect.promise(() => paint(browser, `${base}/`)))
        else anchors.push(yield* Effect.promise(() => paint(browser, anchor.url)))
      }
    }
    yield* Effect.promise(() => anchor.close())
    const fcp = median(page.map((run) => run.fcp))
    const anchorFcp = median(anchors.map((run) => run.fcp))
    console.log(
      `FCP on Slow 4G${cpuThrottle > 1 ? `, CPU ${cpuThrottle}x slower` : ", no CPU throttling"}, median of ${runs}: ${
        fcp.toFixed(0)
      } ms (runs ${
        page.map((run) => run.fcp.toFixed(0)).join(", ")
      }); anchor (${anchor.bytes} bytes gzip, one request) ${anchorFcp.toFixed(0)} ms; page / anchor ${
        (fcp / anchorFcp).toFixed(2)
      }`
    )
    const first = page[0]!
    console.log(`requests before FCP (first run; ${first.requests} requests in all until load):`)
    for (const request of first.before) {
      console.log(`  ${request.url.replace(base, "")}  ${request.start.toFixed(0)}-${request.end.toFixed(0)} ms`)
    }
    if (size === 50) {
      const verdict = (ok: boolean) => ok ? "meets" : "MISSES"
      console.log(
        `target, 50 components: ${kB(browserLike.body.byteLength)} ${encoding} ${
          verdict(browserLike.body.byteLength <= targetGzipBytes)
        } ≤ ${kB(targetGzipBytes)}; FCP ${fcp.toFixed(0)} ms ${verdict(fcp <= targetFcpMs)} ≤ ${targetFcpMs} ms`
      )
    }
  }))

const main = Effect.gen(function*() {
  const browser = yield* Effect.acquireRelease(
    Effect.promise(() =>
      chromium.launch({ executablePath: chromiumPath, headless: true, args: ["--no-sandbox", "--disable-gpu"] })
    ),
    (browser) => Effect.promise(() => browser.close())
  )
  console.log(
    `GET / of the status page; FCP in headless Chromium ${browser.version()}, Slow 4G (latency ${slow4g.latency} ms, ${
      (slow4g.downloadThroughput * 8 / 1e6).toFixed(2)
    } Mbps down, ${(slow4g.uploadThroughput * 8 / 1e3).toFixed(0)} kbps up), 390 x 844 viewport`
  )
  for (const size of sizes) yield* measure(browser, size)
})

Effect.runPromise(Effect.scoped(main)).catch((error) => {
  console.error(error)
  process.exitCode = 1
})
