/**
 * What incidents and maintenance windows do at the end of a change, inside its transaction: read
 * the row back and append its event to the outbox, so the event carries the row as committed.
 */
import { Effect, Option } from "effect"

import type { EventName } from "../../domain/Event.js"
import type { OutboxRepo } from "../../persistence/OutboxRepo.js"

export const makeAnnouncer = <Id extends string, A extends { readonly componentIds: ReadonlyArray<string> }, E, R>(
  options: {
    /** The kind of row, for the defect's message. */
    readonly what: string
    readonly find: (id: Id) => Effect.Effect<Option.Option<A>, E, R>
    readonly eventData: (row: A) => object
    readonly outbox: OutboxRepo["Service"]
  }
) => {
  /** The row as the running transaction sees it; a row gone under its own lock is a defect, not a 404. */
  const reload = (id: Id) =>
    Effect.flatMap(
      options.find(id),
      Option.match({ onNone: () => Effect.die(new Error(`${options.what} ${id} vanished`)), onSome: Effect.succeed })
    )

  const announce = (event: EventName, id: Id) =>
    Effect.tap(reload(id), (row) => options.outbox.append(event, options.eventData(row), row.componentIds))

  return { reload, announce } as const
}
