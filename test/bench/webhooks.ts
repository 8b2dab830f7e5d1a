/**
 * Benchmark (`npm run bench:webhooks`): the dispatcher delivering to generic webhooks on
 * loopback receivers, in deliveries per second and commit-to-receipt latency, side by side
 * with a bare loop that POSTs the same signed bodies through the same HTTP client (WebhookSender's
 * `post`, which the dispatcher's attempts call, with the same concurrency) in the same run, and
 * their ratio; the bare loop runs twice:
 * with the bodies signed before its clock starts (the issue's anchor, which the target is
 * judged against) and signing each request in its timed window. Two scenarios: one event
 * fanned out to 200 webhooks (repeated BENCH_ROUNDS times), and a burst of 1,000 events
 * committed in one transaction to 5 webhooks. The receivers run in a child process
 * (webhookReceivers.ts). Each side's CPU time per delivery is printed too, its own and, on
 * Linux with the server on this machine, PostgreSQL's and the receivers', with the ratio that
 * CPU time alone predicts when the cores are all busy. It measures and prints; it never fails
 * on a number.
 *
 * Environment: TEST_DATABASE_URL (a PostgreSQL server; a fresh database is created and dropped).
 * Targets: >= 0.8 of the bare loop's throughput; p99 commit-to-receipt <= 250 ms for the fan-out.
 */
import { type ChildProcess, fork } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

import { ConfigProvider, DateTime, Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

import type { IncidentEvent } from "../../src/domain/NotificationEvent.js"
import { Database } from "../../src/persistence/Database.js"
import { OutboxRepo } from "../../src/persistence/OutboxRepo.js"
import { buildDeliveryRequest } from "../../src/services/notifications/webhooks/DeliveryRequest.js"
import { Webhooks } from "../../src/services/notifications/webhooks/Webhooks.js"
import { WebhookSender } from "../../src/services/notifications/webhooks/WebhookSender.js"
import { StateChanges } from "../../src/services/StateChanges.js"
import { Dispatcher } from "../../src/workers/Dispatcher.js"
import { minimumLogLevel, removeDefaultLogger } from "../support/Logs.js"
import { freshDatabaseUrl } from "../support/TestDatabase.js"

const rounds = Number(process.env.BENCH_ROUNDS ?? 5)
const publicUrl = "https://status.example.test"
/** The dispatcher's bound on requests in flight, used by the bare loop too. */
const concurrency = 64
/** The dispatcher's time-out for a receiver's answer. */
const timeout = Duration.seconds(10)

/**
 * Loopback receivers in a child process (`webhookReceivers.ts`): the dispatcher and the bare loop
 * send to the same receivers, and neither shares its event loop with them.
 */
interface Receivers {
  readonly pid: number | undefined
  readonly urls: ReadonlyArray<string>
  /** Waits until every key has `perKey` receipts (at most 60 s); their arrival times by key. */
  readonly receipts: (
    keys: ReadonlyArray<string>,
    perKey: number
  ) => Effect.Effect<ReadonlyMap<string, ReadonlyArray<number>>>
}
const startReceivers = (count: number) =>
  Effect.acquireRelease(
    Effect.callback<ChildProcess & { urls: ReadonlyArray<string> }>((resume) => {
      const child = fork(fileURLToPath(new URL("./webhookReceivers.ts", import.meta.url)), [], {
        execArgv: ["--import", "tsx"]
      })
      child.once("message", (message: { urls: ReadonlyArray<string> }) =>
        resume(Effect.succeed(Object.assign(child, { urls: message.urls }))))
      child.send({ type: "start", count })
    }),
    (child) =>
      Effect.sync(() => child.kill())
  ).pipe(Effect.map((child): Receivers => {
    let nextId = 0
    return {
      pid: child.pid,
      urls: child.urls,
      receipts: (keys, perKey) =>
        Effect.callback((resume) => {
          const id = nextId++
          const onMessage = (message: { type: string; id: number; receipts: Record<string, Array<number>> }) => {
            if (message.type !== "receipts" || message.id !== id) return
            child.off("message", onMessage)
            resume(Effect.succeed(new Map(Object.entries(message.receipts))))
          }
          child.on("message", onMessage)
          child.send({ type: "await", id, keys, perKey, timeoutMs: 60_000 })
        })
    }
  }))

const now = () => performance.timeOrigin + performance.now()

/** Clock ticks of a process (`withReaped`: and of its children that have ended), from Linux /proc; undefined elsewhere. */
const procTicks = (pid: number | string, withReaped = false) => {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8")
    // Fields after the command name: state, ppid, ... utime (14), stime, cutime, cstime (17).
    const fields = text.slice(text.lastIndexOf(") ") + 2).split(" ").map(Number)
    return { ppid: fields[1]!, ticks: fields[11]! + fields[12]! + (withReaped ? fields[13]! + fields[14]! : 0) }
  } catch {
    return undefined
  }
}
/** Linux counts CPU time in ticks of 10 ms. */
const tickMs = 10

/**
 * CPU time (ms) used: by this process, and by the two others on this machine that a delivery
 * costs, when they can be read: the PostgreSQL server (its postmaster, the children it has
 * reaped, the live ones: backends, WAL writer, autovacuum) and the receivers. On a machine with
 * few cores they all compete for the same ones, so the sums per delivery tell how close a
 * CPU-bound dispatcher can come to the anchor, which sends no query.
 */
interface CpuTimes {
  readonly self: number
  readonly postgres: number | undefined
  readonly receivers: number | undefined
}
const cpuClock = (receiversPid: number | undefined) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [backend] = yield* sql<{ pid: number }>`select pg_backend_pid() as pid`
    const postmaster = procTicks(backend!.pid)?.ppid
    const postgres = () => {
      let ticks = postmaster === undefined ? undefined : procTicks(postmaster, true)?.ticks
      if (ticks === undefined) return undefined
      for (const entry of readdirSync("/proc")) {
        const child = /^\d+$/.test(entry) ? procTicks(entry) : undefined
        if (child !== undefined && child.ppid === postmaster) ticks += child.ticks
      }
      return ticks * tickMs
    }
    const receivers = () => {
      const ticks = receiversPid === undefined ? undefined : procTicks(receiversPid)?.ticks
      return ticks === undefined ? undefined : ticks * tickMs
    }
    const minus = (
      a: number | undefined,
      b: number | undefined
    ) => (a === undefined || b === undefined ? undefined : a - b)
    /** Starts a measurement; its result gives the CPU times since. Reading /proc costs this process a few ms, so it is read outside its own window. */
    return () => {
      const others = { postgres: postgres(), receivers: receivers() }
      const self = process.cpuUsage()
      return (): CpuTimes => {
        const { system, user } = process.cpuUsage(self)
        return {
          self: (user + system) / 1000,
          postgres: minus(postgres(), others.postgres),
          receivers: minus(receivers(), others.receivers)
        }
      }
    }
  }).pipe(Effect.orDie)

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
  /** CPU time (user + system, ms) from the start until everything is recorded. */
  readonly cpu: CpuTimes
}

const sum = (values: ReadonlyArray<number | undefined>) =>
  values.some((value) => value === undefined) ? undefined : values.reduce((total: number, value) => total + value!, 0)
const perDelivery = (
  m: Measure,
  ms: number | undefined
) => (ms === undefined ? "?" : (1000 * ms / m.deliveries).toFixed(0))
/** All three processes' CPU time, when it could be read. */
const totalCpu = (m: Measure) => sum([m.cpu.self, m.cpu.postgres, m.cpu.receivers])

const report = (label: string, dispatcher: Measure, anchors: ReadonlyArray<readonly [string, Measure]>) => {
  const rate = (m: Measure) => m.deliveries / m.seconds
  // With every core busy, throughput goes as the inverse of the CPU time a delivery costs in all.
  const cpuBound = (m: Measure) => {
    const [anchor, own] = [totalCpu(m), totalCpu(dispatcher)]
    return anchor === undefined || own === undefined
      ? ""
      : ` (their CPU per delivery, all processes: ${
        ((anchor / m.deliveries) / (own / dispatcher.deliveries)).toFixed(2)
      })`
  }
  const line = (name: string, m: Measure) =>
    `  ${name.padEnd(14)} ${String(m.deliveries).padStart(5)} deliveries in ${m.seconds.toFixed(2)} s = ${
      rate(m).toFixed(0).padStart(5)
    }/s, ` +
    `p50 ${percentile(m.latencies, 50).toFixed(1)} ms, p99 ${percentile(m.latencies, 99).toFixed(1)} ms, ` +
    `CPU µs/delivery ${perDelivery(m, m.cpu.self)}, PostgreSQL ${perDelivery(m, m.cpu.postgres)}, receivers ${
      perDelivery(m, m.cpu.receivers)
    }`
  console.log([
    label,
    line("dispatcher", dispatcher),
    ...anchors.map(([name, m]) => line(name, m)),
    ...anchors.map(([name, m]) => `  ratio to ${name}: ${(rate(dispatcher) / rate(m)).toFixed(2)}${cpuBound(m)}`)
  ].join("\n"))
}

const program = Effect.gen(function*() {
  const webhooks = yield* Webhooks
  const outbox = yield* OutboxRepo
  const changes = yield* StateChanges
  const sender = yield* WebhookSender
  const sql = yield* SqlClient.SqlClient
  const receivers = yield* startReceivers(10)
  const startCpu = yield* cpuClock(receivers.pid)

  /** Waits until no delivery is pending any more (every attempt recorded). */
  const allRecorded = Effect.gen(function*() {
    while (
      (yield* sql<
        { pending: boolean }
      >`select exists (select from webhook_deliveries where status = 'pending') as pending`)[0]!.pending
    ) {
      yield* Effect.sleep("10 millis")
    }
  }).pipe(Effect.orDie)

  /** Commits `titles` as incident events in one transaction; returns the commit time. */
  const commitEvents = (titles: ReadonlyArray<string>) =>
    changes.commit(Effect.forEach(titles, (title) => outbox.append("incident.created", incidentData(title), []))).pipe(
      Effect.map(() => now())
    )

  /**
   * The bare loop: the same signed requests through the same client, `concurrency` at a time.
   * As the anchor: bodies rendered and signed before its clock starts (`signEach`
   * false); or each request built and signed when its turn comes, inside the timed window, as
   * any sender must (`signEach` true).
   */
  const bareLoop = (
    targets: ReadonlyArray<{ id: string; url: string; secret: string | null }>,
    titles: ReadonlyArray<string>,
    signEach: boolean
  ) =>
    Effect.gen(function*() {
      const build = ({ i, target, title }: { i: number; target: (typeof targets)[number]; title: string }) => {
        const event: IncidentEvent = {
          id: `bare-${i}`,
          event: "incident.created",
          occurredAt: DateTime.nowUnsafe(),
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
      }
      const deliveries = titles.flatMap((title, i) => targets.map((target) => ({ title, i, target })))
      const signed = signEach ? [] : deliveries.map(build)
      const started = now()
      // `concurrency` requests in flight, each next one started from the callback of the last, as the dispatcher's work pump does.
      yield* Effect.callback<void>((resume) => {
        let next = 0
        let finished = 0
        const launch = () => {
          const request = signEach ? build(deliveries[next]!) : signed[next]!
          next += 1
          sender.post(request, timeout, () => {
            finished += 1
            if (finished === deliveries.length) resume(Effect.void)
            else if (next < deliveries.length) launch()
          })
        }
        while (next < Math.min(concurrency, deliveries.length)) launch()
      })
      return started
    })

  const measure = (
    receipts: ReadonlyMap<string, ReadonlyArray<number>>,
    titles: ReadonlyArray<string>,
    startedAt: ReadonlyMap<string, number>,
    cpu: CpuTimes
  ): Measure => {
    const latencies = titles.flatMap((title) => (receipts.get(title) ?? []).map((at) => at - startedAt.get(title)!))
    const first = Math.min(...startedAt.values())
    const last = Math.max(...titles.flatMap((title) => receipts.get(title) ?? []))
    // Counted as received: a scenario that ran into the 60 s wait reports what arrived.
    return { deliveries: latencies.length, seconds: (last - first) / 1000, latencies, cpu }
  }

  const run = (label: string, webhookCount: number, eventCount: number, repeat: number) =>
    Effect.gen(function*() {
      const created = yield* Effect.forEach(
        Array.from({ length: webhookCount }, (_, i) => i),
        (i) =>
          webhooks.create({
            name: `${label} ${i}`,
            url: `${receivers.urls[i % receivers.urls.length]}/${label}/${i}`,
            type: "generic"
          }),
        { concurrency: 10 }
      )
      const dispatcherRuns: Array<Measure> = []
      const bareRuns = { "bare loop": [] as Array<Measure>, "bare + signing": [] as Array<Measure> }
      for (let round = 0; round < repeat; round++) {
        const titles = Array.from({ length: eventCount }, (_, i) => `${label}-d-${round}-${i}`)
        const cpu = startCpu()
        const committedAt = yield* commitEvents(titles)
        const received = yield* receivers.receipts(titles, webhookCount)
        // The dispatcher's work ends when the last outcome is recorded; the bare loop starts after.
        yield* allRecorded
        dispatcherRuns.push(measure(received, titles, new Map(titles.map((title) => [title, committedAt])), cpu()))

        for (const [name, signEach] of [["bare + signing", true], ["bare loop", false]] as const) {
          const bareTitles = Array.from({ length: eventCount }, (_, i) =>
            `${label}-${signEach ? "s" : "b"}-${round}-${i}`)
          const bareCpu = startCpu()
          const started = yield* bareLoop(
            created.map((hook) => ({ id: hook.id, url: hook.url, secret: hook.secret })),
            bareTitles,
            signEach
          )
          const bareReceived = yield* receivers.receipts(bareTitles, webhookCount)
          bareRuns[name].push(
            measure(bareReceived, bareTitles, new Map(bareTitles.map((title) => [title, started])), bareCpu())
          )
        }
      }
      const combine = (runs: ReadonlyArray<Measure>): Measure => ({
        deliveries: runs.reduce((sum, m) =>
          sum + m.deliveries, 0),
        seconds: runs.reduce((sum, m) => sum + m.seconds, 0),
        latencies: runs.flatMap((m) => m.latencies),
        cpu: {
          self: sum(runs.map((m) => m.cpu.self))!,
          postgres: sum(runs.map((m) => m.cpu.postgres)),
          receivers: sum(runs.map((m) => m.cpu.receivers))
        }
      })
      report(
        `${label}: ${eventCount} event(s) x ${webhookCount} generic webhooks, ${repeat} round(s)`,
        combine(dispatcherRuns),
        Object.entries(bareRuns).map(([name, runs]) => [name, combine(runs)] as const)
      )
      // Out of the way of the next scenario.
      yield* Effect.forEach(created, (hook) => webhooks.remove(hook.id), { concurrency: 10, discard: true })
    })

  // Warm-up: connections, JIT, the dispatcher's first claims.
  yield* run("warmup", 20, 20, 1).pipe(
    Effect.provide(removeDefaultLogger),
    Effect.andThen(Effect.sync(() => console.log("(warm-up above)\n")))
  )
  yield* run("fanout", 200, 1, rounds)
  yield* run("burst", 5, 1000, 1)
})

const App = Layer.mergeAll(
  Dispatcher,
  Webhooks.layer,
  OutboxRepo.layer,
  StateChanges.layer,
  WebhookSender.layer
).pipe(
  Layer.provideMerge(Database),
  Layer.provide(
    Layer.unwrap(
      Effect.map(
        freshDatabaseUrl,
        ({ url }) => ConfigProvider.layer(ConfigProvider.fromUnknown({ DATABASE_URL: url, PUBLIC_URL: publicUrl }))
      )
    )
  ),
  Layer.provideMerge(minimumLogLevel("Warn"))
)

Effect.runPromise(program.pipe(Effect.provide(App), Effect.scoped)).then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
