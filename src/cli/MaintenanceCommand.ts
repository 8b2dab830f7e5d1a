/**
 * `status-page maintenance schedule [--repeat F --interval N --count N --until T] | start ID |
 * complete ID | cancel ID [--series]`
 *
 * The API has no "start now" or "complete now": the maintenance clock (the `scheduler` role)
 * starts a window once its `scheduledStart` has passed and completes it once its `scheduledEnd`
 * has. So `start` moves the start to now and `complete` moves the end to now (PUT), then both
 * wait for the clock to move the window on, and answer it in its new status.
 */
import { DateTime, Duration, Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"

import type { StatusPageApiClient } from "../client/StatusPageClient.js"
import { Conflict, ServiceUnavailable } from "../domain/Errors.js"
import type { MaintenanceStatus } from "../domain/Maintenance.js"
import { CreateMaintenance, Maintenance, MaintenanceId, UpdateMaintenance } from "../domain/Maintenance.js"
import { RecurrenceFrequency, repeatsEvery } from "../domain/Recurrence.js"
import { UsageError } from "./CliFailure.js"
import type { Connection } from "./Remote.js"
import { body, connection, flagSwitch, print, quoted, withClient } from "./Remote.js"

type Window = typeof Maintenance.json.Type

const id = Argument.String("id").pipe(Argument.withSchema(MaintenanceId))

/** "repeats every 2 weeks, 5 times until 2031-…Z" */
const repeatsLabel = (recurrence: NonNullable<Window["recurrence"]>) =>
  `repeats ${repeatsEvery(recurrence)}` +
  (recurrence.until === undefined ? "" : ` until ${DateTime.formatIso(recurrence.until)}`)

const describe = (window: Window) =>
  `${window.id} ${quoted(window.title)}: ${window.status}, ` +
  `${DateTime.formatIso(window.scheduledStart)} to ${DateTime.formatIso(window.scheduledEnd)}` +
  (window.recurrence === null ? "" : `, ${repeatsLabel(window.recurrence)}`)

const schedule = Command.make("schedule", {
  ...connection,
  title: Flag.String("title").pipe(Flag.withDescription("1–200 characters")),
  startsAt: Flag.String("starts-at").pipe(Flag.withDescription("ISO 8601 UTC, e.g. 2030-01-31T09:00:00Z")),
  endsAt: Flag.String("ends-at").pipe(Flag.withDescription("ISO 8601 UTC, after --starts-at")),
  componentIds: Flag.String("component").pipe(
    Flag.atLeast(0),
    Flag.withDescription("A component under maintenance; repeat for several")
  ),
  message: Flag.String("message").pipe(
    Flag.optional,
    Flag.withDescription("The window's description (at most 5000 characters)")
  ),
  repeat: Flag.Literals("repeat", RecurrenceFrequency.literals).pipe(
    Flag.optional,
    Flag.withDescription("Repeat the window, in the organization's time zone")
  ),
  interval: Flag.Int("interval").pipe(
    Flag.withDefault(1),
    Flag.withDescription("With --repeat: every N days, weeks or months (1–52)")
  ),
  count: Flag.Int("count").pipe(
    Flag.optional,
    Flag.withDescription("With --repeat: the number of occurrences, the first included (1–1000)")
  ),
  until: Flag.String("until").pipe(
    Flag.optional,
    Flag.withDescription("With --repeat: no occurrence starts after this ISO 8601 UTC time")
  )
}, (options) =>
  Effect.gen(function*() {
    const repeats = Option.isSome(options.repeat)
    if (!repeats && (Option.isSome(options.count) || Option.isSome(options.until))) {
      return yield* new UsageError({ message: "--count and --until need --repeat" })
    }
    const payload = yield* body(CreateMaintenance, {
      title: options.title,
      description: Option.getOrUndefined(options.message),
      scheduledStart: options.startsAt,
      scheduledEnd: options.endsAt,
      componentIds: options.componentIds,
      recurrence: Option.match(options.repeat, {
        onNone: () => undefined,
        onSome: (frequency) => ({
          frequency,
          interval: options.interval,
          count: Option.getOrUndefined(options.count),
          until: Option.getOrUndefined(options.until)
        })
      })
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
  const poll: Effect.Effect<Window, Effect.Error<ReturnType<typeof client.maintenance.get>>> = Effect.flatMap(
    client.maintenance.get({ params: { id: window } }),
    (current) => current.status === from ? Effect.andThen(Effect.sleep("250 millis"), poll) : Effect.succeed(current)
  )
  return poll.pipe(
    Effect.timeoutOrElse({
      duration: Duration.seconds(connection.timeout),
      orElse: () =>
        Effect.fail(
          new ServiceUnavailable({
            message: `maintenance ${window} is still ${from} after ${connection.timeout} s: ` +
              "is a process with the scheduler role running?"
          })
        )
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
      const current = yield* client.maintenance.get({ params: { id: options.id } })
      const refusal = refuse(current)
      if (Option.isSome(refusal)) return yield* refusal.value
      const payload = yield* body(UpdateMaintenance, { [field]: new Date().toISOString() })
      yield* client.maintenance.update({ params: { id: options.id }, payload })
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
  {
    ...connection,
    id,
    series: flagSwitch("series").pipe(
      Flag.withDescription("Also cancel the later occurrences of the window's series: the series ends")
    )
  },
  (options) =>
    withClient(options, (client) =>
      Effect.andThen(
        client.maintenance.cancel({ params: { id: options.id }, query: options.series ? { series: true } : {} }),
        // The cancel answers no body; a cancelled window stays readable.
        client.maintenance.get({ params: { id: options.id } })
      )).pipe(
        Effect.flatMap((window) =>
          print(options, Maintenance.json, window, (w) =>
            `Cancelled maintenance ${describe(w)}${
              options.series && w.seriesId !== null ? " and the rest of its series" : ""
            }.`)
        )
      )
).pipe(
  Command.withDescription(
    "Cancel a window; one in progress ends at once. An occurrence of a series is replaced by the next one " +
      "unless --series ends the series"
  )
)

export const MaintenanceCommand = Command.make("maintenance").pipe(
  Command.withDescription("Scheduled maintenance windows"),
  Command.withSubcommands([schedule, start, complete, cancel])
)
