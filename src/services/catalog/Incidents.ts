import { Context, Effect, Layer, Schema } from "effect"

import type { ComponentId } from "../../domain/Component.js"
import { BadRequest, Conflict, NotFound, orNotFound } from "../../domain/Errors.js"
import type { EventName } from "../../domain/Event.js"
import type {
  AddIncidentUpdate,
  CreateIncident,
  IncidentId,
  IncidentSeverity,
  OpenIncidentStatus,
  ResolveIncident,
  SetPostmortem,
  UpdateIncident
} from "../../domain/Incident.js"
import { Incident } from "../../domain/Incident.js"
import type { PageRequest } from "../../domain/Page.js"
import { existingComponents } from "../../persistence/ComponentRefs.js"
import { IncidentsRepo } from "../../persistence/IncidentsRepo.js"
import { OutboxRepo } from "../../persistence/OutboxRepo.js"
import { Visibility } from "../../persistence/Visibility.js"
import { AuditTrail, changesBetween } from "../audit/AuditTrail.js"
import { StateChanges, touch } from "../StateChanges.js"
import { makeAnnouncer } from "./Announcer.js"
import { collectingMoves, ComponentStatuses, statusChanges } from "./ComponentStatuses.js"
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
  // The operators' bookkeeping (draft, visibility, source, automation) is not part of what events tell.
  const {
    automation: _automation,
    isPublic: _isPublic,
    monitorId: _monitorId,
    postmortem,
    published: _published,
    source: _source,
    updates: _timeline,
    ...data
  } = encodeIncident(incident)
  return {
    ...data,
    postmortem: postmortem?.published === true && postmortem.publishedAt !== null
      ? { ...excerptOf(postmortem.body), publishedAt: postmortem.publishedAt }
      : null
  }
}

/**
 * Says what a change of an incident touches of the public state: the incident, and the
 * components when it sets their statuses.
 */
const touching = (id: IncidentId, componentsToo = false) =>
  touch(componentsToo ? { incidents: [id], components: true } : { incidents: [id] })

/**
 * An incident as its audit entry compares it: what operators and the automation set, without
 * its timeline (`message` is the latest update's) and timestamps.
 */
const auditView = (incident: Incident) => ({
  title: incident.title,
  status: incident.status,
  severity: incident.severity,
  message: incident.message,
  componentIds: incident.componentIds,
  published: incident.published,
  isPublic: incident.isPublic,
  automation: incident.automation,
  postmortem: incident.postmortem === null
    ? null
    : { body: incident.postmortem.body, published: incident.postmortem.published }
})

/** What the automation opens for a monitor found down (IncidentAutomation). */
export interface AutomaticIncident {
  readonly monitorId: string
  readonly downSince: Date
  readonly title: string
  readonly message: string
  readonly severity: IncidentSeverity
  readonly componentId: ComponentId
  readonly published: boolean
}

export class Incidents extends Context.Service<Incidents>()("Incidents", {
  make: Effect.gen(function*() {
    const repo = yield* IncidentsRepo
    const outbox = yield* OutboxRepo
    const changes = yield* StateChanges
    const templates = yield* IncidentTemplates
    const statuses = yield* ComponentStatuses
    const visibility = yield* Visibility
    const audit = yield* AuditTrail

    const { reload } = makeAnnouncer({
      what: "Incident",
      find: repo.findById,
      eventData: incidentEventData,
      outbox
    })

    /** The incident as committed so far, with its event when it is published: a draft reaches no one. */
    const announce = (event: EventName, id: IncidentId) =>
      Effect.tap(
        reload(id),
        (incident) =>
          incident.published ? outbox.append(event, incidentEventData(incident), incident.componentIds) : Effect.void
      )

    /**
     * Runs `change` of an incident (`before`: as it was, none for a new one) and records its one
     * audit entry, with the components' statuses it moved; `operation` is an automation's own.
     */
    const recorded = <E, R>(before: Incident | undefined, change: Effect.Effect<Incident, E, R>, operation?: string) =>
      Effect.gen(function*() {
        const [after, moves] = yield* collectingMoves(change)
        yield* audit.record({
          target: { type: "incident", id: after.id, name: after.title },
          changes: {
            ...changesBetween(before === undefined ? undefined : auditView(before), auditView(after)),
            ...statusChanges(moves)
          },
          ...(operation === undefined ? {} : { operation })
        })
        return after
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

    const resolve = (id: IncidentId, message: string, restoreComponents: boolean) =>
      Effect.gen(function*() {
        yield* lockOpen(id)
        yield* repo.addUpdate(id, "resolved", message)
        yield* repo.touch(id, "resolved")
        if (restoreComponents) yield* statuses.restoreAfterIncident(id, (yield* reload(id)).componentIds)
        return yield* announce("incident.resolved", id)
      })

    /** Adds components to the incident's, keeping those it names; a public one makes it public. */
    const addComponents = (id: IncidentId, componentIds: ReadonlyArray<ComponentId>) =>
      componentIds.length === 0 ? Effect.void : Effect.gen(function*() {
        const incident = yield* reload(id)
        yield* repo.setComponents(id, [...new Set([...incident.componentIds, ...componentIds])])
        yield* visibility.widen("incident", id, componentIds)
      })

    /** Names the incident's components anew, as an operator chose them, and decides its visibility by them. */
    const chooseComponents = (id: IncidentId, componentIds: ReadonlyArray<ComponentId>) =>
      Effect.andThen(repo.setComponents(id, componentIds), visibility.choose("incident", id, componentIds))

    const notBothImpacts = new BadRequest({
      message: "Give componentStatuses or restoreComponents, not both: one would undo the other",
      issues: [{ path: ["componentStatuses"], message: "cannot be given with restoreComponents" }]
    })

    const noRestoreUnlessResolved = new BadRequest({
      message: "restoreComponents applies to an update that resolves the incident",
      issues: [{ path: ["restoreComponents"], message: "applies only with status resolved" }]
    })

    return {
      list: Effect.fn("Incidents.list")((page: PageRequest) => repo.findPage(page)),

      get: Effect.fn("Incidents.get")((id: IncidentId) => repo.findById(id).pipe(orNotFound("Incident", id))),

      /**
       * With `templateId`, the template fills in what the request leaves out (IncidentTemplates.fill).
       * `componentStatuses` sets those components' statuses in the same transaction, and names them.
       */
      create: Effect.fn("Incidents.create")((request: CreateIncident) =>
        changes.commit(recorded(
          undefined,
          Effect.gen(function*() {
            const input = yield* templates.fill(request)
            const impacted = request.componentStatuses === undefined
              ? []
              : yield* statuses.setForIncident(request.componentStatuses)
            const listed = yield* existingComponents(input.componentIds)
            const status = input.status
            const id = yield* repo.insert({
              title: input.title,
              status,
              severity: input.severity,
              published: request.published ?? true
            })
            yield* touching(id, request.componentStatuses !== undefined)
            if (input.template === undefined) yield* chooseComponents(id, [...new Set([...listed, ...impacted])])
            else {
              // The template's components and its choice of visibility; the statuses set here add theirs.
              yield* repo.setComponents(id, [...new Set([...listed, ...impacted])])
              yield* visibility.inherit("incident", id, { kind: "template", id: input.template })
              yield* visibility.widen("incident", id, impacted)
            }
            yield* statuses.holdForIncident(id, impacted)
            yield* repo.addUpdate(id, status, input.message)
            return yield* announce("incident.created", id)
          })
        ))
      ),

      /**
       * A partial update; a resolved incident keeps its status (409 when asked to change it). Any
       * change hands an automatic incident over to the operators.
       */
      update: Effect.fn("Incidents.update")((id: IncidentId, changes_: UpdateIncident) =>
        changes.commit(Effect.gen(function*() {
          yield* touching(id, changes_.componentStatuses !== undefined)
          const current = yield* repo.lockStatus(id)
          if (current === undefined) return yield* Effect.fail(NotFound.of("Incident", id))
          if (current === "resolved" && changes_.status !== undefined) {
            return yield* Effect.fail(
              new Conflict({ message: `Incident ${JSON.stringify(id)} is resolved; open a new incident` })
            )
          }
          const { componentIds, componentStatuses: given, isPublic, ...fields } = changes_
          const componentStatuses = given === undefined || Object.keys(given).length === 0 ? undefined : given
          const before = yield* reload(id)
          // Nothing to change: no write, no event; its audit entry lists no changes.
          if (
            componentIds === undefined && componentStatuses === undefined && isPublic === undefined &&
            Object.values(fields).every((value) => value === undefined)
          ) {
            return yield* recorded(before, Effect.succeed(before))
          }
          return yield* recorded(
            before,
            Effect.gen(function*() {
              const impacted = componentStatuses === undefined
                ? []
                : yield* statuses.setForIncident(componentStatuses)
              if (componentIds !== undefined) {
                const named = [...new Set([...(yield* existingComponents(componentIds)), ...impacted])]
                yield* repo.setComponents(id, named)
                yield* visibility.chooseAgain("incident", id, named, before.componentIds)
              } else yield* addComponents(id, impacted)
              if (isPublic !== undefined) yield* visibility.set("incident", id, isPublic)
              yield* statuses.holdForIncident(id, impacted)
              yield* repo.update(id, fields)
              yield* repo.handOver(id)
              return yield* announce("incident.updated", id)
            })
          )
        }))
      ),

      addUpdate: Effect.fn("Incidents.addUpdate")((id: IncidentId, input: AddIncidentUpdate) =>
        changes.commit(Effect.gen(function*() {
          yield* touching(id, input.componentStatuses !== undefined || input.restoreComponents === true)
          if (input.restoreComponents === true && input.status !== "resolved") {
            return yield* Effect.fail(noRestoreUnlessResolved)
          }
          if (input.restoreComponents === true && input.componentStatuses !== undefined) {
            return yield* Effect.fail(notBothImpacts)
          }
          yield* lockOpen(id)
          return yield* recorded(
            yield* reload(id),
            Effect.gen(function*() {
              yield* repo.handOver(id)
              if (input.componentStatuses !== undefined) {
                const impacted = yield* statuses.setForIncident(input.componentStatuses)
                yield* addComponents(id, impacted)
                yield* statuses.holdForIncident(id, impacted)
              }
              if (input.status === "resolved") {
                return yield* resolve(id, input.message, input.restoreComponents === true)
              }
              yield* repo.addUpdate(id, input.status, input.message)
              yield* repo.touch(id, input.status)
              return yield* announce("incident.updated", id)
            })
          )
        }))
      ),

      resolve: Effect.fn("Incidents.resolve")((id: IncidentId, input: ResolveIncident) =>
        changes.commit(Effect.gen(function*() {
          yield* touching(id, input.restoreComponents === true)
          yield* lockOpen(id)
          return yield* recorded(
            yield* reload(id),
            Effect.andThen(
              repo.handOver(id),
              resolve(id, input.message ?? resolvedMessage, input.restoreComponents === true)
            )
          )
        }))
      ),

      /**
       * Publishes a draft: it becomes public (when its stored visibility is) and `incident.created` is
       * written then, with the timeline so far. Publishing a published incident changes nothing.
       */
      publish: Effect.fn("Incidents.publish")((id: IncidentId) =>
        changes.commit(Effect.gen(function*() {
          yield* touching(id)
          if ((yield* repo.lockStatus(id)) === undefined) return yield* Effect.fail(NotFound.of("Incident", id))
          const before = yield* reload(id)
          if (before.published) return yield* recorded(before, Effect.succeed(before))
          return yield* recorded(
            before,
            Effect.gen(function*() {
              yield* repo.publish(id)
              const incident = yield* reload(id)
              yield* outbox.append(
                "incident.created",
                { ...incidentEventData(incident), updates: encodeIncident(incident).updates },
                incident.componentIds
              )
              return incident
            })
          )
        }))
      ),

      /**
       * Writes a resolved incident's postmortem. Publishing it (a draft or none before) writes
       * `incident.updated` with `postmortemPublished: true`; edits and drafts write no event. A
       * change the public sees (published now or before) moves the incident's `updatedAt`.
       */
      setPostmortem: Effect.fn("Incidents.setPostmortem")((id: IncidentId, input: SetPostmortem) =>
        changes.commit(Effect.gen(function*() {
          yield* touching(id)
          const status = yield* repo.lockStatus(id)
          if (status === undefined) return yield* Effect.fail(NotFound.of("Incident", id))
          if (status !== "resolved") {
            return yield* Effect.fail(
              new Conflict({ message: `Incident ${JSON.stringify(id)} is not resolved; resolve it first` })
            )
          }
          const before = yield* reload(id)
          return yield* recorded(
            before,
            Effect.gen(function*() {
              const wasPublished = before.postmortem?.published === true
              yield* repo.setPostmortem(id, input.body, input.published)
              if (input.published || wasPublished) yield* repo.update(id, {})
              const incident = yield* reload(id)
              if (!input.published || wasPublished || !incident.published) return incident
              yield* outbox.append(
                "incident.updated",
                { ...incidentEventData(incident), postmortemPublished: true },
                incident.componentIds
              )
              return incident
            })
          )
        }))
      ),

      /**
       * The automation's own writes (IncidentAutomation), inside its transaction: they never hand
       * an incident over, and a draft's write no events, as everywhere.
       */
      automatic: {
        open: (input: AutomaticIncident) =>
          recorded(
            undefined,
            Effect.gen(function*() {
              const id = yield* repo.insert({
                title: input.title,
                status: "investigating",
                severity: input.severity,
                published: input.published,
                monitor: { id: input.monitorId, downSince: input.downSince }
              })
              yield* touching(id)
              yield* chooseComponents(id, [input.componentId])
              yield* repo.addUpdate(id, "investigating", input.message)
              return yield* announce("incident.created", id)
            }),
            "incidents.openAutomatically"
          ),

        /**
         * Adds an update, in `statusWhileActive` while the automation is active, else in the
         * incident's own status: decided under the incident's lock, so an operator taking it over
         * meanwhile is seen. A resolved incident takes none.
         */
        note: (id: IncidentId, message: string, statusWhileActive: typeof OpenIncidentStatus.Type) =>
          Effect.gen(function*() {
            const locked = yield* repo.lockAutomation(id)
            if (locked === undefined || locked.status === "resolved") return
            const status = locked.automation === "active" ? statusWhileActive : locked.status
            yield* recorded(
              yield* reload(id),
              Effect.gen(function*() {
                yield* repo.addUpdate(id, status, message)
                yield* repo.touch(id, status)
                return yield* announce("incident.updated", id)
              }),
              "incidents.updateAutomatically"
            )
          }),

        /** Resolves the incident, unless an operator has taken it over (or resolved it) meanwhile. */
        resolve: (id: IncidentId, message: string) =>
          Effect.gen(function*() {
            const locked = yield* repo.lockAutomation(id)
            if (locked === undefined || locked.status === "resolved" || locked.automation !== "active") return
            yield* recorded(yield* reload(id), resolve(id, message, false), "incidents.resolveAutomatically")
          })
      }
    } as const
  })
}) {
  /** Without its repositories and services: the unit tests of its rules give their own. */
  static readonly layerWithoutDependencies = Layer.effect(this, this.make)
  static readonly layer = this.layerWithoutDependencies.pipe(
    Layer.provide([
      IncidentsRepo.layer,
      OutboxRepo.layer,
      StateChanges.layer,
      IncidentTemplates.layer,
      ComponentStatuses.layer,
      Visibility.layer,
      AuditTrail.layer
    ])
  )
}
