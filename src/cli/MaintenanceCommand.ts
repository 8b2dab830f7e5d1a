/**
 * `status-page maintenance schedule | start ID | complete ID | cancel ID`
 *
 * The API has no "start now" or "complete now": the maintenance clock (the `scheduler` role)
 * starts a window once its `scheduledStart` has passed and completes it once its `scheduledEnd`
 * has. So `start` moves the start to now and `complete` moves the end to now (PUT), then both
 * wait for the clock to move the window on, and answer it in its new status.
 */
import { Args, Command, Options } from "@effect/cli"
import { DateTime, Duration, Effect, Option } from "effect"

import type { StatusPageApiClient } from "../client/StatusPageClient.js"
import { Conflict, ServiceUnavailable } from "../domain/Errors.js"
import type { MaintenanceStatus } from "../domain/Maintenance.js"
import { CreateMaintenance, Maintenance, MaintenanceId, UpdateMaintenance } from "../domain/Maintenance.js"
import type { Connection } from "./Remote.js"
import { body, connection, print, quoted, withClient } from "./Remote.js"

type Window = typeof Maintenance.json.Type

const id = Args.text({ name: "id" }).pipe(Args.withSchema(MaintenanceId))

const describe = (window: Window) =>
  `${window.id} ${quoted(window.title)}: ${window.status}, ` +
  `${DateTime.formatIso(window.scheduledStart)} to ${DateTime.formatIso(window.scheduledEnd)}`

const schedule = Command.make("schedule", {
  ...connection,
  title: Options.text("title").pipe(Options.withDescription("1–200 characters")),
  startsAt: Options.text("starts-at").pipe(Options.withDescription("ISO 8601 UTC, e.g. 2030-01-31T09:00:00Z")),
  endsAt: Options.text("ends-at").pipe(Options.withDescription("ISO 8601 UTC, after --starts-at")),
  componentIds: Options.text("component").pipe(
    Options.repeated,
    Options.withDescription("A component under maintenance; repeat for several")
  ),
  message: Options.text("message").pipe(
    Options.optional,
    Options.withDescription("The window's description (at most 5000 characters)")
  )
}, (options) =>
  Effect.gen(function*() {
    const payload = yield* body(CreateMaintenance, {
      title: options.title,
      description: Option.getOrUndefined(options.message),
      scheduledStart: options.startsAt,
      scheduledEnd: options.endsAt,
      componentIds: options.componentIds
    })
    const window = yield* withClient(options, (client) => client.maintenance.create({ payload }))
    yield* print(options, Maintenance.json, window, (w) => `Scheduled maintenance ${describe(w)}.`)
  })).pipe(Command.withDescription("Schedule a maintenance window"))

/**
 * Polls the window until it has left `from`. A clock that does not move it in time means no
 * process runs the `scheduler` role: the service is not fully available.
 */
const awaitClock = (
  client: StatusPageApiClient,
  connection: Connection,
  window: MaintenanceId,
  from: MaintenanceStatus
) => {
  const poll: Effect.Effect<Window, Effect.Effect.Error<ReturnType<typeof client.maintenance.get>>> = Effect.flatMap(
    client.maintenance.get({ path: { id: window } }),
    (current) => current.status === from ? Effect.zipRight(Effect.sleep("250 millis"), poll) : Effect.succeed(current)
  )
  return poll.pipe(
    Effect.timeoutFail({
      duration: Duration.seconds(connection.timeout),
      onTimeout: () =>
        new ServiceUnavailable({
          message: `maintenance ${window} is still ${from} after ${connection.timeout} s: ` +
            "is a process with the scheduler role running?"
        })
    })
  )
}

/** Moves one end of the window to now, then waits for the clock. */
const moveToNow = (
  options: Connection & { readonly id: MaintenanceId },
  field: "scheduledStart" | "scheduledEnd",
  from: MaintenanceStatus,
  refuse: (window: Window) => Option.Option<Conflict>
) =>
  withClient(options, (client) =>
    Effect.gen(function*() {
      const current = yield* client.maintenance.get({ path: { id: options.id } })
      const refusal = refuse(current)
      if (Option.isSome(refusal)) return yield* refusal.value
      const payload = yield* body(UpdateMaintenance, { [field]: new Date().toISOString() })
      yield* client.maintenance.update({ path: { id: options.id }, payload })
      return yield* awaitClock(client, options, options.id, from)
    }))

const start = Command.make(
  "start",
  { ...connection, id },
  (options) =>
    moveToNow(options, "scheduledStart", "scheduled", () => Option.none()).pipe(
      Effect.flatMap((window) => print(options, Maintenance.json, window, (w) => `Started maintenance ${describe(w)}.`))
    )
).pipe(Command.withDescription("Start a scheduled window now (its start becomes now)"))

const complete = Command.make(
  "complete",
  { ...connection, id },
  (options) =>
    moveToNow(options, "scheduledEnd", "in_progress", (window) =>
      // Its end cannot come before its start: the server would refuse it, less clearly.
      window.status === "scheduled"
        ? Option.some(
          new Conflict({ message: `Maintenance ${window.id} has not started: start it first, or cancel it` })
        )
        : Option.none()).pipe(
        Effect.flatMap((window) =>
          print(options, Maintenance.json, window, (w) => `Completed maintenance ${describe(w)}.`)
        )
      )
).pipe(Command.withDescription("Complete a window in progress now (its end becomes now)"))

const cancel = Command.make(
  "cancel",
  { ...connection, id },
  (options) =>
    withClient(options, (client) =>
      Effect.zipRight(
        client.maintenance.cancel({ path: { id: options.id } }),
        // The cancel answers no body; a cancelled window stays readable.
        client.maintenance.get({ path: { id: options.id } })
      )).pipe(
        Effect.flatMap((window) =>
          print(options, Maintenance.json, window, (w) => `Cancelled maintenance ${describe(w)}.`)
        )
      )
).pipe(Command.withDescription("Cancel a window; one in progress ends at once"))

export const MaintenanceCommand = Command.make("maintenance").pipe(
  Command.withDescription("Scheduled maintenance windows"),
  Command.withSubcommands([schedule, start, complete, cancel])
)
