import { Effect, Schema } from "effect"

import { Conflict, NotFound, orNotFound } from "../../domain/Errors.js"
import type {
  AddIncidentUpdate,
  CreateIncident,
  IncidentId,
  ResolveIncident,
  UpdateIncident
} from "../../domain/Incident.js"
import { Incident } from "../../domain/Incident.js"
import { existingComponents } from "../../persistence/ComponentRefs.js"
import { IncidentsRepo } from "../../persistence/IncidentsRepo.js"
import { OutboxRepo } from "../../persistence/OutboxRepo.js"
import { StateChanges } from "../StateChanges.js"
import { makeAnnouncer } from "./Announcer.js"

const resolvedMessage = "This incident has been resolved."

const encodeIncident = Schema.encodeSync(Incident.json)

/** The `data` of incident events: the incident as the API returns it, without its timeline. */
export const incidentEventData = (incident: Incident) => {
  const { updates: _timeline, ...data } = encodeIncident(incident)
  return data
}

export class Incidents extends Effect.Service<Incidents>()("Incidents", {
  effect: Effect.gen(function*() {
    const repo = yield* IncidentsRepo
    const outbox = yield* OutboxRepo
    const changes = yield* StateChanges

    const { announce, reload } = makeAnnouncer({
      what: "Incident",
      find: repo.findById,
      eventData: incidentEventData,
      outbox
    })

    /** Locks an incident that must still be open. */
    const lockOpen = (id: IncidentId) =>
      repo.lockStatus(id).pipe(
        Effect.flatMap((status) =>
          status === undefined
            ? Effect.fail<NotFound | Conflict>(NotFound.of("Incident", id))
            : status === "resolved"
            ? Effect.fail(new Conflict({ message: `Incident ${JSON.stringify(id)} is already resolved` }))
            : Effect.succeed(status)
        )
      )

    const resolve = (id: IncidentId, message: string) =>
      Effect.gen(function*() {
        yield* lockOpen(id)
        yield* repo.addUpdate(id, "resolved", message)
        yield* repo.touch(id, "resolved")
        return yield* announce("incident.resolved", id)
      })

    return {
      list: Effect.fn("Incidents.list")(() => repo.findAll()),

      get: Effect.fn("Incidents.get")((id: IncidentId) => repo.findById(id).pipe(orNotFound("Incident", id))),

      create: Effect.fn("Incidents.create")((input: CreateIncident) =>
        changes.commit(Effect.gen(function*() {
          const componentIds = yield* existingComponents(input.componentIds ?? [])
          const status = input.status ?? "investigating"
          const id = yield* repo.insert({ title: input.title, status, severity: input.severity ?? "minor" })
          yield* repo.setComponents(id, componentIds)
          yield* repo.addUpdate(id, status, input.message)
          return yield* announce("incident.created", id)
        }))
      ),

      /** A partial update; a resolved incident keeps its status (409 when asked to change it). */
      update: Effect.fn("Incidents.update")((id: IncidentId, changes_: UpdateIncident) =>
        changes.commit(Effect.gen(function*() {
          const current = yield* repo.lockStatus(id)
          if (current === undefined) return yield* Effect.fail(NotFound.of("Incident", id))
          if (current === "resolved" && changes_.status !== undefined) {
            return yield* Effect.fail(
              new Conflict({ message: `Incident ${JSON.stringify(id)} is resolved; open a new incident` })
            )
          }
          const { componentIds, ...fields } = changes_
          // Nothing to change: no write, no event.
          if (componentIds === undefined && Object.values(fields).every((value) => value === undefined)) {
            return yield* reload(id)
          }
          if (componentIds !== undefined) yield* repo.setComponents(id, yield* existingComponents(componentIds))
          yield* repo.update(id, fields)
          return yield* announce("incident.updated", id)
        }))
      ),

      addUpdate: Effect.fn("Incidents.addUpdate")((id: IncidentId, input: AddIncidentUpdate) =>
        changes.commit(
          input.status === "resolved" ? resolve(id, input.message) : Effect.gen(function*() {
            yield* lockOpen(id)
            yield* repo.addUpdate(id, input.status, input.message)
            yield* repo.touch(id, input.status)
            return yield* announce("incident.updated", id)
          })
        )
      ),

      resolve: Effect.fn("Incidents.resolve")((id: IncidentId, input: ResolveIncident) =>
        changes.commit(resolve(id, input.message ?? resolvedMessage))
      )
    } as const
  }),
  dependencies: [IncidentsRepo.Default, OutboxRepo.Default, StateChanges.Default]
}) {}
