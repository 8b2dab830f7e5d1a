/**
 * An Uptime Kuma notification (its `notification` table; what it sends is in `config`) as a
 * webhook here, when one sends to the same place: Slack, Discord and Microsoft Teams incoming
 * webhooks (our chat formats), PagerDuty and Opsgenie (our on-call formats). Kuma tells them of
 * its monitors going down and up, so the webhook is told of monitor events only, for the
 * components of the monitors that used it. Kuma's own `webhook` type is not one: its receiver
 * reads Kuma's body, and ours sends a different, signed one.
 */
import { Effect } from "effect"

import { WebhookEntry } from "../../domain/Configuration.js"
import type { SkippedRecord } from "../../domain/ImportBundle.js"
import type { ImportSourceError } from "./ImportSourceError.js"
import { checkedEntry, flag, idOf, jsonColumn, type KumaRow, recordName, skip, text } from "./KumaRow.js"

export interface KumaNotificationOutcome {
  readonly webhook: typeof WebhookEntry.Encoded | null
  readonly skipped: ReadonlyArray<SkippedRecord>
}

const maxComponents = 100

const field = (config: Record<string, unknown>, name: string): string | null =>
  typeof config[name] === "string" && config[name].trim() !== "" ? config[name].trim() : null

/** Where each Kuma type sends, as our webhook type, URL and key; a string says why not. */
const destination = (
  type: string,
  config: Record<string, unknown>
):
  | { readonly type: typeof WebhookEntry.Encoded["type"]; readonly url: string | null; readonly key?: string | null }
  | string =>
{
  switch (type) {
    case "slack":
      return { type: "chat_a", url: field(config, "slackwebhookURL") }
    case "discord":
      return { type: "chat_b", url: field(config, "discordWebhookUrl") }
    case "teams":
      return { type: "chat_c", url: field(config, "webhookUrl") }
    case "PagerDuty":
    case "pagerduty":
      return {
        type: "pagerduty",
        url: field(config, "pagerdutyIntegrationUrl") ?? "https://events.pagerduty.com/v2/enqueue",
        key: field(config, "pagerdutyIntegrationKey")
      }
    case "Opsgenie":
    case "opsgenie":
      return {
        type: "opsgenie",
        url: field(config, "opsgenieRegion") === "eu"
          ? "https://api.eu.opsgenie.com/v2/alerts"
          : "https://api.opsgenie.com/v2/alerts",
        key: field(config, "opsgenieApiKey")
      }
    case "webhook":
      return "its receiver reads Kuma's body; a webhook here sends its own, signed: add a generic webhook once the receiver reads ours"
    default:
      return `there is no ${type} webhook here (ours: Slack, Discord, Microsoft Teams, PagerDuty, Opsgenie, generic)`
  }
}

/** Kuma's notification `row` as a webhook, given the component keys of the imported monitors that used it. */
export const kumaNotification = (
  row: KumaRow,
  components: ReadonlyArray<string>
): Effect.Effect<KumaNotificationOutcome, ImportSourceError> =>
  Effect.gen(function*() {
    const record = recordName("notification", row, text(row, "name"))
    const config = yield* jsonColumn(record, row, "config")
    const settings = typeof config === "object" && config !== null && !Array.isArray(config)
      ? config as Record<string, unknown>
      : {}
    const type = field(settings, "type") ?? "(none)"
    const none = (reason: string): KumaNotificationOutcome => ({
      webhook: null,
      skipped: [skip(`${record} (type ${type})`, reason)]
    })
    const target = destination(type, settings)
    if (typeof target === "string") return none(target)
    if (target.url === null) return none("it has no URL")
    if (target.key === null) return none("it has no integration key")
    if (components.length === 0) return none("no imported monitor uses it")
    const skipped: Array<SkippedRecord> = []
    if (components.length > maxComponents) {
      skipped.push(
        skip(
          `${record}: monitors`,
          `more than ${maxComponents} monitors use it: the webhook is told of every component`
        )
      )
    }
    const webhook = {
      key: `uptime-kuma/notification/${idOf(row)}`,
      name: text(row, "name") ?? field(settings, "name") ?? type,
      url: target.url,
      type: target.type,
      isActive: flag(row, "active"),
      notifyOnIncident: false,
      notifyOnMaintenance: false,
      notifyOnComponentChange: false,
      notifyOnMonitor: true,
      ...(target.key === undefined ? {} : { integrationKey: target.key }),
      components: components.length > maxComponents ? null : components
    }
    const checked = checkedEntry(WebhookEntry, webhook)
    if ("problem" in checked) return none(`it would be refused: ${checked.problem}`)
    return { webhook, skipped }
  })
