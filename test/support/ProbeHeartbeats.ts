import { Clock, Effect } from "effect"

import { ProbeHeartbeat } from "../../src/domain/ProbeHeartbeat.js"
import { ProbeRegistry } from "../../src/services/monitoring/ProbeRegistry.js"

/** Probe `name` of `region`, up for a minute, reports in now (by the TestClock), as ingest hands it to the registry. */
export const recordHeartbeat = (region: string, name: string) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    yield* (yield* ProbeRegistry).recordHeartbeats([{
      region,
      heartbeat: new ProbeHeartbeat({
        name,
        version: "1.2.3",
        startedAt: now - 60_000,
        sentAt: now,
        concurrency: 8,
        checksLastMinute: 30,
        lagMs: 5,
        inFlight: 0
      })
    }])
  })
