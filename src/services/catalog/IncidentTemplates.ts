/** Incident templates, and opening an incident from one (`fill`). */
import { Context, Effect, Layer, Option } from "effect"

import type { ComponentId } from "../../domain/Component.js"
import { BadRequest, type Issue, NotFound, orNotFound } from "../../domain/Errors.js"
import type { CreateIncident, IncidentSeverity, IncidentTemplateId, OpenIncidentStatus } from "../../domain/Incident.js"
import type { CreateIncidentTemplate, IncidentTemplate, UpdateIncidentTemplate } from "../../domain/IncidentTemplate.js"
import type { PageRequest } from "../../domain/Page.js"
import { existingComponents } from "../../persistence/ComponentRefs.js"
import { orUnavailable } from "../../persistence/DatabaseErrors.js"
import { IncidentTemplatesRepo } from "../../persistence/IncidentTemplatesRepo.js"
import { RetryingSqlClient } from "../../persistence/RetryingSqlClient.js"
import { Visibility } from "../../persistence/Visibility.js"
import { AuditTrail, changesBetween } from "../audit/AuditTrail.js"

/** What opening an incident needs, once the request and its template are merged. */
export interface NewIncident {
  readonly title: string
  readonly message: string
  readonly status: typeof OpenIncidentStatus.Type
  readonly severity: IncidentSeverity
  readonly componentIds: ReadonlyArray<ComponentId>
  /** The template, when its components are taken: the incident takes its visibility as well. */
  readonly template?: IncidentTemplateId
}

export class IncidentTemplates extends Context.Service<IncidentTemplates>()("IncidentTemplates", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const repo = yield* IncidentTemplatesRepo
    const visibility = yield* Visibility
    const get = (id: IncidentTemplateId) => repo.findById(id).pipe(orNotFound("Incident template", id))
    /** A template this transaction has just written. */
    const reload = (id: IncidentTemplateId) => Effect.map(repo.findById(id), Option.getOrThrow)
    const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>) => orUnavailable(sql.withTransaction(effect))
    const audit = yield* AuditTrail

    /** The audit entry of a change of `template` from `before` to `after`. */
    const record = (
      template: IncidentTemplate,
      before: IncidentTemplate | undefined,
      after: IncidentTemplate | undefined
    ) =>
      audit.record({
        target: { type: "incidentTemplate", id: template.id, name: template.name },
        changes: changesBetween(before, after)
      })

    return {
      list: Effect.fn("IncidentTemplates.list")((page: PageRequest) => repo.findPage(page)),
      get: Effect.fn("IncidentTemplates.get")(get),

      create: Effect.fn("IncidentTemplates.create")((input: CreateIncidentTemplate) =>
        transaction(Effect.gen(function*() {
          const componentIds = yield* existingComponents(input.componentIds ?? [])
          const id = yield* repo.insert(input)
          yield* repo.setComponents(id, componentIds)
          yield* visibility.choose("template", id, componentIds)
          const created = yield* reload(id)
          yield* record(created, undefined, created)
          return created
        }))
      ),

      /** A partial update; `{}` changes nothing, `updatedAt` included. */
      update: Effect.fn("IncidentTemplates.update")((id: IncidentTemplateId, changes: UpdateIncidentTemplate) =>
        transaction(Effect.gen(function*() {
          const { componentIds, isPublic, ...fields } = changes
          const before = yield* get(id)
          if (
            componentIds === undefined && isPublic === undefined &&
            Object.values(fields).every((value) => value === undefined)
          ) {
            yield* record(before, before, before)
            return before
          }
          if (!(yield* repo.update(id, fields))) return yield* Effect.fail(NotFound.of("Incident template", id))
          if (componentIds !== undefined) {
            const named = yield* existingComponents(componentIds)
            yield* repo.setComponents(id, named)
            yield* visibility.chooseAgain("template", id, named, before.componentIds)
          }
          if (isPublic !== undefined) yield* visibility.set("template", id, isPublic)
          const after = yield* reload(id)
          yield* record(after, before, after)
          return after
        }))
      ),

      remove: Effect.fn("IncidentTemplates.remove")((id: IncidentTemplateId) =>
        transaction(Effect.gen(function*() {
          const before = yield* get(id)
          if (!(yield* repo.remove(id))) return yield* Effect.fail(NotFound.of("Incident template", id))
          yield* record(before, before, undefined)
        }))
      ),

      /**
       * The incident a create request asks for: the template's fields (with `templateId`), each
       * overridden by the request's own. An unknown template is 404; a title or message that
       * neither gives is 400 with an issue per missing field. Component ids are checked by the caller.
       */
      fill: Effect.fn("IncidentTemplates.fill")(function*(request: CreateIncident) {
        const template = request.templateId === undefined ? undefined : yield* get(request.templateId)
        const title = request.title ?? template?.title
        const message = request.message ?? template?.message
        const missing: Array<Issue> = [
          ...(title === undefined ? [{ path: ["title"], message: "is missing (give it, or a templateId)" }] : []),
          ...(message === undefined ? [{ path: ["message"], message: "is missing (give it, or a templateId)" }] : [])
        ]
        if (title === undefined || message === undefined) return yield* Effect.fail(BadRequest.fromIssues(missing))
        const incident: NewIncident = {
          title,
          message,
          status: request.status ?? template?.status ?? "investigating",
          severity: request.severity ?? template?.severity ?? "minor",
          componentIds: request.componentIds ?? template?.componentIds ?? [],
          ...(request.componentIds === undefined && template !== undefined
            ? { template: template.id }
            : {})
        }
        return incident
      })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([IncidentTemplatesRepo.layer, Visibility.layer, AuditTrail.layer])
  )
}
