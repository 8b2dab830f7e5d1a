/**
 * What the push endpoint and the push deadlines read of push monitors (migration 0042): the
 * token index, rotation, and which of their slots have a run stored. Their runs are rows of
 * check_results in the region `push`, as a probe region's are.
 */
import { Context, Effect, Layer, Schema } from "effect"

import type { MonitorId } from "../domain/Monitor.js"
import { pushRegion } from "../domain/Region.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { rowsOf } from "./Rows.js"

/** A push monitor as the endpoint and the deadlines need it. Times are epoch ms. */
export class PushMonitorRow extends Schema.Class<PushMonitorRow>("PushMonitorRow")({
  id: Schema.String,
  pushTokenHash: Schema.String,
  intervalSeconds: Schema.Int,
  graceSeconds: Schema.Int,
  paused: Schema.Boolean,
  createdAt: Schema.Number,
  resumedAt: Schema.NullOr(Schema.Number),
  /** The latest slot with a stored run in the region `push`, or null. */
  lastRunAt: Schema.NullOr(Schema.Number)
}) {}

const epochMs = (column: string) => `floor(extract(epoch from ${column}) * 1000)::float8`

export class PushMonitorsRepo extends Context.Service<PushMonitorsRepo>()("PushMonitorsRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const monitors = rowsOf(PushMonitorRow)
    const slots = rowsOf(Schema.Struct({ scheduledAt: Schema.Number }))
    /** Every push monitor; `lastRun` says whether to look up its latest stored run (the deadlines need it, the token index not). */
    const pushMonitors = (lastRun: boolean) =>
      monitors.all(sql`
        select m.id, m.push_token_hash, m.interval_seconds, m.grace_seconds, m.paused,
               ${sql.literal(epochMs("m.created_at"))} as created_at,
               ${sql.literal(epochMs("m.resumed_at"))} as resumed_at,
               ${
        lastRun
          ? sql`(select ${sql.literal(epochMs("max(r.scheduled_at)"))} from check_results r
                 where r.monitor_id = m.id and r.region = ${pushRegion})`
          : sql.literal("null::float8")
      } as last_run_at
        from monitors m where m.type = 'push'`)
    return {
      /** Every push monitor, with its latest stored run: one statement, whatever their number. */
      all: () => pushMonitors(true),
      /** Every push monitor, `lastRunAt` null: what the token index holds, read on every change of monitors. */
      tokens: () => pushMonitors(false),
      /** Whether the run of `monitorId` due at `scheduledAt` is stored already. */
      hasRun: (monitorId: string, scheduledAt: number) =>
        Effect.map(
          slots.all(sql`
            select ${sql.literal(epochMs("scheduled_at"))} as scheduled_at from check_results
            where monitor_id = ${monitorId} and region = ${pushRegion} and scheduled_at = ${new Date(scheduledAt)}`),
          (rows) => rows.length > 0
        ),
      /** Gives a push monitor a new token's hash; false when there is no such push monitor. */
      rotate: (id: MonitorId, pushTokenHash: string) =>
        Effect.map(
          orUnavailable(sql`
            update monitors set push_token_hash = ${pushTokenHash}, updated_at = now()
            where id = ${id} and type = 'push' returning id`),
          (rows) => rows.length > 0
        )
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
