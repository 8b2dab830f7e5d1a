/**
 * The probe agent: reads the jobs of its region, runs their checks with at most `concurrency`
 * in flight, publishes each result and only then acknowledges the job (at least once: a probe
 * that dies before the ack leaves the job pending, and a sibling of its region claims it).
 *
 * - A job more than one interval late (no probe of the region took it in time: all dead, none,
 *   or all busy) is not run: the probe publishes a miss for it, like a result, then acknowledges
 *   it. After an outage the backlog does not storm the targets, and every run of the region
 *   still ends as a stored result or a stored miss.
 * - Deliveries being worked on are kept alive every second, so siblings claim only a dead
 *   probe's jobs. A sibling silent for `siblingSilentMs` (5 s: it has kept nothing alive, read
 *   nor claimed since) is dead: its jobs are claimed at once, not after `claimIdleMs`. A job
 *   left pending otherwise (its result could not be published) is claimed after `claimIdleMs`.
 * - Starting, it first takes back what is pending under its name (a previous run of the same
 *   PROBE_NAME died holding it), then reads new jobs.
 * - Shutting down (scope closed, e.g. SIGTERM) stops reading (the read in progress ends and its
 *   jobs run), lets the checks in flight finish and deliver their results, still keeping them
 *   alive, then leaves: what it still holds is handed back to its siblings, and holding
 *   nothing, it leaves the consumer group.
 * - Once per `statsEvery` (a minute) it logs checks done, failures, missed jobs and lag.
 * - It sends a heartbeat (name, version, start time, concurrency, checks in the last minute,
 *   lag, checks in flight) on its region's results stream when it starts, before taking jobs
 *   (the first one makes the region known to the scheduler), and every `heartbeatEvery` after,
 *   from a fiber of its own: a slow heartbeat never holds up a result.
 * - Jobs come only from its region's stream; one that does not decode (a forgery, or a field a
 *   monitor cannot have, such as a time-out over a minute) is acknowledged and logged, never run.
 */
import { Clock, Duration, Effect, FiberSet, Layer, Schedule } from "effect"

import type { CheckJob, ProbeReport } from "../src/domain/CheckJob.js"
import { type CheckResult, MissedCheck } from "../src/domain/CheckJob.js"
import { heartbeatEvery, ProbeHeartbeat, probeNamePattern } from "../src/domain/ProbeHeartbeat.js"
import { type Delivery, JobTransport } from "../src/queue/JobTransport.js"
import { QueueConfig } from "../src/runtime/Config.js"
import { outboundGuard } from "../src/runtime/OutboundGuard.js"
import { scrapeGauge } from "../src/runtime/ScrapeGauges.js"
import { TracingEnabled, withRemoteParent } from "../src/runtime/Telemetry.js"
import { type CheckOptions, runCheck } from "./checks/runCheck.js"
import { ProbeConfig, readExtraCa } from "./ProbeConfig.js"
import { countCheck, countRefused, setInFlight } from "./ProbeMetrics.js"
import { probeVersion } from "./version.js"

export interface ProbeAgentOptions {
  readonly region: string
  /** Consumer name: unique among the probes of the region. */
  readonly name: string
  readonly concurrency: number
  /** Jobs pending this long with a sibling, dead or alive, are claimed. */
  readonly claimIdleMs: number
  /**
   * Jobs of a sibling silent this long (it kept nothing alive, read nor claimed since) are
   * claimed at once (default `siblingSilentMs`). Not below `claimIdleMs` it changes nothing.
   */
  readonly siblingSilentMs?: number
  readonly checkOptions?: CheckOptions
  /** Longest wait of one read (default 2 s). */
  readonly readBlockMs?: number
  /** Period of the stats line (default 1 minute). */
  readonly statsEvery?: Duration.Input
  /** Period of the heartbeat (default `heartbeatEvery`, 10 s). */
  readonly heartbeatEvery?: Duration.Input
}

/** The longest probe name: it is the consumer's name and the registry's key. */
export const maxProbeNameLength = 128

/**
 * How long a sibling may be silent before its jobs are claimed: five of its keep-alives (one a
 * second) missed, well within the shortest interval (10 s), so a dead probe's jobs still run in
 * time; and long enough that a busy probe's pauses (a garbage collection, a slow Redis answer)
 * do not pass for death.
 */
export const siblingSilentMs = 5_000

/**
 * Checks done and their lag over the last minute, in one-second buckets: what a heartbeat says.
 * Times are the Clock's.
 */
const minuteWindow = () => {
  const seconds = 60
  const stamps = new Array<number>(seconds).fill(-1)
  const checks = new Array<number>(seconds).fill(0)
  const lags = new Array<number>(seconds).fill(0)
  return {
    record: (now: number, lagMs: number) => {
      const second = Math.floor(now / 1000)
      const slot = second % seconds
      if (stamps[slot] !== second) {
        stamps[slot] = second
        checks[slot] = 0
        lags[slot] = 0
      }
      checks[slot]!++
      lags[slot]! += lagMs
    },
    /** Checks and their average lag over the minute before `now`. */
    total: (now: number) => {
      const second = Math.floor(now / 1000)
      let count = 0
      let lag = 0
      for (let slot = 0; slot < seconds; slot++) {
        if (second - stamps[slot]! < seconds) {
          count += checks[slot]!
          lag += lags[slot]!
        }
      }
      return { checks: count, lagMs: count === 0 ? 0 : Math.round(lag / count) }
    }
  }
}

const deliveryRetry = Schedule.max([Schedule.exponential("200 millis"), Schedule.recurs(3)])

export const run = (options: ProbeAgentOptions) =>
  Effect.gen(function*() {
    if (!probeNamePattern.test(options.name)) {
      return yield* Effect.fail(
        new Error(`PROBE_NAME must be 1-${maxProbeNameLength} of A-Z, a-z, 0-9, '.', '_', '-'`)
      )
    }
    const transport = yield* JobTransport
    const tracing = yield* TracingEnabled
    const startedAt = yield* Clock.currentTimeMillis
    const consumer = yield* transport.jobConsumer(options.region, options.name)
    const silentMs = options.siblingSilentMs ?? siblingSilentMs
    // Claims and keep-alives come often enough for `silentMs`, and for `claimIdleMs` if shorter.
    const claimEveryMs = Math.min(Math.max(Math.min(options.claimIdleMs / 4, silentMs / 5), 100), 1_000)
    const keepAliveEveryMs = Math.max(Math.min(options.claimIdleMs / 3, silentMs / 5), 50)
    const batch = Math.min(options.concurrency, 100)
    // One slot per check that may run; reading takes slots first, so jobs are only taken from
    // the stream when they can start at once (the rest stay for siblings). A count and the one
    // loop waiting on it, not a Queue of tokens: the loop takes every free slot and gives back
    // those a read left unused, once a second when idle, which a Queue did a Chunk node a slot.
    let freeSlots = options.concurrency
    let wakeTaker: (() => void) | undefined
    const giveBack = (n: number) =>
      n > 0 ?
        Effect.sync(() => {
          freeSlots += n
          const wake = wakeTaker
          wakeTaker = undefined
          wake?.()
        }) :
        Effect.void
    const takeFree = () => {
      const taken = Math.min(freeSlots, batch)
      freeSlots -= taken
      return taken
    }
    /** Waits until a slot is free, then takes all free ones, up to `batch`. */
    const takeSlots = Effect.suspend(() =>
      freeSlots > 0 ? Effect.sync(takeFree) : Effect.callback<number>((resume) => {
        wakeTaker = () => resume(Effect.sync(takeFree))
        return Effect.sync(() => {
          wakeTaker = undefined
        })
      })
    )
    const inFlight = new Set<string>()
    yield* scrapeGauge(Effect.sync(() => setInFlight(inFlight.size)))
    const stats = { checks: 0, failures: 0, missed: 0, lagTotalMs: 0, lagMaxMs: 0 }
    const lastMinute = minuteWindow()
    const ack = (delivery: Delivery<CheckJob>) => consumer.ack([delivery.id]).pipe(Effect.retry(deliveryRetry))
    /** Publishes what became of the delivery's job, and only then acknowledges it. */
    const report = (delivery: Delivery<CheckJob>, value: ProbeReport) =>
      transport.publishResults([value]).pipe(Effect.retry(deliveryRetry), Effect.andThen(ack(delivery)))

    const process = (delivery: Delivery<CheckJob>) =>
      Effect.gen(function*() {
        const job = delivery.value
        const checkedAt = yield* Clock.currentTimeMillis
        if (!job.isFor(options.region)) {
          countRefused("other_region")
          return yield* ack(delivery)
        }
        if (job.isStaleAt(checkedAt)) {
          stats.missed++
          countRefused("late")
          return yield* report(delivery, MissedCheck.of(job, options.region, options.name, checkedAt))
        }
        const lag = Math.max(0, checkedAt - job.scheduledAt)
        stats.lagTotalMs += lag
        stats.lagMaxMs = Math.max(stats.lagMaxMs, lag)
        lastMinute.record(checkedAt, lag)
        // With tracing on, the check is a span of the job's trace, and its result carries it on to ingest.
        yield* withRemoteParent(tracing, "ProbeAgent.check", job.traceparent, () => ({
          "monitor.id": job.monitorId,
          "check.type": job.type,
          "check.job_id": job.id,
          "check.lag_ms": lag,
          "probe.region": options.region,
          "probe.name": options.name
        }), (traceparent) =>
          Effect.gen(function*() {
            const outcome = yield* runCheck(job, options.checkOptions)
            stats.checks++
            if (!outcome.ok) stats.failures++
            countCheck(job.type, outcome.ok, outcome.durationMs)
            if (traceparent !== undefined) {
              yield* Effect.annotateCurrentSpan({ "check.ok": outcome.ok, "check.duration_ms": outcome.durationMs })
            }
            // Built from a decoded job and a check outcome, so valid by construction: no schema pass
            // on the hot path. The fields in the schema's order, as a decoded result has them.
            const result: CheckResult = {
              jobId: job.id,
              monitorId: job.monitorId,
              region: options.region,
              probe: options.name,
              scheduledAt: job.scheduledAt,
              checkedAt,
              ok: outcome.ok,
              durationMs: outcome.durationMs,
              timings: outcome.timings,
              statusCode: outcome.statusCode,
              error: outcome.error,
              sslDaysLeft: outcome.sslDaysLeft,
              ...(traceparent === undefined ? {} : { traceparent })
            }
            yield* report(delivery, result)
          }))
      }).pipe(
        Effect.catch((error) =>
          Effect.logWarning("job left pending for a sibling to claim").pipe(
            Effect.annotateLogs({ job: delivery.value.id, error: error.message })
          )
        ),
        Effect.ensuring(Effect.suspend(() => {
          inFlight.delete(delivery.id)
          return giveBack(1)
        })),
        // Shutting down waits for checks in flight: each has its own time-out.
        Effect.uninterruptible
      )

    // Forked before the checks' FiberSet, so it ends after them: checks finishing on shutdown stay alive.
    // A sleep in a loop, not Effect.repeat with a Schedule: it runs every second, idle or not,
    // and the Schedule's bookkeeping made a fifth of an idle probe's garbage (docs/benchmarks.md).
    yield* Effect.suspend(() => inFlight.size === 0 ? Effect.void : consumer.keepAlive([...inFlight])).pipe(
      Effect.catch((error) =>
        Effect.logWarning("refreshing jobs in flight failed").pipe(Effect.annotateLogs({ error: error.message }))
      ),
      Effect.andThen(Effect.sleep(Duration.millis(keepAliveEveryMs))),
      Effect.forever,
      Effect.forkScoped
    )

    const running = yield* FiberSet.make<void, never>()
    const dispatch = (deliveries: ReadonlyArray<Delivery<CheckJob>>) =>
      Effect.gen(function*() {
        let unused = 0
        for (const delivery of deliveries) {
          // Already ours and running (claimed back after a slow keep-alive): nothing to do.
          if (inFlight.has(delivery.id)) {
            unused++
            continue
          }
          inFlight.add(delivery.id)
          yield* FiberSet.run(running, process(delivery))
        }
        yield* giveBack(unused)
      })

    /** Jobs of silent siblings, then jobs left pending `claimIdleMs`, at most `free` in all. */
    const claim = (free: number) =>
      Effect.gen(function*() {
        const fromSilent = silentMs < options.claimIdleMs ? yield* consumer.claimFromSilent(free, silentMs) : []
        const stale = fromSilent.length < free
          ? yield* consumer.claimStale(free - fromSilent.length, options.claimIdleMs)
          : []
        if (stale.length > 0) {
          yield* Effect.logInfo("claimed jobs a sibling left pending").pipe(
            Effect.annotateLogs({ count: stale.length })
          )
        }
        return [...fromSilent, ...stale]
      })

    // One loop takes the free slots, first for jobs dead siblings left pending (when a claim is
    // due), then for new jobs. A separate claim loop would find no slot free: a blocked read
    // holds them all. What a claim or a read returned is dispatched even if shutdown comes
    // meanwhile: those jobs are this probe's now.
    const readBlockMs = Math.min(options.readBlockMs ?? 2000, claimEveryMs)
    let nextClaimAt = 0
    const takeJobs = Effect.gen(function*() {
      let free = yield* takeSlots
      yield* Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          if (now >= nextClaimAt) {
            nextClaimAt = now + claimEveryMs
            const claimed = yield* restore(claim(free)).pipe(Effect.onError(() => giveBack(free)))
            free -= claimed.length
            if (claimed.length > 0) yield* dispatch(claimed)
            if (free === 0) return
          }
          const taken = free
          const deliveries = yield* restore(consumer.read(taken, readBlockMs)).pipe(
            Effect.onError(() => giveBack(taken))
          )
          yield* giveBack(taken - deliveries.length)
          if (deliveries.length > 0) yield* dispatch(deliveries)
        })
      )
    }).pipe(
      Effect.catch((error) =>
        Effect.logWarning("taking jobs failed; retrying").pipe(
          Effect.annotateLogs({ error: error.message }),
          Effect.andThen(Effect.sleep("1 second"))
        )
      ),
      Effect.forever
    )

    const statsLoop = Effect.suspend(() => {
      const line = {
        checks: stats.checks,
        failures: stats.failures,
        missed: stats.missed,
        lagAvgMs: stats.checks === 0 ? 0 : Math.round(stats.lagTotalMs / stats.checks),
        lagMaxMs: stats.lagMaxMs,
        inFlight: inFlight.size
      }
      Object.assign(stats, { checks: 0, failures: 0, missed: 0, lagTotalMs: 0, lagMaxMs: 0 })
      return Effect.logInfo("probe stats").pipe(Effect.annotateLogs(line))
    }).pipe(Effect.delay(options.statsEvery ?? "1 minute"), Effect.forever)

    const heartbeat = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const { checks, lagMs } = lastMinute.total(now)
      yield* transport.publishHeartbeat(
        options.region,
        new ProbeHeartbeat({
          name: options.name,
          version: probeVersion,
          startedAt,
          sentAt: now,
          concurrency: options.concurrency,
          checksLastMinute: checks,
          lagMs,
          inFlight: inFlight.size
        })
      )
    }).pipe(
      Effect.catch((error) =>
        Effect.logWarning("sending the heartbeat failed").pipe(Effect.annotateLogs({ error: error.message }))
      )
    )
    // The first before any job: it creates the region's results stream, which makes the region known.
    yield* heartbeat
    yield* heartbeat.pipe(
      Effect.delay(options.heartbeatEvery ?? Duration.millis(heartbeatEvery)),
      Effect.forever,
      Effect.forkScoped
    )
    yield* Effect.forkScoped(takeJobs)
    yield* Effect.forkScoped(statsLoop)
    yield* Effect.logInfo("probe ready").pipe(Effect.annotateLogs({ concurrency: options.concurrency }))
  }).pipe(
    Effect.annotateLogs({ region: options.region, probe: options.name }),
    Effect.withLogSpan("probe-agent")
  )

/** A probe agent for the life of the layer; needs a JobTransport. */
export const layer = (options: ProbeAgentOptions) => Layer.effectDiscard(run(options))

/** The agent configured from the environment (ProbeConfig, QueueConfig). */
export const layerConfig = (overrides: Partial<ProbeAgentOptions> = {}) =>
  Layer.unwrap(Effect.gen(function*() {
    const probe = yield* ProbeConfig
    const queue = yield* QueueConfig
    const extraCa = yield* readExtraCa(probe)
    return layer({
      region: probe.region,
      name: probe.name,
      concurrency: probe.concurrency,
      claimIdleMs: queue.claimIdleMs,
      checkOptions: {
        extraCa,
        sslWarningDays: probe.sslWarningDays,
        outbound: outboundGuard(probe.outboundDeny),
        dnsServers: probe.dnsServers
      },
      ...overrides
    })
  }))

/**
 * The one probe a service without REDIS_URL runs in its own process, on the in-process
 * transport (provide InProcessJobTransport / JobTransportLive): region `local`.
 */
export const InProcessProbeLive = layerConfig({ region: "local", name: "in-process" })
