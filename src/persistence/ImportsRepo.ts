/**
 * The records an import brings along that no API call makes as they were (docs/migrating.md):
 * incidents with their past timeline, and subscribers who confirmed their address with the old
 * page. Written as history: no event, no mail, no webhook.
 */
import { randomBytes } from "node:crypto"

import { Context, DateTime, Effect, Layer } from "effect"

import type { ComponentId } from "../domain/Component.js"
import type { ImportedIncidentUpdate } from "../domain/ImportBundle.js"
import type { IncidentId, IncidentSeverity, IncidentStatus } from "../domain/Incident.js"
import type { Locale } from "../domain/Locale.js"
import { replaceComponents } from "./ComponentLinks.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"

const dateOf = (at: DateTime.Utc) => DateTime.toDateUtc(at)

export class ImportsRepo extends Context.Service<ImportsRepo>()("ImportsRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient

    /** Appends timeline entries at their own times. */
    const addUpdates = (id: string, updates: ReadonlyArray<ImportedIncidentUpdate>) =>
      orUnavailable(
        Effect.forEach(updates, (update) =>
          sql`insert into incident_updates (incident_id, status, message, created_at)
            values (${id}, ${update.status}, ${update.message}, ${dateOf(update.createdAt)})`, { discard: true })
      )

    return {
      /** A published incident with its timeline; its visibility is the caller's (Visibility). */
      insertIncident: (input: {
        readonly title: string
        readonly severity: IncidentSeverity
        readonly updates: ReadonlyArray<ImportedIncidentUpdate>
        readonly componentIds: ReadonlyArray<ComponentId>
      }) =>
        Effect.gen(function*() {
          const first = input.updates[0]!
          const last = input.updates[input.updates.length - 1]!
          const status: IncidentStatus = last.status
          const rows = yield* orUnavailable(sql<{ id: IncidentId }>`
            insert into incidents (title, status, severity, chosen_public, published, source, created_at, updated_at,
                                   resolved_at)
            values (${input.title}, ${status}, ${input.severity}, false, true, 'manual', ${dateOf(first.createdAt)},
                    ${dateOf(last.createdAt)}, ${status === "resolved" ? dateOf(last.createdAt) : null})
            returning id`)
          const id = rows[0]!.id
          yield* addUpdates(id, input.updates)
          yield* replaceComponents(sql, "incident", id, input.componentIds)
          return id
        }),

      /** How many timeline entries an incident has. */
      updateCount: (id: string) =>
        orUnavailable(
          sql<{ count: number }>`select count(*)::int as count from incident_updates where incident_id = ${id}`
        )
          .pipe(Effect.map((rows) => rows[0]?.count ?? 0)),

      /** Appends the entries the source added since, and takes the last one's status. */
      extendIncident: (id: string, updates: ReadonlyArray<ImportedIncidentUpdate>) =>
        Effect.gen(function*() {
          const last = updates[updates.length - 1]!
          yield* addUpdates(id, updates)
          yield* orUnavailable(sql`
            update incidents set status = ${last.status}, updated_at = ${dateOf(last.createdAt)},
              resolved_at = case when ${last.status} = 'resolved' then ${dateOf(last.createdAt)} end
            where id = ${id}`)
        }),

      /** Whether the page has a subscription of the address. */
      hasSubscriber: (pageId: string, email: string) =>
        orUnavailable(sql`select 1 from subscribers where page_id = ${pageId} and email = ${email}`)
          .pipe(Effect.map((rows) => rows.length > 0)),

      /** A confirmed subscriber of the page, to the given components (null: all). */
      insertSubscriber: (input: {
        readonly email: string
        readonly pageId: string
        readonly locale: Locale
        readonly componentIds: ReadonlyArray<string> | null
        readonly subscribedAt: DateTime.Utc
      }) =>
        Effect.gen(function*() {
          const at = dateOf(input.subscribedAt)
          const rows = yield* orUnavailable(sql<{ id: string }>`
            insert into subscribers (email, page_id, locale, unsubscribe_token, all_components, verified_at, created_at)
            values (${input.email}, ${input.pageId}, ${input.locale}, ${randomBytes(32).toString("base64url")},
                    ${input.componentIds === null}, ${at}, ${at})
            returning id`)
          if (input.componentIds !== null && input.componentIds.length > 0) {
            yield* orUnavailable(sql`
              insert into subscriber_components (subscriber_id, component_id)
              select ${rows[0]!.id}, id from components where id = any(${[...input.componentIds]}::text[])`)
          }
        })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
