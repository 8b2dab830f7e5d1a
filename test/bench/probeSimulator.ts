/**
 * A simulated probe for `bench:fleet-e2e` (BENCH_PROBES=simulated): one process per region that
 * takes its region's jobs as a real probe does, through the project's own Redis transport
 * (`RedisJobTransport`: the same consumer-group reads, the same job decoding, the same result
 * encoding and XADDs, signed in as the region's ACL user), and answers each job after a
 * realistic latency without running any check: no HTTP, no DNS, no sockets but Redis. So the
 * service behind it is measured alone, at rates real probes on this machine could not carry.
 *
 * Per job, as the probe (probes/ProbeAgent.ts): a job for another region is acknowledged; a job
 * more than an interval late is answered with a MissedCheck; any other gets a CheckResult after
 * the monitor's latency (5–80 ms by its id, ±20 % per run, held in a timer wheel, no CPU while
 * waiting), 1 % of monitors failing (HTTP 503, the probe's error text), with an http check's
 * timings; published, and only then acknowledged. Unlike the probe it publishes and
 * acknowledges the answers due in each 10 ms tick together (one pipeline, one XACK): the same
 * entries on the wire, fewer round trips, so the simulator stays cheap. It sends a heartbeat
 * every 10 s as the probe does (the first makes its region known).
 *
 * It also measures what only a probe sees: for every job, how long after its `scheduledAt` the
 * scheduler XADDed it (the entry id's time) and how long after that it was read. On SIGUSR2 it
 * prints one line, `probe-simulator stats {json}`, with the counts and percentiles since the
 * previous SIGUSR2, and starts over: the bench signals at the start and end of its window.
 *
 * Environment: REDIS_URL (the region's user), REDIS_STREAM_PREFIX, PROBE_REGION, PROBE_NAME,
 * SIM_CONCURRENCY (answers in flight at most, default 2000), SIM_LATENCY_MS ("5,80"),
 * SIM_FAILING_PERCENT (1). Run: `node --import tsx test/bench/probeSimulator.ts`.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Config, ConfigProvider, Duration, Effect, Layer } from "effect"

import { type CheckJob, CheckResult, isMissed, MissedCheck, type ProbeReport } from "../../src/domain/CheckJob.js"
import { heartbeatEvery, ProbeHeartbeat } from "../../src/domain/ProbeHeartbeat.js"
import { type Delivery, JobTransport } from "../../src/queue/JobTransport.js"
import * as RedisJobTransport from "../../src/queue/redis/RedisJobTransport.js"
import { environment, QueueConfig } from "../../src/runtime/Config.js"
import { teardown } from "../../src/runtime/Teardown.js"

const tickMs = 10
/** The timer wheel's span: longer than the longest latency. */
const wheelSlots = 1024
/** Jobs per read at most, as the probe caps its reads (it takes up to 100). */
const readBatch = 500

/** Latency bookkeeping in 1 ms buckets up to a minute and a bit: percentiles without keeping samples. */
const histogram = () => {
  const buckets = new Uint32Array(70_001)
  let n = 0
  let max = 0
  return {
    add: (ms: number) => {
      const at = Math.min(Math.max(0, Math.round(ms)), buckets.length - 1)
      buckets[at]!++
      n++
      if (ms > max) max = ms
    },
    summary: () => {
      const at = (q: number) => {
        const rank = Math.ceil(q * n)
        let seen = 0
        for (let i = 0; i < buckets.length; i++) {
          seen += buckets[i]!
          if (seen >= rank && rank > 0) return i
        }
        return NaN
      }
      return { n, p50: at(0.5), p99: at(0.99), max: Math.round(max) }
    }
  }
}

/** A small stable hash of a monitor id: its latency and whether it fails, the same every run. */
const hashOf = (text: string) => {
  let h = 2166136261
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619)
  return h >>> 0
}

const SimulatorConfig = Config.all({
  region: Config.String("PROBE_REGION"),
  name: Config.String("PROBE_NAME"),
  concurrency: Config.Int("SIM_CONCURRENCY").pipe(Config.withDefault(2000)),
  latency: Config.String("SIM_LATENCY_MS").pipe(Config.withDefault("5,80")),
  failingPercent: Config.Number("SIM_FAILING_PERCENT").pipe(Config.withDefault(1))
})

const simulate = Effect.gen(function*() {
  const { concurrency, failingPercent, latency, name, region } = yield* SimulatorConfig
  const [minMs, maxMs] = latency.split(",").map(Number) as [number, number]
  const transport = yield* JobTransport
  const consumer = yield* transport.jobConsumer(region, name)
  const startedAt = Date.now()

  interface Answer {
    readonly delivery: Delivery<CheckJob>
    readonly report: ProbeReport
  }
  const wheel: Array<Array<Answer>> = Array.from({ length: wheelSlots }, () => [])
  let inFlight = 0
  let wakeReader: (() => void) | undefined
  const stats = { jobs: 0, results: 0, failures: 0, missed: 0, otherRegion: 0, checksLastMinute: 0 }
  let published = histogram()
  let picked = histogram()
  let windowStart = Date.now()

  process.on("SIGUSR2", () => {
    const now = Date.now()
    console.log(
      `probe-simulator stats ${
        JSON.stringify({
          region,
          seconds: (now - windowStart) / 1000,
          ...stats,
          inFlight,
          scheduledToXadd: published.summary(),
          xaddToRead: picked.summary()
        })
      }`
    )
    Object.assign(stats, { jobs: 0, results: 0, failures: 0, missed: 0, otherRegion: 0 })
    published = histogram()
    picked = histogram()
    windowStart = now
  })

  /** What a real http check of this monitor would report, answered `durationMs` after `checkedAt`. */
  const answer = (job: CheckJob, checkedAt: number, durationMs: number): CheckResult => {
    const failing = hashOf(job.monitorId) % 10_000 < failingPercent * 100
    const connectMs = Math.round(durationMs * 0.2 * 100) / 100
    const tlsMs = Math.round(durationMs * 0.3 * 100) / 100
    return CheckResult.make({
      jobId: job.id,
      monitorId: job.monitorId,
      region,
      probe: name,
      scheduledAt: job.scheduledAt,
      checkedAt,
      ok: !failing,
      durationMs,
      timings: {
        dnsMs: Math.round(durationMs * 0.1 * 100) / 100,
        connectMs,
        tlsMs,
        firstByteMs: Math.round(durationMs * 0.35 * 100) / 100
      },
      statusCode: failing ? 503 : 200,
      error: failing ? `expected status ${job.expectedStatusCode}, got 503` : null,
      sslDaysLeft: null
    }, { disableChecks: true })
  }

  const take = (deliveries: ReadonlyArray<Delivery<CheckJob>>) =>
    Effect.gen(function*() {
      const now = Date.now()
      const unwanted: Array<string> = []
      for (const delivery of deliveries) {
        const job = delivery.value
        stats.jobs++
        const addedAt = Number(delivery.id.slice(0, delivery.id.indexOf("-")))
        published.add(addedAt - job.scheduledAt)
        picked.add(now - addedAt)
        if (!job.isFor(region)) {
          stats.otherRegion++
          unwanted.push(delivery.id)
          continue
        }
        let report: ProbeReport
        let afterMs: number
        if (job.isStaleAt(now)) {
          stats.missed++
          report = MissedCheck.of(job, region, name, now)
          afterMs = 0
        } else {
          const base = minMs + (hashOf(job.monitorId) % 1000) / 1000 * (maxMs - minMs)
          afterMs = Math.round(base * (0.8 + Math.random() * 0.4) * 100) / 100
          report = answer(job, now, afterMs)
        }
        inFlight++
        wheel[(Math.floor((now + afterMs) / tickMs) + 1) % wheelSlots]!.push({ delivery, report })
      }
      yield* consumer.ack(unwanted)
    })

  // The reader: takes jobs only while fewer than `concurrency` answers are pending, as a probe
  // reads only for free slots (the rest stay in the stream).
  const read = Effect.gen(function*() {
    const free = concurrency - inFlight
    if (free <= 0) {
      yield* Effect.callback<void>((resume) => {
        wakeReader = () => resume(Effect.void)
      })
      return
    }
    yield* take(yield* consumer.read(Math.min(free, readBatch), 1000))
  }).pipe(
    Effect.catch((error) =>
      Effect.logWarning("reading jobs failed; retrying").pipe(
        Effect.annotateLogs({ error: error.message }),
        Effect.andThen(Effect.sleep("1 second"))
      )
    ),
    Effect.forever
  )

  // The answerer: every tick, the answers due are published, then their jobs acknowledged.
  let nextSlot = Math.floor(Date.now() / tickMs)
  const answerDue = Effect.gen(function*() {
    const nowSlot = Math.floor(Date.now() / tickMs)
    const due: Array<Answer> = []
    for (; nextSlot <= nowSlot; nextSlot++) {
      const slot = wheel[nextSlot % wheelSlots]!
      if (slot.length > 0) {
        due.push(...slot)
        slot.length = 0
      }
    }
    if (due.length > 0) {
      yield* transport.publishResults(due.map((a) => a.report))
      yield* consumer.ack(due.map((a) => a.delivery.id))
      for (const { report } of due) {
        if (!isMissed(report)) {
          stats.results++
          stats.checksLastMinute++
          if (!report.ok) stats.failures++
        }
      }
      inFlight -= due.length
      const wake = wakeReader
      wakeReader = undefined
      wake?.()
    }
  }).pipe(
    Effect.catch((error) =>
      // Left pending: the service's claim of stale jobs is not the probe's, so a sibling would take them.
      Effect.logWarning("publishing results failed").pipe(Effect.annotateLogs({ error: error.message }))
    ),
    Effect.andThen(Effect.sleep(Duration.millis(tickMs))),
    Effect.forever
  )

  const heartbeat = Effect.suspend(() => {
    const beat = new ProbeHeartbeat({
      name,
      version: "probe-simulator",
      startedAt,
      sentAt: Date.now(),
      concurrency: Math.min(concurrency, 10_000),
      checksLastMinute: stats.checksLastMinute,
      lagMs: 0,
      inFlight
    })
    stats.checksLastMinute = 0
    return transport.publishHeartbeat(region, beat)
  }).pipe(
    Effect.catch((error) =>
      Effect.logWarning("sending the heartbeat failed").pipe(Effect.annotateLogs({ error: error.message }))
    )
  )
  yield* heartbeat
  yield* heartbeat.pipe(Effect.delay(Duration.millis(heartbeatEvery)), Effect.forever, Effect.forkScoped)
  yield* Effect.forkScoped(answerDue)
  yield* Effect.forkScoped(read)
  yield* Effect.logInfo("probe ready").pipe(Effect.annotateLogs({ region, name, simulated: true }))
})

const Transport = Layer.unwrap(Effect.gen(function*() {
  const config = yield* QueueConfig
  const url = yield* Effect.fromOption(config.redisUrl).pipe(Effect.orDie)
  // readyCheck off: a probe's Redis user may not run INFO.
  return RedisJobTransport.layerConfig({ url, prefix: config.streamPrefix, readyCheck: false })
}))

Layer.launch(Layer.effectDiscard(simulate).pipe(Layer.provide(Transport))).pipe(
  Effect.provideService(ConfigProvider.ConfigProvider, environment()),
  NodeRuntime.runMain({ teardown })
)
