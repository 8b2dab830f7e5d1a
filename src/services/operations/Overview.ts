/**
 * The operators' overview (GET /api/v1/admin/overview, the dashboard's first screen): what is
 * wrong now, in one answer. Five capped statements run side by side (the probes': a few offline
 * probes per region, with the region's counts); the answer's time, which probes are offline and
 * the waiting mail's age come from the Effect Clock.
 */
import { Context, DateTime, Duration, Effect, Layer } from "effect"

import {
  mailBackingUpAfter,
  OverviewCounts,
  OverviewIncident,
  overviewLimits,
  OverviewMail,
  OverviewMonitor,
  OverviewProbe,
  OverviewProbeRegion,
  OverviewRegion,
  OverviewReport,
  OverviewWebhook
} from "../../domain/Overview.js"
import { offlineAfter } from "../../domain/ProbeHeartbeat.js"
import { isDegraded } from "../../domain/Quorum.js"
import {
  type MailBacklogRow,
  type OfflineProbeRow,
  OverviewRepo,
  type ProblemMonitorRow
} from "../../persistence/OverviewRepo.js"

/** The monitor's regions whose last check failed, or succeeded too slowly (`isDegraded`, as quorum judges it). */
const troubledRegions = (row: ProblemMonitorRow): ReadonlyArray<OverviewRegion> =>
  row.regionStates.flatMap((state) => {
    if (row.regions !== null && !row.regions.includes(state.region)) return []
    const slow = isDegraded({
      ...state,
      lastScheduledAt: DateTime.toEpochMillis(state.lastScheduledAt),
      lastCheckedAt: DateTime.toEpochMillis(state.lastCheckedAt),
      failingSince: state.failingSince === null ? null : DateTime.toEpochMillis(state.failingSince)
    }, row.degradedAboveMs)
    if (state.lastOk && !slow) return []
    return [
      new OverviewRegion({
        region: state.region,
        status: state.lastOk ? "slow" : "failing",
        consecutiveFailures: state.consecutiveFailures,
        failingSince: state.failingSince,
        lastCheckedAt: state.lastCheckedAt,
        lastStatusCode: state.lastStatusCode,
        lastDurationMs: state.lastDurationMs,
        lastError: state.lastError
      })
    ]
  })

/** Regions with at least one silent probe, in region order, from their offline probes seen last. */
const probeRegions = (rows: ReadonlyArray<OfflineProbeRow>): ReadonlyArray<OverviewProbeRegion> => {
  const byRegion = new Map<string, Array<OfflineProbeRow>>()
  for (const row of rows) {
    const list = byRegion.get(row.region) ?? []
    list.push(row)
    byRegion.set(row.region, list)
  }
  return [...byRegion].map(([region, list]) =>
    new OverviewProbeRegion({
      region,
      online: list[0]!.online,
      regionOffline: list[0]!.online === 0,
      offlineCount: list[0]!.offline,
      offline: list.map((row) =>
        new OverviewProbe({ name: row.name, version: row.version, lastSeenAt: row.lastSeenAt })
      )
    })
  )
}

const mailOf = (row: MailBacklogRow, now: DateTime.Utc) => {
  const oldestWaitingSeconds = row.oldestWaitingSince === null
    ? null
    : Math.max(0, Math.floor(Duration.toMillis(DateTime.distance(row.oldestWaitingSince, now)) / 1000))
  return new OverviewMail({
    waiting: row.waiting,
    retrying: row.retrying,
    oldestWaitingSince: row.oldestWaitingSince,
    oldestWaitingSeconds,
    lastError: row.lastError,
    backingUp: row.retrying > 0 ||
      (oldestWaitingSeconds !== null && oldestWaitingSeconds * 1000 >= Duration.toMillis(mailBackingUpAfter))
  })
}

export class Overview extends Context.Service<Overview>()("Overview", {
  make: Effect.gen(function*() {
    const repo = yield* OverviewRepo

    return {
      /** What is wrong now. */
      report: () =>
        Effect.gen(function*() {
          const now = yield* DateTime.now
          const offlineBefore = new Date(DateTime.toEpochMillis(now) - offlineAfter)
          const [monitors, incidents, probes, webhooks, mail] = yield* Effect.all([
            repo.problemMonitors(overviewLimits.monitors),
            repo.openIncidents(overviewLimits.incidents),
            repo.offlineProbes(offlineBefore, overviewLimits.probesPerRegion),
            repo.failingWebhooks(overviewLimits.webhooks),
            repo.mailBacklog()
          ], { concurrency: "unbounded" })
          const regions = probeRegions(probes)
          const monitorsDown = monitors[0]?.down ?? 0
          const counts = new OverviewCounts({
            monitorsDown,
            monitorsDegraded: (monitors[0]?.total ?? 0) - monitorsDown,
            incidentsOpen: incidents[0]?.total ?? 0,
            probesOffline: regions.reduce((sum, region) => sum + region.offlineCount, 0),
            regionsOffline: regions.filter((region) => region.regionOffline).length,
            webhooksFailing: webhooks[0]?.total ?? 0
          })
          const backlog = mailOf(mail, now)
          return new OverviewReport({
            generatedAt: now,
            allClear: monitors.length + incidents.length + regions.length + webhooks.length === 0 && !backlog.backingUp,
            counts,
            monitors: monitors.map((row) =>
              new OverviewMonitor({
                id: row.id,
                componentId: row.componentId,
                componentName: row.componentName,
                type: row.type,
                url: row.url,
                state: row.state,
                since: row.since,
                regions: troubledRegions(row)
              })
            ),
            incidents: incidents.map((row) =>
              new OverviewIncident({
                id: row.id,
                title: row.title,
                status: row.status,
                severity: row.severity,
                isPublic: row.isPublic,
                startedAt: row.startedAt,
                updatedAt: row.updatedAt
              })
            ),
            probes: regions,
            webhooks: webhooks.map((row) =>
              new OverviewWebhook({
                id: row.id,
                name: row.name,
                url: row.url,
                consecutiveFailures: row.consecutiveFailures,
                retrying: row.retrying,
                lastError: row.lastError,
                lastStatusCode: row.lastStatusCode,
                lastFailedAt: row.lastFailedAt
              })
            ),
            mail: backlog
          })
        }).pipe(Effect.withSpan("Overview.report"))
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(OverviewRepo.layer))
}
