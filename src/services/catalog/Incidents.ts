import { Effect, Schema } from "effect"

import { Conflict, NotFound, orNotFound } from "../../domain/Errors.js"
import type {
  AddIncidentUpdate,
  CreateIncident,
  IncidentId,
  ResolveIncident,
  SetPostmortem,
  UpdateIncident
} from "../../domain/Incident.js"
import { Incident } from "../../domain/Incident.js"
import { existingComponents } from "../../persistence/ComponentRefs.js"
import { IncidentsRepo } from "../../persistence/IncidentsRepo.js"
import { OutboxRepo } from "../../persistence/OutboxRepo.js"
import { StateChanges } from "../StateChanges.js"
import { makeAnnouncer } from "./Announcer.js"
import { IncidentTemplates } from "./IncidentTemplates.js"

const resolvedMessage = "This incident has been resolved."

const encodeIncident = Schema.encodeSync(Incident.json)

/** How much of a postmortem an event carries: events are copied per webhook and per subscriber. */
const postmortemExcerptLength = 1000

/** The first characters of `text`, never cutting a character in two (a surrogate pair). */
const excerptOf = (text: string) => {
  const points = Array.from(text.slice(0, postmortemExcerptLength * 2)).slice(0, postmortemExcerptLength)
  const excerpt = points.join("")
  return { excerpt, truncated: excerpt.length < text.length }
}

/**
 * The `data` of incident events: the incident as the API returns it, without its timeline, and
 * with the start of its postmortem as the public sees it (a draft is null: it reaches no webhook
 * or mail); the page has the whole of it.
 */
export const incidentEventData = (incident: Incident) => {
  const { postmortem, updates: _timeline, ...data } = encodeIncident(incident)
  return {
    ...data,
    postmortem: postmortem?.published === true && postmortem.publishedAt !== null
      ? { ...excerptOf(postmortem.body), publishedAt: postmortem.publishedAt }
      : null
  }
}

export class Incidents extends Effect.Service<Incidents>()("Incidents", {
  effect: Effect.gen(function*() {
    const repo = yield* IncidentsRepo
    const outbox = yield* OutboxRepo
    const changes = yield* StateChanges
    const templates = yield* IncidentTemplates

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

      /** With `templateId`, the template fills in what the request leaves out (IncidentTemplates.fill). */
      create: Effect.fn("Incidents.create")((request: CreateIncident) =>
        changes.commit(Effect.gen(function*() {
          const input = yield* templates.fill(request)
          const componentIds = yield* existingComponents(input.componentIds)
          const status = input.status
          const id = yield* repo.insert({ title: input.title, status, severity: input.severity })
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
      ),

      /**
       * Writes a resolved incident's postmortem. Publishing it (a draft or none before) writes
       * `incident.updated` with `postmortemPublished: true`; edits and drafts write no event. A
       * change the public sees (published now or before) moves the incident's `updatedAt`.
       */
      setPostmortem: Effect.fn("Incidents.setPostmortem")((id: IncidentId, input: SetPostmortem) =>
        changes.commit(Effect.gen(function*() {
          const status = yield* repo.lockStatus(id)
          if (status === undefined) return yield* Effect.fail(NotFound.of("Incident", id))
          if (status !== "resolved") {
            return yield* Effect.fail(
              new Conflict({ message: `Incident ${JSON.stringify(id)} is not resolved; resolve it first` })
            )
          }
          const wasPublished = (yield* repo.postmortemPublished(id)) === true
          yield* repo.setPostmortem(id, input.body, input.published)
          if (input.published || wasPublished) yield* repo.update(id, {})
          if (!input.published || wasPublished) return yield* reload(id)
          const incident = yield* reload(id)
          yield* outbox.append(
            "incident.updated",
            { ...incidentEventData(incident), postmortemPublished: true },
            incident.componentIds
          )
          return incident
        }))
      )
    } as const
  }),
  dependencies: [IncidentsRepo.Default, OutboxRepo.Default, StateChanges.Default, IncidentTemplates.Default]
}) {}
