/**
 * Takes the pushes of push monitors (docs/monitor-fleet.md, "Push monitors"): a push is the
 * run of one of the monitor's slots in the region `push`, stored by ingest as a probe's result
 * is, so state, quorum (one region), uptime and response times follow as for any monitor.
 *
 * Which slot: the one the push falls in, or the one before it while that one's grace runs (a
 * push up to `graceSeconds` late still counts for its slot) and it has no run yet. A slot has
 * one run: a second push in a slot that has one is acknowledged and not stored. PushDeadlines
 * records a failure for a slot whose grace ran out without a push.
 */
import { Clock, Context, Effect, Layer } from "effect"

import { CheckResult, errorMaxLength, jobIdOf, maxReportedMs, noTimings } from "../../domain/CheckJob.js"
import { NotFound, TooManyRequests } from "../../domain/Errors.js"
import { pushRegion } from "../../domain/Region.js"
import { slotAt } from "../../domain/Slots.js"
import { PushMonitorsRepo } from "../../persistence/PushMonitorsRepo.js"
import { PushIndex } from "./PushIndex.js"
import { pushTokenHash } from "./PushTokens.js"
import { ResultIngest } from "./ResultIngest.js"

/** The `probe` of a run a push made: no probe's name holds parentheses. */
export const pushProbe = "(push)"

/** Each token may push 10 times in a burst, then once per 6 s: a job of the shortest interval (10 s) never meets it. */
export const pushRateLimit = { burst: 10, refillMs: 6_000 } as const

/** What a push says, as Uptime Kuma's push URL takes it: `status` up (default) or down, `msg`, `ping` in ms. */
export interface Push {
  readonly status: "up" | "down"
  readonly msg: string | undefined
  readonly ping: number | undefined
}

/** The first slot a push monitor is judged on: the one in progress when it was created or last resumed. */
export const firstSlot = (monitor: { id: string; createdAt: number; resumedAt: number | null }, intervalMs: number) =>
  slotAt(monitor.id, intervalMs, Math.max(monitor.createdAt, monitor.resumedAt ?? 0))

// C0 controls (NUL included) and lone surrogates are not stored: a message is shown in the dashboard.
const unprintable = /[\u0000-\u001f\u007f]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/** The error a down push stores: fixed words, then the job's message when it gave one. */
export const downError = (msg: string | undefined) => {
  const text = msg?.replace(unprintable, " ").trim() ?? ""
  const error = text === "" ? "pushed down" : `pushed down: ${text}`
  return error.length <= errorMaxLength ? error : `${error.slice(0, errorMaxLength - 1)}…`
}

export class PushReceiver extends Context.Service<PushReceiver>()("PushReceiver", {
  make: Effect.gen(function*() {
    const index = yield* PushIndex
    const repo = yield* PushMonitorsRepo
    const ingest = yield* ResultIngest
    /** Per token hash: pushes left in the burst, and when that was counted. */
    const buckets = new Map<string, { left: number; at: number }>()

    /** Takes one push from the token's bucket; the seconds until the next one when it is empty. */
    const take = (hash: string, now: number): number | undefined => {
      const bucket = buckets.get(hash) ?? { left: pushRateLimit.burst, at: now }
      const refilled = Math.floor((now - bucket.at) / pushRateLimit.refillMs)
      const left = Math.min(pushRateLimit.burst, bucket.left + refilled)
      const at = left === pushRateLimit.burst ? now : bucket.at + refilled * pushRateLimit.refillMs
      if (left === 0) {
        buckets.set(hash, { left, at })
        return Math.ceil((at + pushRateLimit.refillMs - now) / 1000)
      }
      buckets.set(hash, { left: left - 1, at })
      return undefined
    }

    return {
      /**
       * Records a push. An unknown token, or a paused monitor's, is 404 before any query; a
       * token past its rate is 429.
       */
      receive: Effect.fn("PushReceiver.receive")(function*(token: string, push: Push) {
        const hash = pushTokenHash(token)
        const monitor = index.find(hash)
        if (monitor === undefined || monitor.paused) {
          return yield* new NotFound({ message: "No push monitor has this token, or it is paused" })
        }
        const now = yield* Clock.currentTimeMillis
        const retryAfterSeconds = take(hash, now)
        if (retryAfterSeconds !== undefined) {
          return yield* new TooManyRequests({
            message: `This push token is over its rate (${pushRateLimit.burst} at once, then one per ${
              pushRateLimit.refillMs / 1000
            } s)`,
            retryAfterSeconds
          })
        }
        const intervalMs = monitor.intervalSeconds * 1000
        const current = slotAt(monitor.id, intervalMs, now)
        const previous = current - intervalMs
        const late = now < current + monitor.graceSeconds * 1000 && previous >= firstSlot(monitor, intervalMs) &&
          !(yield* repo.hasRun(monitor.id, previous))
        const scheduledAt = late ? previous : current
        // One run per slot: a second push in it is acknowledged, and not offered to ingest as a duplicate.
        if (!late && (yield* repo.hasRun(monitor.id, current))) return
        yield* ingest.ingest([
          CheckResult.make({
            jobId: jobIdOf(monitor.id, scheduledAt),
            monitorId: monitor.id,
            region: pushRegion,
            probe: pushProbe,
            scheduledAt,
            checkedAt: now,
            ok: push.status === "up",
            durationMs: Math.min(push.ping ?? 0, maxReportedMs),
            timings: noTimings,
            statusCode: null,
            error: push.status === "up" ? null : downError(push.msg),
            sslDaysLeft: null
          })
        ])
      })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([PushIndex.layer, PushMonitorsRepo.layer, ResultIngest.layer])
  )
}
