import { Context, DateTime, Effect, Layer, Option, Schema } from "effect"

import { systemScope } from "../../domain/Audit.js"
import { CurrentAuditScope } from "../../domain/Audit.js"
import { BadRequest, Conflict, orNotFound } from "../../domain/Errors.js"
import type { CreateMaintenance, MaintenanceId, UpdateMaintenance } from "../../domain/Maintenance.js"
import { Maintenance } from "../../domain/Maintenance.js"
import type { PageRequest } from "../../domain/Page.js"
import { nextOccurrence } from "../../domain/Recurrence.js"
import { existingComponents } from "../../persistence/ComponentRefs.js"
import type { WindowFields } from "../../persistence/MaintenanceRepo.js"
import { MaintenanceRepo } from "../../persistence/MaintenanceRepo.js"
import { OrganizationRepo } from "../../persistence/OrganizationRepo.js"
import { OutboxRepo } from "../../persistence/OutboxRepo.js"
import { Visibility } from "../../persistence/Visibility.js"
import { AuditTrail, changesBetween } from "../audit/AuditTrail.js"
import { StateChanges, touch } from "../StateChanges.js"
import { makeAnnouncer } from "./Announcer.js"
import { collectingMoves, ComponentStatuses, statusChanges, type StatusMove } from "./ComponentStatuses.js"

const encodeWindow = Schema.encodeSync(Maintenance.json)

/** The `data` of maintenance events (docs/notifications.md, "Events"). */
export const maintenanceEventData = (window: Maintenance) => {
  const { id, title, status, scheduledStart, scheduledEnd, componentIds } = encodeWindow(window)
  return { id, title, status, scheduledStart, scheduledEnd, componentIds }
}

const checkOrder = (fields: WindowFields) =>
  DateTime.isGreaterThan(fields.scheduledEnd, fields.scheduledStart)
    ? Effect.succeed(fields)
    : Effect.fail(
      new BadRequest({
        message: "scheduledEnd must be after scheduledStart",
        issues: [{ path: ["scheduledEnd"], message: "must be after scheduledStart" }]
      })
    )

/** How far in the past a window may start: a record of recent work, not a series from year 1. */
export const maxPastStartDays = 365

const checkRecentStart = (scheduledStart: DateTime.Utc, now: DateTime.Utc) =>
  DateTime.isLessThan(scheduledStart, DateTime.subtract(now, { days: maxPastStartDays }))
    ? Effect.fail(
      new BadRequest({
        message: `scheduledStart must not be more than ${maxPastStartDays} days in the past`,
        issues: [{ path: ["scheduledStart"], message: `must not be more than ${maxPastStartDays} days in the past` }]
      })
    )
    : Effect.void

/** A series whose `until` comes before its first start would have no occurrence. */
const checkUntil = (input: CreateMaintenance) =>
  input.recurrence?.until !== undefined && DateTime.isLessThan(input.recurrence.until, input.scheduledStart)
    ? Effect.fail(
      new BadRequest({
        message: "recurrence.until must not be before scheduledStart",
        issues: [{ path: ["recurrence", "until"], message: "must not be before scheduledStart" }]
      })
    )
    : Effect.void

/** Who the maintenance clock's starts and ends are by, in the audit log. */
const clockScope = systemScope("maintenance-clock")

const finished = (window: Maintenance) =>
  new Conflict({ message: `Maintenance ${JSON.stringify(window.id)} is ${window.status} and can no longer change` })

export class MaintenanceWindows extends Context.Service<MaintenanceWindows>()("MaintenanceWindows", {
  make: Effect.gen(function*() {
    const repo = yield* MaintenanceRepo
    const statuses = yield* ComponentStatuses
    const outbox = yield* OutboxRepo
    const changes = yield* StateChanges
    const organizations = yield* OrganizationRepo
    const visibility = yield* Visibility
    const audit = yield* AuditTrail

    /**
     * The one audit entry of a change of `window` from `before` to `after`, with the components'
     * statuses it moved and what else it says (`extra`); `operation` is the clock's own.
     */
    const record = (
      window: Maintenance,
      before: Maintenance | undefined,
      after: Maintenance | undefined,
      options: {
        readonly moves?: ReadonlyArray<StatusMove>
        readonly extra?: Record<string, { readonly before: unknown; readonly after: unknown }>
        readonly operation?: string
      } = {}
    ) =>
      audit.record({
        target: { type: "maintenance", id: window.id, name: window.title },
        changes: { ...changesBetween(before, after), ...statusChanges(options.moves ?? []), ...options.extra },
        ...(options.operation === undefined ? {} : { operation: options.operation })
      })

    const { announce, reload } = makeAnnouncer({
      what: "Maintenance",
      find: repo.findById,
      eventData: maintenanceEventData,
      outbox
    })

    const lock = (id: MaintenanceId) => repo.lock(id).pipe(orNotFound("Maintenance", id))

    /**
     * Hands the components back (ComponentStatuses.leaveMaintenance). A covering window another
     * instance is starting at `now` is waited for first, so that it counts.
     */
    const leaveMaintenance = (window: Maintenance, now: DateTime.Utc) =>
      Effect.andThen(
        repo.awaitStarting(window.id, DateTime.toDateUtc(now)),
        statuses.leaveMaintenance(window.id, window.componentIds)
      )

    /**
     * Creates the occurrence of `window`'s series that follows it, with its `maintenance.scheduled`:
     * the first one that has not ended at `now`, unless the series has ended. Called when an
     * occurrence starts (so the next one is always listed) or is cancelled before it starts.
     */
    const scheduleNext = (window: Maintenance, now: DateTime.Utc) =>
      Effect.gen(function*() {
        const { occurrence, recurrence, seriesId } = window
        if (recurrence === null || seriesId === null || occurrence === null) return
        const first = occurrence === 0 ? Option.some(window) : yield* repo.findById(seriesId)
        if (Option.isNone(first)) return
        const org = yield* organizations.find()
        const timeZone = Option.match(org, { onNone: () => "UTC", onSome: (o) => o.timezone })
        const next = nextOccurrence(
          { start: first.value.scheduledStart.epochMilliseconds, end: first.value.scheduledEnd.epochMilliseconds },
          recurrence,
          occurrence,
          now.epochMilliseconds,
          timeZone
        )
        if (next === undefined) return
        const created = yield* repo.insert({
          title: window.title,
          description: window.description,
          scheduledStart: DateTime.makeUnsafe(next.start),
          scheduledEnd: DateTime.makeUnsafe(next.end)
        }, { recurrence, seriesId, occurrence: next.index })
        if (Option.isNone(created)) return
        // The occurrence it follows decides, not the components that remain of its list.
        yield* repo.setComponents(created.value, window.componentIds)
        yield* visibility.inherit("maintenance", created.value, { kind: "maintenance", id: window.id })
        yield* repo.skipReminderWithin(created.value, DateTime.toDateUtc(now))
        yield* announce("maintenance.scheduled", created.value)
      })

    /** Cancels a window now; a running one gives its components back. */
    const stop = (window: Maintenance, now: DateTime.Utc) =>
      Effect.gen(function*() {
        yield* repo.setStatus(window.id, "cancelled")
        if (window.status === "in_progress") {
          yield* leaveMaintenance(window, now)
          yield* announce("maintenance.completed", window.id)
        }
      })

    /** Moves one due window on, if it is still due at `now` and no other instance holds it. */
    const transition = (id: MaintenanceId, now: DateTime.Utc) =>
      changes.commit(
        Effect.gen(function*() {
          yield* touch({ maintenance: true, components: true })
          const found = yield* repo.lockDue(id)
          if (Option.isNone(found)) return
          const window = found.value
          const ended = DateTime.isLessThanOrEqualTo(window.scheduledEnd, now)
          const starts = window.status === "scheduled" && DateTime.isLessThanOrEqualTo(window.scheduledStart, now)
          if (!starts && !(window.status === "in_progress" && ended)) return
          const [, moves] = yield* collectingMoves(step(window, now))
          // A window that starts and ends in one step (its whole span passed unseen) is ended.
          yield* record(window, window, yield* reload(id), {
            moves,
            operation: starts && !ended ? "maintenance.start" : "maintenance.end"
          })
        }).pipe(Effect.provideService(CurrentAuditScope, clockScope))
      )

    /** Starts or ends the locked, due `window` at `now`. */
    const step = (window: Maintenance, now: DateTime.Utc) =>
      Effect.gen(function*() {
        const id = window.id
        const ended = DateTime.isLessThanOrEqualTo(window.scheduledEnd, now)
        if (window.status === "scheduled" && DateTime.isLessThanOrEqualTo(window.scheduledStart, now)) {
          yield* repo.setStatus(id, ended ? "completed" : "in_progress")
          // A window whose whole span passed unseen (the service was down) starts and completes
          // at once; its components never showed maintenance, so they are left alone.
          if (ended) {
            yield* outbox.append(
              "maintenance.started",
              { ...maintenanceEventData(window), status: "in_progress" },
              window.componentIds
            )
            yield* announce("maintenance.completed", id)
          } else {
            yield* statuses.enterMaintenance(window.id, window.componentIds)
            yield* announce("maintenance.started", id)
          }
          yield* scheduleNext(window, now)
        } else if (window.status === "in_progress" && ended) {
          yield* repo.setStatus(id, "completed")
          yield* leaveMaintenance(window, now)
          yield* announce("maintenance.completed", id)
        }
      })

    /**
     * Reminds the readers of one window about to start, if it still awaits its reminder at `now`
     * and no other instance holds it: the mark and the event commit together, so never twice.
     * Nothing the public sees changes.
     */
    const remind = (id: MaintenanceId, now: DateTime.Utc) =>
      changes.commit(Effect.gen(function*() {
        yield* touch({})
        const found = yield* repo.lockReminderDue(id, DateTime.toDateUtc(now))
        if (Option.isNone(found)) return
        yield* repo.markReminded(id, DateTime.toDateUtc(now))
        yield* outbox.append("maintenance.reminder", maintenanceEventData(found.value), found.value.componentIds)
      }))

    return {
      list: Effect.fn("MaintenanceWindows.list")((page: PageRequest) => repo.findPage(page)),

      get: Effect.fn("MaintenanceWindows.get")((id: MaintenanceId) =>
        repo.findById(id).pipe(orNotFound("Maintenance", id))
      ),

      create: Effect.fn("MaintenanceWindows.create")((input: CreateMaintenance) =>
        changes.commit(Effect.gen(function*() {
          yield* touch({ maintenance: true })
          const fields = yield* checkOrder({
            title: input.title,
            description: input.description ?? "",
            scheduledStart: input.scheduledStart,
            scheduledEnd: input.scheduledEnd
          })
          const now = yield* DateTime.now
          yield* checkRecentStart(fields.scheduledStart, now)
          yield* checkUntil(input)
          const componentIds = yield* existingComponents(input.componentIds ?? [])
          const recurrence = input.recurrence ?? null
          const created = yield* repo.insert(fields, recurrence === null ? null : { recurrence, occurrence: 0 })
          const id = yield* Option.match(created, {
            onNone: () => Effect.die(new Error("A new window was not inserted")),
            onSome: Effect.succeed
          })
          yield* repo.setComponents(id, componentIds)
          yield* visibility.choose("maintenance", id, componentIds)
          yield* repo.skipReminderWithin(id, DateTime.toDateUtc(now))
          const window = yield* announce("maintenance.scheduled", id)
          yield* record(window, undefined, window)
          return window
        }))
      ),

      /**
       * A partial update of a scheduled or running window. Once running, its start and its
       * components are history (409); its end can still move.
       */
      update: Effect.fn("MaintenanceWindows.update")((id: MaintenanceId, input: UpdateMaintenance) =>
        changes.commit(Effect.gen(function*() {
          yield* touch({ maintenance: true })
          const window = yield* lock(id)
          if (window.status === "completed" || window.status === "cancelled") {
            return yield* Effect.fail(finished(window))
          }
          if (
            window.status === "in_progress" && (input.scheduledStart !== undefined || input.componentIds !== undefined)
          ) {
            return yield* Effect.fail(
              new Conflict({
                message: "A window in progress cannot change its start or its components; change its end or cancel it"
              })
            )
          }
          const fields = yield* checkOrder({
            title: input.title ?? window.title,
            description: input.description ?? window.description,
            scheduledStart: input.scheduledStart ?? window.scheduledStart,
            scheduledEnd: input.scheduledEnd ?? window.scheduledEnd
          })
          if (input.scheduledStart !== undefined) yield* checkRecentStart(input.scheduledStart, yield* DateTime.now)
          if (input.componentIds !== undefined) {
            const named = yield* existingComponents(input.componentIds)
            yield* repo.setComponents(id, named)
            yield* visibility.chooseAgain("maintenance", id, named, window.componentIds)
          }
          if (input.isPublic !== undefined) yield* visibility.set("maintenance", id, input.isPublic)
          yield* repo.update(id, fields)
          if (!DateTime.Equivalence(fields.scheduledStart, window.scheduledStart)) yield* repo.forgetReminder(id)
          const after = yield* reload(id)
          yield* record(after, window, after)
          return after
        }))
      ),

      /**
       * Soft delete. A running window ends now: its components get their status back. Cancelling
       * an occurrence before it starts schedules the series' next one, so the series goes on;
       * with `series`, the occurrences after it that have not finished are cancelled too, and the
       * series ends.
       */
      cancel: Effect.fn("MaintenanceWindows.cancel")((
        id: MaintenanceId,
        options: { readonly series?: boolean | undefined } = {}
      ) =>
        changes.commit(Effect.gen(function*() {
          // A running window gives its components back.
          yield* touch({ maintenance: true, components: true })
          const window = yield* lock(id)
          if (window.status === "completed" || window.status === "cancelled") {
            return yield* Effect.fail(finished(window))
          }
          const now = yield* DateTime.now
          const [later, moves] = yield* collectingMoves(Effect.gen(function*() {
            yield* stop(window, now)
            if (window.seriesId === null || window.occurrence === null) return []
            if (options.series === true) {
              const later = yield* repo.lockLaterInSeries(window.seriesId, window.occurrence)
              yield* Effect.forEach(later, (occurrence) => stop(occurrence, now), { discard: true })
              return later
            }
            if (window.status === "scheduled") yield* scheduleNext(window, now)
            return []
          }))
          yield* record(window, window, yield* reload(id), {
            moves,
            // The series' later occurrences it cancelled with it.
            extra: later.length === 0
              ? {}
              : { cancelledOccurrences: { before: null, after: later.map((occurrence) => occurrence.id) } }
          })
        }))
      ),

      /**
       * When something is next due after `now` (a start, an end, a reminder), as `runDue` would
       * find it: what the maintenance clock sleeps until. A time at or before `now` is one the
       * pass at `now` left due (another instance held the window).
       */
      nextDue: (now: DateTime.Utc) =>
        Effect.map(repo.nextDue(DateTime.toDateUtc(now)), Option.map(DateTime.fromDateUnsafe)),

      /**
       * Runs every transition due at `now`, then sends the reminders due at `now`; each window in
       * its own transaction.
       */
      runDue: (now: DateTime.Utc) =>
        Effect.andThen(
          repo.due(DateTime.toDateUtc(now)).pipe(
            Effect.flatMap((ids) => Effect.forEach(ids, (id) => transition(id, now), { discard: true }))
          ),
          repo.reminderDue(DateTime.toDateUtc(now)).pipe(
            Effect.flatMap((ids) => Effect.forEach(ids, (id) => remind(id, now), { discard: true }))
          )
        )
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([
      MaintenanceRepo.layer,
      ComponentStatuses.layer,
      OrganizationRepo.layer,
      OutboxRepo.layer,
      StateChanges.layer,
      Visibility.layer,
      AuditTrail.layer
    ])
  )
}
