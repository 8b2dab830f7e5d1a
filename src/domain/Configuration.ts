/**
 * The configuration document (docs/configuration-as-code.md): everything an operator sets up
 * (organization, groups, components, incident templates, monitors, pages, webhooks, maintenance
 * to come) as one value that `status-page export` writes and `status-page apply` makes the
 * service match. Incidents, subscribers and statuses are the service's runtime data, never in it.
 *
 * Each entry is the API's creation body for its kind, with the ids it names replaced by `key`s:
 * an entry's key is its name in the document (`group: storefront` names the group whose key is
 * `storefront`), kept by the service with the entity it made (migration 0046), so applying the
 * file again updates that entity rather than making another. A page's key is its slug.
 */
import { Schema } from "effect"

import { CreateComponent } from "./Component.js"
import { CreateComponentGroup } from "./ComponentGroup.js"
import { pattern, Text } from "./Fields.js"
import { CreateIncidentTemplate } from "./IncidentTemplate.js"
import { CreateMaintenance } from "./Maintenance.js"
import { CreateMonitor, maskedHeaderValue } from "./Monitor.js"
import { UpdateOrganization } from "./Organization.js"
import { PushToken } from "./PushToken.js"
import { CreateStatusPage, PagePassword } from "./StatusPage.js"
import { CreateWebhook } from "./Webhook.js"

/** The version of the document's shape this service reads and writes. */
export const configurationVersion = 1

/**
 * A key: what the document calls an entry. Letters, digits and `._:/-`, 1–200 characters: a
 * readable name (`checkout-api`), an id (what `export` writes for an entity made elsewhere), or
 * an importer's `uptime-kuma/monitor/12`.
 */
export const ConfigurationKey = Text(200).check(
  pattern(/^[A-Za-z0-9][A-Za-z0-9._:/-]*$/, "must be letters, digits and . _ : / -, starting with a letter or digit")
).annotate({ identifier: "ConfigurationKey", examples: ["checkout-api"] })
export type ConfigurationKey = typeof ConfigurationKey.Type

/** `${VARIABLE}`: a secret's place in a file, read from the environment when it is applied. */
export const VariableReference = Schema.String.check(
  pattern(/^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/, "must be a ${VARIABLE} reference")
).annotate({
  identifier: "VariableReference",
  description: "A reference to an environment variable, read when the file is applied"
})

/**
 * A secret the sender gives no value for: the API's mask, or a reference left as it is (the
 * command line sends the mask for a variable that is not set). It keeps the stored secret.
 */
export const keepsStoredSecret = (value: string | undefined): boolean =>
  value === maskedHeaderValue || (value !== undefined && /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(value))

const Key = ConfigurationKey
const Keys = Schema.Array(Key).check(Schema.isMaxLength(100))

/** The kinds of entry, in the order `apply` creates them (each names only kinds before it). */
export const configurationKinds = [
  "group",
  "component",
  "template",
  "monitor",
  "page",
  "webhook",
  "maintenance"
] as const
export type ConfigurationKind = typeof configurationKinds[number]

const { groupId: _groupId, status: _status, ...componentFields } = CreateComponent.fields
export const ComponentEntry = Schema.Struct({
  key: Key,
  ...componentFields,
  /** The group's key; absent or null: ungrouped. */
  group: Schema.optionalKey(Schema.NullOr(Key))
}).annotate({ identifier: "ComponentEntry" })
export type ComponentEntry = typeof ComponentEntry.Type

export const GroupEntry = Schema.Struct({ key: Key, ...CreateComponentGroup.fields }).annotate({
  identifier: "GroupEntry"
})
export type GroupEntry = typeof GroupEntry.Type

const { componentIds: _templateComponents, ...templateFields } = CreateIncidentTemplate.fields
export const TemplateEntry = Schema.Struct({
  key: Key,
  ...templateFields,
  components: Schema.optionalKey(Keys)
}).annotate({ identifier: "TemplateEntry" })
export type TemplateEntry = typeof TemplateEntry.Type

const { componentId: _monitorComponent, incidentTemplateId: _monitorTemplate, pushToken: _token, ...monitorFields } =
  CreateMonitor.fields
export const MonitorEntry = Schema.Struct({
  key: Key,
  component: Key,
  ...monitorFields,
  /** push only: the token of its URL when it is made (one another tool made); a reference in an export. */
  pushToken: Schema.optionalKey(Schema.Union([PushToken, VariableReference])),
  /** The incident template its automatic incidents open from, by key. */
  incidentTemplate: Schema.optionalKey(Schema.NullOr(Key)),
  /** A paused monitor is not checked (default false). */
  paused: Schema.optionalKey(Schema.Boolean)
}).annotate({ identifier: "MonitorEntry" })
export type MonitorEntry = typeof MonitorEntry.Type

export const PageItemEntry = Schema.Struct({
  type: Schema.Literals(["component", "group"]),
  key: Key
}).annotate({ identifier: "PageItemEntry" })
export type PageItemEntry = typeof PageItemEntry.Type

const { items: _pageItems, password: _pagePassword, ...pageFields } = CreateStatusPage.fields
export const PageEntry = Schema.Struct({
  ...pageFields,
  /** A protected page's password; a reference in an export (it is stored hashed). */
  password: Schema.optionalKey(Schema.Union([PagePassword, VariableReference])),
  /** The page's layout by key; absent or null: every public component, grouped as the catalogue groups them. */
  items: Schema.optionalKey(Schema.NullOr(Schema.Array(PageItemEntry).check(Schema.isMaxLength(500))))
}).annotate({ identifier: "PageEntry" })
export type PageEntry = typeof PageEntry.Type

const { componentIds: _webhookComponents, ...webhookFields } = CreateWebhook.fields
export const WebhookEntry = Schema.Struct({
  key: Key,
  ...webhookFields,
  /** Only events about these components (by key); absent or null: every component. */
  components: Schema.optionalKey(Schema.NullOr(Keys))
}).annotate({ identifier: "WebhookEntry" })
export type WebhookEntry = typeof WebhookEntry.Type

const { componentIds: _windowComponents, ...maintenanceFields } = CreateMaintenance.fields
export const MaintenanceEntry = Schema.Struct({
  key: Key,
  ...maintenanceFields,
  components: Schema.optionalKey(Keys)
}).annotate({ identifier: "MaintenanceEntry" })
export type MaintenanceEntry = typeof MaintenanceEntry.Type

const entries = <S extends Schema.Top>(entry: S) =>
  Schema.optionalKey(Schema.Array(entry).check(Schema.isMaxLength(10000)))

export const ConfigurationDocument = Schema.Struct({
  version: Schema.Literal(configurationVersion),
  organization: Schema.optionalKey(UpdateOrganization),
  groups: entries(GroupEntry),
  components: entries(ComponentEntry),
  templates: entries(TemplateEntry),
  monitors: entries(MonitorEntry),
  pages: entries(PageEntry),
  webhooks: entries(WebhookEntry),
  maintenance: entries(MaintenanceEntry)
}).annotate({
  identifier: "ConfigurationDocument",
  title: "Status page configuration",
  description: "What `status-page apply -f` makes the service match (docs/configuration-as-code.md)."
})
export type ConfigurationDocument = typeof ConfigurationDocument.Type

/** What applying a document does (or, in a dry run, would do) to one entry. */
export const PlanAction = Schema.Literals(["create", "update", "delete", "unchanged"])
export type PlanAction = typeof PlanAction.Type

export const PlanStep = Schema.Struct({
  kind: Schema.Literals(["organization", ...configurationKinds, "incident", "subscriber"]),
  key: Schema.String,
  action: PlanAction,
  /** The fields an update changes. */
  fields: Schema.optionalKey(Schema.Array(Schema.String)),
  /**
   * Shown once, on a creation: a generic webhook's signing secret, or the token of a push
   * monitor's new URL (made when the document gives none).
   */
  secret: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "PlanStep" })
export type PlanStep = typeof PlanStep.Type
