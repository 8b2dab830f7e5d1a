/**
 * A probe as the registry knows it (GET /api/v1/admin/probes): what its last heartbeat said, when
 * the server last heard from it, and whether that is recent enough to count as online.
 */
import { Duration, Schema } from "effect"

import { Class } from "./Named.js"

export class ProbeView extends Class<ProbeView>("ProbeView")({
  /** The probe's name (PROBE_NAME), unique within its region. */
  name: Schema.String,
  /** The region of the results stream its heartbeats came on. */
  region: Schema.String,
  version: Schema.String,
  /** When the probe started (its own clock). */
  startedAt: Schema.DateTimeUtcFromString,
  /** When the server last received a heartbeat from it (the server's clock). */
  lastSeenAt: Schema.DateTimeUtcFromString,
  /** Heard from within the last 30 seconds (`offlineAfter`). */
  online: Schema.Boolean,
  /** Checks it ran in the minute before its last heartbeat. */
  checksLastMinute: Schema.Finite,
  /** Checks it may run at once. */
  concurrency: Schema.Finite,
  /** Average delay between a job's scheduled time and its start over that minute (ms). */
  lagMs: Schema.Finite,
  /** Checks running when it sent its last heartbeat. */
  inFlight: Schema.Finite
}, { description: "A probe agent and its last heartbeat" }) {}

/** Housekeeping forgets a probe silent for this long (7 days): a probe renamed or retired for good. */
export const forgetProbeAfter = Duration.days(7)
