/**
 * Benchmark of admin writes under public reads: incidents created, updated and resolved and
 * component statuses changed at BENCH_RATE writes/s (25) for BENCH_SECONDS (20) through the real
 * HTTP stack, while autocannon (in its own process, BENCH_CONNECTIONS 16, at most BENCH_READ_RATE
 * 1,000 requests/s in all; 0: as many as it can) reads the public summary. A write answers
 * once this instance's public snapshot shows it (read-your-writes), and after each answer a GET
 * of the summary checks that it does. Writes start on schedule whether or not earlier ones have
 * answered (an open loop), so a slow write cannot hide the waiting of those behind it. It
 * measures and prints; it asserts nothing.
 *
 * In the same run and under the same reads, each at the same rate:
 * - the anchor: the same mix of rows written by bare SQL (a transaction of plain INSERTs and
 *   UPDATEs with the outbox row) through the service's own pool;
 * - an admin read (GET of an incident): what any admin request costs before its write (the HTTP
 *   stack, the API key's check and one query).
 *
 * On PostgreSQL (a fresh database on TEST_DATABASE_URL's server, dropped afterwards), then with a
 * second instance on the same database for BENCH_TWO_INSTANCES_SECONDS (10; 0 skips it), writes
 * alternating between the two, and for BENCH_EMBEDDED_SECONDS (10; 0 skips it) on the embedded
 * default (PGlite in a temporary DATA_DIR).
 *
 *   npm run bench:writes   (BENCH_RATE, BENCH_SECONDS, BENCH_ROUNDS, BENCH_CONNECTIONS, BENCH_READ_RATE,
 *                           BENCH_TWO_INSTANCES_SECONDS, BENCH_EMBEDDED_SECONDS override)
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"

import { PgClient } from "@effect/sql-pg"
import { ConfigProvider, Context, Effect, Fiber, Layer } from "effect"
import { HttpServer } from "effect/http"

import { CreateApiKey } from "../../src/domain/Auth.js"
import { PublicHttpServer } from "../../src/http/PublicHttpServer.js"
import { HttpLive } from "../../src/http/Server.js"
import { Database } from "../../src/persistence/Database.js"
import { ApiKeys } from "../../src/services/auth/ApiKeys.js"
import { minimumLogLevel } from "../support/Logs.js"
import { freshDatabaseUrl } from "../support/TestDatabase.js"
import { autocannon, type AutocannonResult, seedHistory } from "./Autocannon.js"

const rate = Number(process.env.BENCH_RATE ?? 25)
const seconds = Number(process.env.BENCH_SECONDS ?? 20)
const rounds = Number(process.env.BENCH_ROUNDS ?? 1)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16)
/** Requests per second autocannon makes at most in all (a busy page on a small machine); 0: as many as it can. */
const readRate = Number(process.env.BENCH_READ_RATE ?? 1000)
const embeddedSeconds = Number(process.env.BENCH_EMBEDDED_SECONDS ?? 10)
const twoInstancesSeconds = Number(process.env.BENCH_TWO_INSTANCES_SECONDS ?? 10)

type Kind = "incident create" | "incident update" | "incident resolve" | "component status" | "admin read"
/** One cycle of the mix: a create and a resolve keep the number of open incidents steady. */
const cycle: ReadonlyArray<Kind> = [
  "incident create",
  "component status",
  "incident update",
  "component status",
  "incident resolve"
]

interface Sample {
  readonly kind: Kind
  readonly ms: number
}

/** A request of the mix and when its answer was in (performance.now()); checks after that are not timed. */
interface Timed {
  readonly kind: Kind
  readonly answered: number
}

/** Autocannon on the summary, at most BENCH_READ_RATE requests/s. */
const readLoad = (url: string, duration: number) => autocannon(url, { connections, seconds: duration, rate: readRate })

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = values.toSorted((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Starts `write(n)` every 1/rate seconds for `duration` seconds, each on time whether or not the earlier
 * ones have answered, and times each from its start to its answer.
 */
const openLoop = async (duration: number, write: (n: number) => Promise<Timed>) => {
  const count = Math.round(rate * duration)
  const start = performance.now()
  const pending: Array<Promise<Sample>> = []
  for (let n = 0; n < count; n++) {
    const wait = start + (n * 1000) / rate - performance.now()
    if (wait > 0) await sleep(wait)
    const started = performance.now()
    pending.push(write(n).then(({ answered, kind }) => ({ kind, ms: answered - started })))
  }
  return Promise.all(pending)
}

/**
 * The service's side: the admin API, then a read of the summary that must show the change.
 * `started` holds, per component or incident, the last write started on it (shared by the
 * writers of both instances): a check whose item a later write changed meanwhile is not judged.
 */
const serviceWriter = (
  base: string,
  apiKey: string,
  components: ReadonlyArray<string>,
  seeded: ReadonlyArray<string>,
  started: Map<string, number>
) => {
  const open: Array<string> = []
  let misses = 0
  let checked = 0
  let overtaken = 0
  const send = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
      body: JSON.stringify(body)
    })
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
    return (await response.json()) as { id: string }
  }
  interface Summary {
    readonly components: ReadonlyArray<{ id: string; status: string }>
    readonly activeIncidents: ReadonlyArray<{ id: string; message: string }>
  }
  /** Read-your-writes, judged after the timed window: this instance's summary shows write `n` to `item`. */
  const shows = async (item: string, n: number, check: (summary: Summary) => boolean) => {
    const summary = (await (await fetch(`${base}/api/v1/status`)).json()) as Summary
    if (started.get(item) !== n) overtaken++
    else if (checked++, !check(summary)) misses++
  }
  const write = async (n: number): Promise<Timed> => {
    const kind = cycle[n % cycle.length]!
    const marker = `Write ${n}`
    if (kind === "incident create") {
      const { id } = await send("POST", "/api/v1/admin/incidents", {
        title: `Bench incident ${n}`,
        message: marker,
        severity: "minor",
        componentIds: [components[n % components.length]]
      })
      const answered = performance.now()
      started.set(id, n)
      await shows(id, n, (summary) => summary.activeIncidents.some((incident) => incident.id === id))
      // Resolved only once checked: the check must not see a later write's state.
      open.push(id)
      return { kind, answered }
    }
    if (kind === "component status") {
      // Each component comes round again only after every other: no two writes race on one.
      const id = components[Math.floor(n / 2) % components.length]!
      const status = Math.floor(n / 2 / components.length) % 2 === 0 ? "degraded" : "operational"
      started.set(id, n)
      await send("PATCH", `/api/v1/admin/components/${id}/status`, { status })
      const answered = performance.now()
      await shows(id, n, (summary) => summary.components.find((component) => component.id === id)?.status === status)
      return { kind, answered }
    }
    const id = kind === "incident resolve" ? open.shift() : undefined
    // An update; a resolve while none of the incidents created is open (and checked) yet updates
    // another seeded incident than the update before it.
    if (kind === "incident update" || id === undefined) {
      const updated = seeded[(Math.floor(n / cycle.length) + (kind === "incident update" ? 0 : 2)) % seeded.length]!
      started.set(updated, n)
      await send("POST", `/api/v1/admin/incidents/${updated}/updates`, { status: "identified", message: marker })
      const answered = performance.now()
      await shows(
        updated,
        n,
        (summary) => summary.activeIncidents.find((incident) => incident.id === updated)?.message === marker
      )
      return { kind: "incident update", answered }
    }
    started.set(id, n)
    await send("PATCH", `/api/v1/admin/incidents/${id}/resolve`, { message: marker })
    const answered = performance.now()
    await shows(id, n, (summary) => !summary.activeIncidents.some((incident) => incident.id === id))
    return { kind, answered }
  }
  return { write, verdict: () => ({ checked, misses, overtaken }) }
}

/** The anchor: the same rows written by bare SQL through the service's pool, each write a transaction. */
const anchorWriter = (sql: PgClient.PgClient, components: ReadonlyArray<string>, seeded: ReadonlyArray<string>) => {
  const open: Array<string> = []
  const outbox = (event: string, componentIds: ReadonlyArray<string>) =>
    sql`insert into outbox_events (event, payload, component_ids)
        values (${event}, ${JSON.stringify({ bench: true })}::jsonb, ${[...componentIds]}::text[])`
  const timelineEntry = (id: string, status: string, message: string) =>
    Effect.andThen(
      sql`insert into incident_updates (incident_id, status, message) values (${id}, ${status}, ${message})`,
      sql`update incidents set status = ${status}, updated_at = now(),
            resolved_at = case when ${status} = 'resolved' then now() else resolved_at end
          where id = ${id}`
    )
  const statement = (n: number) => {
    const kind = cycle[n % cycle.length]!
    const marker = `Anchor write ${n}`
    if (kind === "incident create") {
      const component = components[n % components.length]!
      return Effect.gen(function*() {
        const [row] = yield* sql<{ id: string }>`
          insert into incidents (title, status, severity, chosen_public, published, source)
          values (${`Anchor incident ${n}`}, 'investigating', 'minor', true, true, 'manual') returning id`
        yield* sql`insert into incident_components (incident_id, component_id) values (${row!.id}, ${component})`
        yield* sql`insert into incident_updates (incident_id, status, message)
                   values (${row!.id}, 'investigating', ${marker})`
        yield* outbox("incident.created", [component])
        open.push(row!.id)
      })
    }
    if (kind === "component status") {
      const id = components[Math.floor(n / 2) % components.length]!
      const status = Math.floor(n / 2 / components.length) % 2 === 0 ? "degraded" : "operational"
      return Effect.andThen(
        sql`update components set status = ${status}, updated_at = now() where id = ${id}`,
        outbox("component.status_changed", [id])
      )
    }
    if (kind === "incident update") {
      const id = seeded[Math.floor(n / cycle.length) % seeded.length]!
      return Effect.andThen(timelineEntry(id, "identified", marker), outbox("incident.updated", []))
    }
    const id = open.shift()
    return id === undefined ? Effect.void : Effect.andThen(
      timelineEntry(id, "resolved", marker),
      outbox("incident.resolved", [])
    )
  }
  return (n: number) =>
    Effect.runPromise(sql.withTransaction(statement(n)).pipe(Effect.orDie)).then((): Timed => ({
      kind: cycle[n % cycle.length]!,
      answered: performance.now()
    }))
}

/**
 * What any admin request costs before a write: the HTTP stack, the API key's check and one
 * read (GET of an incident), at the same rate.
 */
const adminReader = (base: string, apiKey: string, incidents: ReadonlyArray<string>) => async (n: number) => {
  const response = await fetch(`${base}/api/v1/admin/incidents/${incidents[n % incidents.length]}`, {
    headers: { authorization: `Bearer ${apiKey}` }
  })
  if (!response.ok) throw new Error(`GET incident: ${response.status}`)
  await response.arrayBuffer()
  return { kind: "admin read", answered: performance.now() } satisfies Timed
}

// One statement per query (the extended protocol): the history's statements in one transaction,
// as node-postgres ran the text in one simple query.
const fixed = (n: number, width = 8) => (n < 10 ? n.toFixed(1) : n.toFixed(0)).padStart(width)

const printSamples = (label: string, samples: ReadonlyArray<Sample>) => {
  const ms = samples.map((sample) => sample.ms)
  console.log(
    `${label.padEnd(22)}${String(samples.length).padStart(7)}${fixed(percentile(ms, 0.5))}${
      fixed(percentile(ms, 0.99))
    }${fixed(Math.max(...ms))}`
  )
}

/** An instance of the service (HTTP stack, its own pool, snapshot and StateChanges) on `config`. */
const instance = (config: Layer.Layer<never>) =>
  Effect.gen(function*() {
    const service = yield* Layer.build(HttpLive.pipe(
      Layer.provideMerge(PublicHttpServer({ port: 0, host: "127.0.0.1" })),
      Layer.provideMerge(Database),
      Layer.provide(config),
      Layer.provideMerge(minimumLogLevel("Warn"))
    ))
    const address = Context.get(service, HttpServer.HttpServer).address
    if (address._tag === "UnixPathAddress") return yield* Effect.die(new Error("expected a TCP address"))
    return { base: `http://127.0.0.1:${address.port}`, service }
  })

const printVerdict = (
  verdicts: ReadonlyArray<{ readonly checked: number; readonly misses: number; readonly overtaken: number }>,
  where: string
) => {
  const sum = (key: "checked" | "misses" | "overtaken") => verdicts.reduce((total, v) => total + v[key], 0)
  console.log(
    `read-your-writes: ${sum("checked")} writes checked, ${sum("misses")} not shown by the next read${where}` +
      ` (${sum("overtaken")} more not judged: a later write changed the same item before that read)`
  )
}

const printReads = (reads: ReadonlyArray<AutocannonResult>) =>
  console.log(
    `reads: ${
      reads.map((r) =>
        `${r.requestsPerSecond.toFixed(0)} req/s p99 ${r.p99} ms${r.non2xx ? ` (${r.non2xx} non-2xx)` : ""}`
      )
        .join("; ")
    }`
  )

/**
 * The service on `config` (a database), seeded with 20 components, 5 open incidents, 3 windows
 * and 500 resolved incidents; then alternating rounds of the anchor and the service, each under
 * the same reads.
 */
const run = (label: string, config: Layer.Layer<never>, duration: number, secondInstance: number) =>
  Effect.gen(function*() {
    const { base, service } = yield* instance(config)
    const sql = Context.get(service, PgClient.PgClient)
    const apiKey = (yield* Effect.flatMap(ApiKeys, (keys) =>
      keys.create(new CreateApiKey({ name: "bench" }), { userId: null, role: "owner" })).pipe(
        Effect.provide(ApiKeys.layer),
        Effect.provide(service)
      )).key

    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
        body: JSON.stringify(body)
      })
      if (response.status !== 201) {
        throw new Error(`POST ${path}: ${response.status} ${await response.text()}`)
      }
      return ((await response.json()) as { id: string }).id
    }
    const { components, incidents } = yield* Effect.promise(async () => {
      const components: Array<string> = []
      for (let i = 0; i < 20; i++) {
        components.push(
          await post("/api/v1/admin/components", { name: `Component ${i + 1}`, description: "A service" })
        )
      }
      const incidents: Array<string> = []
      for (let i = 0; i < 5; i++) {
        incidents.push(
          await post("/api/v1/admin/incidents", {
            title: `Incident ${i + 1}`,
            message: "We are investigating elevated error rates.",
            componentIds: [components[i], components[i + 5]]
          })
        )
      }
      const day = 24 * 3600 * 1000
      for (let i = 0; i < 3; i++) {
        await post("/api/v1/admin/maintenance", {
          title: `Maintenance ${i + 1}`,
          scheduledStart: new Date(Date.now() + (i + 1) * day).toISOString(),
          scheduledEnd: new Date(Date.now() + (i + 1) * day + 3600 * 1000).toISOString(),
          componentIds: [components[10 + i]]
        })
      }
      return { components, incidents }
    })
    yield* Effect.orDie(seedHistory(sql))
    // Written behind the service's back: deleting a component touches everything, so the
    // snapshot reads the history.
    yield* Effect.promise(async () => {
      const spare = await post("/api/v1/admin/components", { name: "Spare" })
      const response = await fetch(`${base}/api/v1/admin/components/${spare}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${apiKey}` }
      })
      if (response.status !== 204) {
        throw new Error(`DELETE component: ${response.status}`)
      }
    })

    const service_ = serviceWriter(base, apiKey, components, incidents, new Map())
    const sides = {
      anchor: anchorWriter(sql, components, incidents),
      adminRead: adminReader(base, apiKey, incidents),
      service: service_.write
    }
    const totals = { anchor: [] as Array<Sample>, adminRead: [] as Array<Sample>, service: [] as Array<Sample> }
    const reads: Array<AutocannonResult> = []
    const readers = `${connections} connections${readRate > 0 ? `, at most ${readRate} req/s` : ""}`
    console.log(
      `\n${label}: ${rate} requests/s for ${duration} s per side, the summary read by autocannon (${readers})`
    )
    for (let round = 1; round <= rounds; round++) {
      // Rotate which goes first, so none always runs on a warmer machine.
      const order = (["anchor", "service", "adminRead"] as const).map((_, i, all) =>
        all[(i + round - 1) % all.length]!
      )
      for (const side of order) {
        const load = yield* Effect.forkChild(readLoad(`${base}/api/v1/status`, duration + 1))
        yield* Effect.promise(() =>
          sleep(500)
        )
        const samples = yield* Effect.promise(() => openLoop(duration, sides[side]))
        totals[side].push(...samples)
        reads.push(yield* Effect.orDie(Fiber.await(load).pipe(Effect.flatten)))
      }
    }
    console.log("                       count   p50 ms  p99 ms  max ms")
    printSamples("anchor (bare SQL)", totals.anchor)
    printSamples("admin read (HTTP)", totals.adminRead)
    printSamples("service write (HTTP)", totals.service)
    for (const kind of new Set(cycle)) {
      printSamples(`  ${kind}`, totals.service.filter((sample) => sample.kind === kind))
    }
    const p50 = (samples: ReadonlyArray<Sample>) => percentile(samples.map((sample) => sample.ms), 0.5)
    console.log(`ratio  service / anchor p50: ${(p50(totals.service) / p50(totals.anchor)).toFixed(1)}`)
    printVerdict([service_.verdict()], "")
    printReads(reads)
    if (secondInstance <= 0) return

    // A second instance on the same database: the writes alternate between the two, each
    // checked on the instance that took it, and each instance refreshes for the other's
    // changes too (LISTEN/NOTIFY); the summary of both is read.
    const other = yield* instance(config)
    const started = new Map<string, number>()
    const writers = [
      serviceWriter(base, apiKey, components, incidents, started),
      serviceWriter(other.base, apiKey, components, incidents, started)
    ]
    const loads = yield* Effect.forEach(
      [base, other.base],
      (at) => Effect.forkChild(readLoad(`${at}/api/v1/status`, secondInstance + 1))
    )
    yield* Effect.promise(() => sleep(500))
    const samples = yield* Effect.promise(() => openLoop(secondInstance, (n) => writers[n % 2]!.write(n)))
    const bothReads = yield* Effect.forEach(loads, (load) => Effect.orDie(Fiber.await(load).pipe(Effect.flatten)))
    console.log(`\n${label}, two instances: ${rate} writes/s for ${secondInstance} s, alternating between them`)
    console.log("                       count   p50 ms  p99 ms  max ms")
    printSamples("service write (HTTP)", samples)
    printVerdict(writers.map((writer) => writer.verdict()), " on the instance that took it")
    printReads(bothReads)
  })

const postgres = Effect.flatMap(freshDatabaseUrl, ({ url }) =>
  run(
    "PostgreSQL",
    ConfigProvider.layer(ConfigProvider.fromUnknown({ DATABASE_URL: url })),
    seconds,
    twoInstancesSeconds
  ))

const embedded = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "sps-bench-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
).pipe(
  Effect.flatMap((dir) =>
    run("Embedded (PGlite)", ConfigProvider.layer(ConfigProvider.fromUnknown({ DATA_DIR: dir })), embeddedSeconds, 0)
  )
)

Effect.runPromise(Effect.scoped(Effect.andThen(
  Effect.scoped(postgres),
  embeddedSeconds > 0 ? Effect.scoped(embedded) : Effect.void
))).catch((error) => {
  console.error(error)
  process.exitCode = 1
})
