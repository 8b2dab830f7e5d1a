/**
 * Benchmark (`npm run bench:webhooks`): the dispatcher delivering to generic webhooks on
 * loopback receivers, in deliveries per second and commit-to-receipt latency, side by side
 * with a bare loop that POSTs the same signed bodies through the same WebhookSender (same
 * HTTP client, same concurrency) in the same run, and their ratio. Two scenarios: one event
 * fanned out to 200 webhooks (repeated BENCH_ROUNDS times), and a burst of 1,000 events
 * committed in one transaction to 5 webhooks. It measures and prints; it never fails on a number.
 *
 * Environment: TEST_DATABASE_URL (a PostgreSQL server; a fresh database is created and dropped).
 * Targets: >= 0.8 of the bare loop's throughput; p99 commit-to-receipt <= 250 ms for the fan-out.
 */
import { ConfigProvider, DateTime, Effect, Layer, Logger, LogLevel } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import type { IncidentEvent } from "../../src/domain/NotificationEvent.js"
import { Database } from "../../src/persistence/Database.js"
import { OutboxRepo } from "../../src/persistence/OutboxRepo.js"
import { Dispatcher } from "../../src/services/dispatcher/Dispatcher.js"
import { StateChanges } from "../../src/services/StateChanges.js"
import { Webhooks } from "../../src/services/Webhooks.js"
import { buildDeliveryRequest } from "../../src/services/webhooks/DeliveryRequest.js"
import { WebhookSender } from "../../src/services/webhooks/WebhookSender.js"
import { freshDatabaseUrl } from "../support/TestDatabase.js"

const rounds = Number(process.env.BENCH_ROUNDS ?? 5)
const publicUrl = "https://status.example.test"
/** The dispatcher's bound on requests in flight, used by the bare loop too. */
const concurrency = 64

/** Loopback receivers that note when each body arrived, keyed by `run`/event id in the body. */
const receipts = new Map<string, Array<number>>()
const startReceivers = (count: number) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      Promise.all(Array.from({ length: count }, () =>
        new Promise<http.Server>((resolve) => {
          const server = http.createServer((request, response) => {
            const chunks: Array<Buffer> = []
            request.on("data", (chunk: Buffer) => chunks.push(chunk))
            request.on("end", () => {
              const at = performance.timeOrigin + performance.now()
              const key = JSON.parse(Buffer.concat(chunks).toString("utf8")).data.title as string
              receipts.set(key, [...(receipts.get(key) ?? []), at])
              response.writeHead(204)
              response.end()
            })
          })
          server.listen(0, "127.0.0.1", () => resolve(server))
        })))
    ),
    (servers) => Effect.sync(() => servers.forEach((server) => (server.closeAllConnections(), server.close())))
  ).pipe(Effect.map((servers) => servers.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`)))

const now = () => performance.timeOrigin + performance.now()

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = values.toSorted((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN
}

const incidentData = (title: string) => ({
  id: `inc-${title}`,
  title,
  status: "investigating" as const,
  severity: "major" as const,
  componentIds: [],
  message: "Benchmark"
})

interface Measure {
  readonly deliveries: number
  readonly seconds: number
  readonly latencies: ReadonlyArray<number>
}

const report = (label: string, dispatcher: Measure, bare: Measure) => {
  const rate = (m: Measure) => m.deliveries / m.seconds
  const line = (name: string, m: Measure) =>
    `  ${name.padEnd(10)} ${String(m.deliveries).padStart(5)} deliveries in ${m.seconds.toFixed(2)} s = ${rate(m).toFixed(0).padStart(5)}/s, ` +
    `p50 ${percentile(m.latencies, 50).toFixed(1)} ms, p99 ${percentile(m.latencies, 99).toFixed(1)} ms`
  console.log(`${label}\n${line("dispatcher", dispatcher)}\n${line("bare loop", bare)}\n  ratio ${(rate(dispatcher) / rate(bare)).toFixed(2)}`)
}

const program = Effect.gen(function*() {
  const webhooks = yield* Webhooks
  const outbox = yield* OutboxRepo
  const changes = yield* StateChanges
  const sender = yield* WebhookSender
  const receivers = yield* startReceivers(10)
  const wait = (keys: ReadonlyArray<string>, perKey: number) =>
    Effect.promise(async () => {
      const deadline = Date.now() + 60_000
      while (!keys.every((key) => (receipts.get(key)?.length ?? 0) >= perKey) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 2))
      }
    })

  /** Commits `titles` as incident events in one transaction; returns the commit time. */
  const commitEvents = (titles: ReadonlyArray<string>) =>
    changes.commit(Effect.forEach(titles, (title) => outbox.append("incident.created", incidentData(title), []))).pipe(
      Effect.map(() => now())
    )

  /** The bare loop: the same signed requests through the same sender, `concurrency` at a time. */
  const bareLoop = (targets: ReadonlyArray<{ id: string; url: string; secret: string | null }>, titles: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const requests = titles.flatMap((title, i) =>
        targets.map((target) => {
          const event: IncidentEvent = {
            id: `bare-${i}`,
            event: "incident.created",
            occurredAt: DateTime.unsafeNow(),
            componentIds: [],
            data: incidentData(title)
          }
          return buildDeliveryRequest({
            target: { url: target.url, type: "generic", secret: target.secret },
            event,
            sender: { name: "Status", url: publicUrl },
            deliveryId: `${target.id}-${i}`,
            timestamp: Math.floor(Date.now() / 1000)
          })
        })
      )
      const started = now()
      yield* Effect.forEach(requests, sender.send, { concurrency, discard: true })
      return started
    })

  const measure = (titles: ReadonlyArray<string>, startedAt: ReadonlyMap<string, number>): Measure => {
    const latencies = titles.flatMap((title) => (receipts.get(title) ?? []).map((at) => at - startedAt.get(title)!))
    const first = Math.min(...startedAt.values())
    const last = Math.max(...titles.flatMap((title) => receipts.get(title) ?? []))
    // Counted as received: a scenario that ran into the 60 s wait reports what arrived.
    return { deliveries: latencies.length, seconds: (last - first) / 1000, latencies }
  }

  const run = (label: string, webhookCount: number, eventCount: number, repeat: number) =>
    Effect.gen(function*() {
      const created = yield* Effect.forEach(
        Array.from({ length: webhookCount }, (_, i) => i),
        (i) => webhooks.create({ name: `${label} ${i}`, url: `${receivers[i % receivers.length]}/${label}/${i}`, type: "generic" }),
        { concurrency: 10 }
      )
      const dispatcherRuns: Array<Measure> = []
      const bareRuns: Array<Measure> = []
      for (let round = 0; round < repeat; round++) {
        const titles = Array.from({ length: eventCount }, (_, i) => `${label}-d-${round}-${i}`)
        const committedAt = yield* commitEvents(titles)
        yield* wait(titles, webhookCount)
        dispatcherRuns.push(measure(titles, new Map(titles.map((title) => [title, committedAt]))))

        const bareTitles = Array.from({ length: eventCount }, (_, i) => `${label}-b-${round}-${i}`)
        const started = yield* bareLoop(created.map((hook) => ({ id: hook.id, url: hook.url, secret: hook.secret })), bareTitles)
        yield* wait(bareTitles, webhookCount)
        bareRuns.push(measure(bareTitles, new Map(bareTitles.map((title) => [title, started]))))
      }
      const combine = (runs: ReadonlyArray<Measure>): Measure => ({
        deliveries: runs.reduce((sum, m) => sum + m.deliveries, 0),
        seconds: runs.reduce((sum, m) => sum + m.seconds, 0),
        latencies: runs.flatMap((m) => m.latencies)
      })
      report(`${label}: ${eventCount} event(s) x ${webhookCount} generic webhooks, ${repeat} round(s)`, combine(dispatcherRuns), combine(bareRuns))
      // Out of the way of the next scenario.
      yield* Effect.forEach(created, (hook) => webhooks.remove(hook.id), { concurrency: 10, discard: true })
    })

  // Warm-up: connections, JIT, the dispatcher's first claims.
  yield* run("warmup", 20, 20, 1).pipe(Effect.provide(Logger.remove(Logger.defaultLogger)), Effect.zipRight(Effect.sync(() => console.log("(warm-up above)\n"))))
  yield* run("fanout", 200, 1, rounds)
  yield* run("burst", 5, 1000, 1)
})

const App = Layer.mergeAll(Dispatcher, Webhooks.Default, OutboxRepo.Default, StateChanges.Default, WebhookSender.Default).pipe(
  Layer.provideMerge(Database),
  Layer.provide(Layer.unwrapScoped(Effect.map(freshDatabaseUrl, ({ url }) =>
    Layer.setConfigProvider(ConfigProvider.fromJson({ DATABASE_URL: url, PUBLIC_URL: publicUrl }))))),
  Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))
)

Effect.runPromise(program.pipe(Effect.provide(App), Effect.scoped)).then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
