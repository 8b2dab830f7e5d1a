import { Schema } from "effect"

import type { ComponentStatus } from "./Component.js"
import { Class } from "./Named.js"

export const UptimePeriod = Schema.Literals(["24h", "7d", "30d", "90d"])
export type UptimePeriod = typeof UptimePeriod.Type

/**
 * Query of GET /status/uptime; without `period`, 90 days. A plain struct, not a class: the
 * OpenAPI generator lists the query parameters of a struct only.
 */
export const UptimeQuery = Schema.Struct({
  period: Schema.optionalKey(UptimePeriod)
})

export const defaultUptimePeriod: UptimePeriod = "90d"

/** The days the status page's uptime bars cover (today included). */
export const uptimeBarDays = 90

export class UptimeRecord extends Class<UptimeRecord>("UptimeRecord")({
  componentId: Schema.String,
  componentName: Schema.String,
  /** Percent, 0–100, with three decimals. */
  uptimePercentage: Schema.Finite,
  period: UptimePeriod
}) {}

/**
 * How much of a moment counts as downtime (docs/monitor-fleet.md, "Uptime"): a major outage fully, a partial one at
 * 30 %, degraded service and maintenance not at all.
 */
export const downtimeWeight = (status: ComponentStatus): number =>
  status === "major_outage" ? 1 : status === "partial_outage" ? 0.3 : 0

/** The weight of `down` of `total` monitors being down: all of them is a major outage, some a partial one. */
export const monitorDowntimeWeight = (down: number, total: number): number => down <= 0 ? 0 : down >= total ? 1 : 0.3
