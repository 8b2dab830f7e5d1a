/**
 * Applies what an importer read from another tool (src/domain/ImportBundle.ts; docs/migrating.md)
 * in one transaction: its configuration as `apply` would (never pruning), then the components'
 * statuses, the incident history and the subscribers. Every record is found again by its key on
 * the next import: an incident the source has added to since gets the new entries, what is the
 * same is left alone, so importing twice makes nothing twice. A dry run rolls it all back.
 *
 * History is written as history: no subscriber is mailed and no webhook called for an incident
 * that happened at the old tool, or for a subscriber it already confirmed.
 */
import { Context, Effect, Layer } from "effect"

import type { ComponentId } from "../../domain/Component.js"
import type { PlanStep } from "../../domain/Configuration.js"
import { BadRequest } from "../../domain/Errors.js"
import type { ImportBundle } from "../../domain/ImportBundle.js"
import { ComponentsRepo } from "../../persistence/ComponentsRepo.js"
import { ConfigurationKeysRepo } from "../../persistence/ConfigurationKeysRepo.js"
import { ImportsRepo } from "../../persistence/ImportsRepo.js"
import { StatusPagesRepo } from "../../persistence/StatusPagesRepo.js"
import { Visibility } from "../../persistence/Visibility.js"
import { Components } from "../catalog/Components.js"
import { touch } from "../StateChanges.js"
import { ConfigurationApply } from "./ConfigurationApply.js"

export class Imports extends Context.Service<Imports>()("Imports", {
  make: Effect.gen(function*() {
    const configuration = yield* ConfigurationApply
    const repo = yield* ImportsRepo
    const keys = yield* ConfigurationKeysRepo
    const components = yield* Components
    const componentsRepo = yield* ComponentsRepo
    const pages = yield* StatusPagesRepo
    const visibility = yield* Visibility

    const records = Effect.fn("Imports.records")(function*(bundle: ImportBundle) {
      const { idOf, plan } = yield* configuration.within(bundle.configuration, false)
      const extra: Array<PlanStep> = []
      const component = (key: string, where: string) =>
        Effect.suspend(() => {
          const id = idOf("component", key)
          return id === undefined
            ? Effect.fail(
              new BadRequest({ message: `${where}: names component "${key}", which the import does not define` })
            )
            : Effect.succeed(id as ComponentId)
        })

      for (const [key, status] of Object.entries(bundle.componentStatuses ?? {})) {
        const id = yield* component(key, `componentStatuses[${key}]`)
        const current = yield* componentsRepo.findById(id)
        if (current._tag === "Some" && current.value.status !== status) {
          yield* components.setStatus(id, status)
          extra.push({ kind: "component", key, action: "update", fields: ["status"] })
        }
      }

      const incidentKeys = new Map(
        (yield* keys.all()).filter((row) => row.kind === "incident").map((row) => [row.key, row.entityId])
      )
      for (const incident of bundle.incidents ?? []) {
        const where = `incidents[${incident.key}]`
        const componentIds = yield* Effect.forEach(incident.components, (key) => component(key, where))
        const existing = incidentKeys.get(incident.key)
        const known = existing === undefined ? undefined : yield* repo.updateCount(existing)
        if (existing !== undefined && known !== undefined && known > 0) {
          // The source's timeline grew since the last import: its new entries are added.
          if (incident.updates.length > known) {
            yield* repo.extendIncident(existing, incident.updates.slice(known))
            extra.push({ kind: "incident", key: incident.key, action: "update", fields: ["updates"] })
          } else extra.push({ kind: "incident", key: incident.key, action: "unchanged" })
          continue
        }
        const id = yield* repo.insertIncident({ ...incident, componentIds })
        yield* visibility.choose("incident", id, componentIds)
        yield* keys.set("incident", incident.key, id)
        extra.push({ kind: "incident", key: incident.key, action: "create" })
      }
      if ((bundle.incidents ?? []).length > 0) yield* touch({ incidents: "all" })

      for (const subscriber of bundle.subscribers ?? []) {
        const where = `subscribers[${subscriber.email}]`
        const page = yield* pages.findBySlug(subscriber.page)
        if (page._tag === "None") {
          return yield* new BadRequest({ message: `${where}: names page "${subscriber.page}", which does not exist` })
        }
        if (yield* repo.hasSubscriber(page.value.id, subscriber.email)) {
          extra.push({ kind: "subscriber", key: subscriber.email, action: "unchanged" })
          continue
        }
        const componentIds = subscriber.components === null
          ? null
          : yield* Effect.forEach(subscriber.components, (key) => component(key, where))
        yield* repo.insertSubscriber({
          email: subscriber.email,
          pageId: page.value.id,
          locale: page.value.locale,
          componentIds,
          subscribedAt: subscriber.subscribedAt
        })
        extra.push({ kind: "subscriber", key: subscriber.email, action: "create" })
      }
      return [...plan, ...extra]
    })

    return {
      apply: Effect.fn("Imports.apply")((bundle: ImportBundle, options: { readonly dryRun: boolean }) =>
        configuration.transact(records(bundle), options.dryRun)
      )
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([
      ConfigurationApply.layer,
      Components.layer,
      ImportsRepo.layer,
      ConfigurationKeysRepo.layer,
      ComponentsRepo.layer,
      StatusPagesRepo.layer,
      Visibility.layer
    ])
  )
}
