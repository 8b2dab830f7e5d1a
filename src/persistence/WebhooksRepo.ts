import { Context, Effect, Layer, Schema } from "effect"
import type { SqlClient, Statement } from "effect/sql"

import type { EventName } from "../domain/NotificationEvent.js"
import { toggleOf } from "../domain/NotificationEvent.js"
import type { PageRequest } from "../domain/Page.js"
import type { CreateWebhook, UpdateWebhook } from "../domain/Webhook.js"
import { isOnCallType, Webhook, WebhookId, WebhookType } from "../domain/Webhook.js"
import { type Keyset, readPage } from "./Keyset.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { definedFields, rowsOf, updateById } from "./Rows.js"

/** component_ids is jsonb: arrays go in as JSON text. */
const componentIdsParam = (ids: ReadonlyArray<string> | null) => (ids === null ? null : JSON.stringify(ids))

/**
 * What a delivery needs of a webhook it goes to: read for every webhook an event fans out to,
 * so only these columns, not the whole webhook.
 */
const Recipient = Schema.Struct({
  id: WebhookId,
  url: Schema.String,
  type: WebhookType,
  secret: Schema.NullOr(Schema.String)
})
export type Recipient = typeof Recipient.Type

/**
 * Whether webhook `w` receives an event (docs/notifications.md, "Who receives what"): active, with the event's
 * toggle on, and either no component filter or one that shares a component with the event.
 * `toggle` is the event's NotifyToggle (`toggleOf`), `componentIds` its component ids as a
 * jsonb array: parameters, or columns of a set of events.
 */
export const receivesEvent = (sql: SqlClient.SqlClient, toggle: Statement.Fragment, componentIds: Statement.Fragment) =>
  sql`w.is_active
    and case ${toggle} when 'notifyOnIncident' then w.notify_on_incident
                       when 'notifyOnMaintenance' then w.notify_on_maintenance
                       when 'notifyOnMonitor' then w.notify_on_monitor
                       else w.notify_on_component_change end
    and (w.component_ids is null or w.component_ids ?| array(select jsonb_array_elements_text(${componentIds})))`

/** Webhooks in the order they were made. */
const webhooksInOrder: Keyset = {
  list: "webhooks",
  keys: [{ sql: "created_at", type: "timestamptz" }, { sql: "id", type: "text" }]
}

export class WebhooksRepo extends Context.Service<WebhooksRepo>()("WebhooksRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const webhooks = rowsOf(Webhook)
    const recipients = rowsOf(Recipient)

    return {
      findPage: (page: PageRequest) =>
        readPage(
          sql,
          webhooksInOrder,
          page,
          (p) => sql`select *, ${p.pageKey} from webhooks where ${p.after} ${p.orderBy} ${p.limit}`,
          webhooks.all
        ),

      findById: (id: WebhookId) => webhooks.first(sql`select * from webhooks where id = ${id}`),

      /**
       * Fills the defaults of CreateWebhook: active, no component filter; the chat and generic types
       * with the incident, maintenance and component toggles on and monitor events off, the on-call
       * types with monitor events only (docs/notifications.md, "On-call webhooks").
       */
      insert: (input: CreateWebhook, secret: string | null) => {
        const onCall = isOnCallType(input.type)
        return webhooks.one(sql`
          insert into webhooks (name, url, type, is_active, secret, notify_on_incident, notify_on_maintenance,
                                notify_on_component_change, notify_on_monitor, component_ids)
          values (${input.name}, ${input.url}, ${input.type}, ${input.isActive ?? true}, ${secret},
                  ${input.notifyOnIncident ?? !onCall}, ${input.notifyOnMaintenance ?? !onCall},
                  ${input.notifyOnComponentChange ?? !onCall}, ${input.notifyOnMonitor ?? onCall},
                  ${componentIdsParam(input.componentIds ?? null)}::jsonb)
          returning *`)
      },

      update: (id: WebhookId, changes: UpdateWebhook) => {
        const { componentIds, integrationKey, type: _type, ...columns } = definedFields(changes)
        const fields: Record<string, unknown> = { ...columns }
        // An on-call webhook's key is kept where a generic one's secret is: no answer shows either.
        if (integrationKey !== undefined) fields.secret = integrationKey
        if (componentIds !== undefined) fields.componentIds = sql`${componentIdsParam(componentIds)}::jsonb`
        return webhooks.first(updateById(sql, "webhooks", id, fields))
      },

      toggle: (id: WebhookId) =>
        webhooks.first(
          sql`update webhooks set is_active = not is_active, updated_at = now() where id = ${id} returning *`
        ),

      /**
       * Deletes a webhook (its deliveries and attempts go with it) and returns it as it was; none
       * when there was none. Its deliveries are locked first, in id order, as the dispatcher locks
       * them before it updates the webhook's counters: a delete that took the webhook first and
       * cascaded to a delivery the dispatcher held would close a cycle with it (a deadlock the
       * fuzzer met as a 500).
       */
      remove: (id: WebhookId) =>
        webhooks.first(sql.withTransaction(Effect.andThen(
          sql`select from webhook_deliveries where webhook_id = ${id} order by id for update`,
          sql`delete from webhooks where id = ${id} returning *`
        ))),

      /** Reads and locks the row until the transaction ends (an update compares before and after). */
      findByIdForUpdate: (id: WebhookId) => webhooks.first(sql`select * from webhooks where id = ${id} for update`),

      /** The webhooks an event goes to (`receivesEvent`). */
      findRecipients: (event: EventName, componentIds: ReadonlyArray<string>) =>
        recipients.all(sql`
          select id, url, type, secret from webhooks w
          where ${receivesEvent(sql, sql`${toggleOf(event)}`, sql`${JSON.stringify(componentIds)}::jsonb`)}
          order by created_at, id`)
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
