/** Maintenance windows for tests that then move the clock through them. */
import { DateTime, Effect } from "effect"

import type { ComponentId } from "../../src/domain/Component.js"
import { ApiClient } from "./TestServer.js"

/** Schedules a window from one minute after the clock's now until `endMinutes` after it. */
export const scheduleSoon = (title: string, componentIds: ReadonlyArray<ComponentId>, endMinutes = 10) =>
  Effect.gen(function*() {
    const client = yield* ApiClient
    const now = yield* DateTime.now
    return yield* client.maintenance.create({
      payload: {
        title,
        scheduledStart: DateTime.add(now, { minutes: 1 }),
        scheduledEnd: DateTime.add(now, { minutes: endMinutes }),
        componentIds
      }
    })
  })
