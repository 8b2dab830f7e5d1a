/**
 * What an importer (`status-page import uptime-kuma|statuspage`) reads from another tool, in
 * this service's terms: a configuration document (src/domain/Configuration.ts) for what is set
 * up, and the runtime data it brings along (component statuses, incident history,
 * subscribers). Keys are the source's ids, prefixed (`uptime-kuma/monitor/12`,
 * `statuspage/component/abc`), so importing again finds what the last import made.
 */
import { Schema } from "effect"

import { ComponentStatus } from "./Component.js"
import { ConfigurationDocument, ConfigurationKey } from "./Configuration.js"
import { IncidentMessage, IncidentSeverity, IncidentStatus, IncidentTitle } from "./Incident.js"
import { Slug } from "./StatusPage.js"
import { EmailAddress } from "./Subscriber.js"
import { UtcTimestamp } from "./Timestamps.js"

export const ImportedIncidentUpdate = Schema.Struct({
  status: IncidentStatus,
  message: IncidentMessage,
  createdAt: UtcTimestamp
}).annotate({ identifier: "ImportedIncidentUpdate" })
export type ImportedIncidentUpdate = typeof ImportedIncidentUpdate.Type

/**
 * An incident of the source, history and all: its timeline oldest first (at least one entry;
 * the last one's status is the incident's), resolved when that status is `resolved`.
 */
export const ImportedIncident = Schema.Struct({
  key: ConfigurationKey,
  title: IncidentTitle,
  severity: IncidentSeverity,
  /** The components it affected, by key. */
  components: Schema.Array(ConfigurationKey).check(Schema.isMaxLength(100)),
  updates: Schema.Array(ImportedIncidentUpdate).check(Schema.isMinLength(1), Schema.isMaxLength(1000))
}).annotate({ identifier: "ImportedIncident" })
export type ImportedIncident = typeof ImportedIncident.Type

/**
 * A subscriber of the source's page, imported already confirmed: they confirmed their address
 * with the old page (imported only on the operator's `--import-subscribers`).
 */
export const ImportedSubscriber = Schema.Struct({
  email: EmailAddress,
  /** The page (by slug) they follow. */
  page: Slug,
  /** The components they follow, by key; null: every component. */
  components: Schema.NullOr(Schema.Array(ConfigurationKey).check(Schema.isMaxLength(100))),
  subscribedAt: UtcTimestamp
}).annotate({ identifier: "ImportedSubscriber" })
export type ImportedSubscriber = typeof ImportedSubscriber.Type

/** A record of the source left out, and why (printed with the plan; never sent to the service). */
export interface SkippedRecord {
  /** The record as the source names it: `monitor 7 "Status of X" (type steam)`. */
  readonly record: string
  readonly reason: string
}

export const ImportBundle = Schema.Struct({
  configuration: ConfigurationDocument,
  /** The components' current statuses at the source, by key (Statuspage has them; Uptime Kuma's monitors find their own). */
  componentStatuses: Schema.optionalKey(Schema.Record(ConfigurationKey, ComponentStatus)),
  incidents: Schema.optionalKey(Schema.Array(ImportedIncident).check(Schema.isMaxLength(10000))),
  subscribers: Schema.optionalKey(Schema.Array(ImportedSubscriber).check(Schema.isMaxLength(100000)))
}).annotate({ identifier: "ImportBundle" })
export type ImportBundle = typeof ImportBundle.Type

/** What an importer reads: the bundle, and what it left out. */
export interface ImportRead {
  readonly bundle: ImportBundle
  readonly skipped: ReadonlyArray<SkippedRecord>
}
