/**
 * The roles a process runs (ROLES): each is a Layer over the migrated database. Several
 * instances may run any role: the check scheduler keeps one active by an advisory lock,
 * ingest instances share one consumer group, maintenance transitions, outbox events and
 * pending response times (folded by each ingest instance) are claimed with SKIP LOCKED, and
 * uptime rollups and housekeeping deletes are idempotent.
 */
import { Effect, Layer, Option } from "effect"

import { InProcessProbeLive } from "../probes/ProbeAgent.js"
import { MetricsServer } from "./http/MetricsHttp.js"
import { PublicHttpServer } from "./http/PublicHttpServer.js"
import { HttpLive } from "./http/Server.js"
import { DatabaseGauges } from "./persistence/DatabaseGauges.js"
import { DispatcherGauges } from "./persistence/DispatcherGauges.js"
import { SnapshotGauges } from "./public/state/SnapshotGauges.js"
import * as InProcessJobTransport from "./queue/InProcessJobTransport.js"
import { StreamGauges } from "./queue/StreamGauges.js"
import { AppConfig, QueueConfig } from "./runtime/Config.js"
import { CheckScheduler } from "./workers/CheckScheduler.js"
import { Dispatcher } from "./workers/Dispatcher.js"
import { Housekeeping } from "./workers/Housekeeping.js"
import { IncidentAutomationClock } from "./workers/IncidentAutomationClock.js"
import { IngestConsumer } from "./workers/IngestConsumer.js"
import { MaintenanceClock } from "./workers/MaintenanceClock.js"
import { MirrorPublisher } from "./workers/MirrorPublisher.js"
import { ResponseTimeRollups } from "./workers/ResponseTimeRollups.js"
import { UptimeAggregator } from "./workers/UptimeAggregator.js"

/**
 * The transport the configuration asks for: Redis Streams with REDIS_URL (and REDIS_CA_FILE),
 * in-process without. The Redis transport (and ioredis) is loaded only when asked for: the
 * embedded default never holds it in memory (docs/benchmarks.md, "Third round").
 */
export const JobTransportLive = Layer.unwrap(
  Effect.flatMap(QueueConfig, (config) =>
    Option.match(config.redisUrl, {
      onNone: () => Effect.succeed(InProcessJobTransport.layer()),
      onSome: (url) =>
        Effect.promise(() => import("./queue/redis/RedisJobTransport.js")).pipe(
          Effect.map((RedisJobTransport) => RedisJobTransport.layerConfig({ url, prefix: config.streamPrefix }))
        )
    }))
)

/**
 * The HTTP server (API, public page, dashboard) on PORT and HOST, with the public fast path, and
 * the static mirror's publisher when one is configured (it reads the same snapshot and caches).
 */
export const ApiRole = Layer.unwrap(
  Effect.map(
    AppConfig,
    (config) => HttpLive.pipe(Layer.provide(PublicHttpServer({ port: config.port, host: config.host })))
  )
).pipe(Layer.merge(SnapshotGauges), Layer.merge(MirrorPublisher))

/**
 * Everything that runs on the clock: check jobs, maintenance windows, automatic incidents' waits,
 * uptime rollups, housekeeping. Needs a JobTransport.
 */
export const SchedulerRole = Layer.mergeAll(
  CheckScheduler,
  MaintenanceClock,
  IncidentAutomationClock,
  UptimeAggregator,
  Housekeeping
)

/** Reads the probes' results and heartbeats, and folds response times. Needs a JobTransport. */
export const IngestRole = Layer.merge(IngestConsumer, ResponseTimeRollups)

/** Sends webhooks and mail from the outbox. */
export const DispatcherRole = Layer.merge(Dispatcher, DispatcherGauges)

export const Roles = Layer.unwrap(
  Effect.gen(function*() {
    const { roles } = yield* AppConfig
    const { redisUrl } = yield* QueueConfig
    const runs = (role: (typeof roles)[number]) => roles.includes(role)
    // Without REDIS_URL the job queue lives in this process, so one probe of region `local` does too.
    const localProbe = Option.isNone(redisUrl) && (runs("scheduler") || runs("ingest"))
    return Layer.mergeAll(
      runs("api") ? ApiRole : Layer.empty,
      runs("dispatcher") ? DispatcherRole : Layer.empty,
      Layer.mergeAll(
        runs("scheduler") ? SchedulerRole : Layer.empty,
        runs("ingest") ? IngestRole : Layer.empty,
        localProbe ? InProcessProbeLive : Layer.empty,
        runs("scheduler") || runs("ingest") ? StreamGauges : Layer.empty
      ).pipe(Layer.provide(JobTransportLive)),
      // Any role's process serves its metrics on METRICS_PORT when that is set.
      MetricsServer,
      DatabaseGauges
    )
  })
)
