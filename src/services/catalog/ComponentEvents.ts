import { Effect } from "effect"

import type { Component } from "../../domain/Component.js"
import type { OutboxRepo } from "../../persistence/OutboxRepo.js"

/** Appends `component.status_changed` when a write changed the status, in the write's transaction. */
type StatusOf = Pick<Component, "id" | "name" | "status">

export const recordStatusChange = (outbox: OutboxRepo["Service"], before: StatusOf, after: StatusOf) =>
  before.status === after.status
    ? Effect.void
    : outbox.append(
      "component.status_changed",
      { id: after.id, name: after.name, previousStatus: before.status, status: after.status },
      [after.id]
    )
