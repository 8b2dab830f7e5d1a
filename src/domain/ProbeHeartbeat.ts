/**
 * What a probe agent says about itself every 10 seconds, on its region's results stream: the
 * probe registry (GET /api/v1/admin/probes) is built from these. The region is not in it:
 * ingest takes it from the stream the heartbeat came on, which only that region's probes may
 * write. No I/O here; the probe agent imports this module.
 */
import { Schema } from "effect"

import { pattern, Text } from "./Fields.js"

/**
 * A probe's name: 1 to 128 of A-Z, a-z, 0-9, '.', '_', '-'. The default `<hostname>-<pid>` fits;
 * a plain name also keeps the logs and the registry's rows readable.
 */
export const probeNamePattern = /^[A-Za-z0-9._-]{1,128}$/

export const ProbeName = Schema.String.check(
  pattern(probeNamePattern, "must be 1-128 of A-Z, a-z, 0-9, '.', '_', '-'")
)

const EpochMillis = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

export class ProbeHeartbeat extends Schema.TaggedClass<ProbeHeartbeat>()("ProbeHeartbeat", {
  /** The probe's name (PROBE_NAME): unique among the probes of its region. */
  name: ProbeName,
  /** The probe's software version (package.json's `version` at build time); text PostgreSQL stores as given. */
  version: Text(64),
  startedAt: EpochMillis,
  /** When the probe sent this heartbeat (its clock). */
  sentAt: EpochMillis,
  /** Checks it may run at once (PROBE_CONCURRENCY). */
  concurrency: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 10_000 })),
  /** Checks it ran in the minute before `sentAt`. */
  checksLastMinute: Count,
  /** Average delay between a job's `scheduledAt` and its start, over that minute (ms). */
  lagMs: Count,
  /** Checks running when it was sent. */
  inFlight: Count
}) {}

/** How often a probe sends a heartbeat, and after how much silence it counts as offline. */
export const heartbeatEvery = 10_000
export const offlineAfter = 30_000
