/**
 * The reading half of `status-page import uptime-kuma <kuma.db>`: an Uptime Kuma 2.x SQLite
 * database as an ImportBundle (src/domain/ImportBundle.ts), with each record left out and why
 * (docs/migrating.md, "From Uptime Kuma", tabulates the mapping). The file is opened read-only
 * with node:sqlite and only read; a running Kuma may keep writing to it meanwhile.
 *
 * Keys are Kuma's ids: `uptime-kuma/monitor/3` names both the component and the monitor made of
 * monitor 3 (keys are per kind), `uptime-kuma/group/2` the group made of page section 2; a page's
 * key is its slug. Every entry is checked against the API's schema as it is made, and a record
 * whose entry would be refused is skipped with the schema's words; a file that is not Kuma's
 * database, or a record that cannot be read (a JSON column that is not JSON), is an
 * ImportSourceError naming the file and the record.
 */
import { statSync } from "node:fs"
import { resolve } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { pathToFileURL } from "node:url"

import { Clock, Effect, Schema } from "effect"

import type { ComponentStatus } from "../../domain/Component.js"
import type { ConfigurationDocument } from "../../domain/Configuration.js"
import { ImportBundle, ImportedIncident, type ImportRead, type SkippedRecord } from "../../domain/ImportBundle.js"
import type { IncidentSeverity } from "../../domain/Incident.js"
import { ImportSourceError } from "./ImportSourceError.js"
import { kumaLayout } from "./kumaLayout.js"
import { kumaMaintenance } from "./kumaMaintenance.js"
import { kumaMonitor, type KumaMonitorOutcome, monitorKey } from "./kumaMonitor.js"
import { kumaNotification } from "./kumaNotification.js"
import { checkedEntry, flag, idOf, type KumaRow, num, recordName, skip, text, utcOfKuma } from "./KumaRow.js"

/** The tables read whole (each has an `id`); an older Kuma lacking one reads it as empty. */
const readTables = [
  "monitor",
  "status_page",
  "group",
  "monitor_group",
  "status_page_cname",
  "incident",
  "maintenance",
  "monitor_maintenance",
  "notification",
  "monitor_notification",
  "tag",
  "monitor_tag",
  "setting"
] as const
type ReadTable = typeof readTables[number]

/** Tables only counted: what they hold is not imported, which the plan says. */
const countedTables = {
  heartbeat: "check history is not imported: the monitors start their history here",
  user: "accounts are not imported: invite the team here",
  api_key: "Kuma's API keys are not imported: make keys here (status-page api-key)",
  proxy: "proxies are not imported: probes call their targets directly"
} as const

interface KumaData {
  readonly rows: Readonly<Record<ReadTable, ReadonlyArray<KumaRow>>>
  readonly counts: Readonly<Record<keyof typeof countedTables, number>>
}

const reasonOf = (error: unknown) => error instanceof Error ? error.message : String(error)

const fault = (path: string, message: string) => new ImportSourceError({ message: `${path}: ${message}` })

const readDatabase = (path: string, database: DatabaseSync): Effect.Effect<KumaData, ImportSourceError> =>
  Effect.gen(function*() {
    const present = yield* Effect.try({
      try: () =>
        new Set(
          database.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((row) => String(row.name))
        ),
      catch: (error) => fault(path, `is not an SQLite database (${reasonOf(error)})`)
    })
    if (!present.has("monitor")) {
      return yield* fault(path, "is an SQLite database, but not Uptime Kuma's: it has no monitor table")
    }
    const query = <A>(table: string, read: () => A) =>
      Effect.try({ try: read, catch: (error) => fault(path, `cannot read its ${table} table (${reasonOf(error)})`) })
    const rows = {} as Record<ReadTable, ReadonlyArray<KumaRow>>
    for (const table of readTables) {
      rows[table] = present.has(table)
        ? yield* query(table, () => database.prepare(`SELECT * FROM "${table}" ORDER BY id`).all())
        : []
    }
    const counts = {} as Record<keyof typeof countedTables, number>
    for (const table of Object.keys(countedTables) as Array<keyof typeof countedTables>) {
      counts[table] = present.has(table)
        ? yield* query(table, () => num(database.prepare(`SELECT count(*) AS n FROM "${table}"`).get() ?? {}, "n") ?? 0)
        : 0
    }
    return { rows, counts }
  })

/** Kuma's incident styles as severities. */
const severities: Readonly<Record<string, IncidentSeverity>> = { danger: "major", warning: "minor" }

const maxKeys = 100

/** Kuma's `serverTimezone` setting (settings hold JSON), or null. */
const serverTimeZone = (settings: ReadonlyArray<KumaRow>): string | null => {
  const value = text(settings.find((row) => text(row, "key") === "serverTimezone") ?? {}, "value")
  if (value === null) return null
  try {
    const parsed: unknown = JSON.parse(value)
    return typeof parsed === "string" && parsed !== "" ? parsed : null
  } catch {
    return value
  }
}

type Imported = Extract<KumaMonitorOutcome, { _tag: "Imported" }>

const bundleOf = (data: KumaData, now: number): Effect.Effect<ImportRead, ImportSourceError> =>
  Effect.gen(function*() {
    const { rows } = data
    const skipped: Array<SkippedRecord> = []

    const imported = new Map<number, Imported>()
    for (const row of rows.monitor) {
      if (text(row, "type") === "group") continue
      const outcome = yield* kumaMonitor(row)
      if (outcome._tag === "Skipped") {
        skipped.push(outcome.skipped)
      } else {
        imported.set(idOf(row), outcome)
        skipped.push(...outcome.notes)
      }
    }
    const layout = kumaLayout({
      monitors: rows.monitor,
      imported: new Set(imported.keys()),
      pages: rows.status_page,
      sections: rows.group,
      sectionMonitors: rows.monitor_group,
      domains: rows.status_page_cname
    })
    skipped.push(...layout.skipped)
    const components = layout.order.map((id) => {
      const group = layout.groupOf.get(id)
      return {
        key: monitorKey(id),
        ...imported.get(id)!.component,
        ...(group === undefined ? {} : { group }),
        isPublic: layout.shown.has(id)
      }
    })
    const monitors = layout.order.flatMap((id) => {
      const monitor = imported.get(id)!.monitor
      return monitor === null ? [] : [{ key: monitorKey(id), component: monitorKey(id), ...monitor }]
    })
    const componentStatuses: Record<string, ComponentStatus> = {}
    for (const [id, outcome] of imported) {
      if (outcome.status !== null) componentStatuses[monitorKey(id)] = outcome.status
    }
    /** The keys of the imported components among Kuma's monitor ids, in the components' order. */
    const keysOf = (ids: ReadonlyArray<number>) => layout.order.filter((id) => ids.includes(id)).map(monitorKey)

    const incidents: Array<typeof ImportedIncident.Encoded> = []
    for (const row of rows.incident) {
      const title = text(row, "title") ?? ""
      const record = recordName("incident", row, title)
      const onPage = layout.pageMonitors.get(num(row, "status_page_id") ?? 0)
      const createdAt = utcOfKuma(text(row, "created_date"))
      if (!flag(row, "pin")) {
        skipped.push(
          skip(record, "it is no longer pinned on its page: Kuma shows it no more, and keeps no timeline of it")
        )
      } else if (onPage === undefined) {
        skipped.push(skip(record, "its status page was not imported"))
      } else if (createdAt === null) {
        skipped.push(skip(record, "its created_date is not a date"))
      } else {
        const style = text(row, "style") ?? ""
        const keys = keysOf(onPage)
        // It shows on the pages that show one of its components: those of its Kuma page.
        if (keys.length === 0) {
          skipped.push(skip(`${record}: page`, "its page shows no imported monitor: it shows on the default page only"))
        }
        if (keys.length > maxKeys) {
          skipped.push(skip(`${record}: page`, `it names the first ${maxKeys} of its page's components`))
        }
        const incident = {
          key: `uptime-kuma/incident/${idOf(row)}`,
          title,
          severity: severities[style] ?? "none",
          components: keys.slice(0, maxKeys),
          updates: [{ status: "investigating" as const, message: text(row, "content")?.trim() || title, createdAt }]
        }
        const checked = checkedEntry(ImportedIncident, incident)
        if ("problem" in checked) skipped.push(skip(record, `it would be refused: ${checked.problem}`))
        else incidents.push(incident)
      }
    }

    const maintenance: Array<NonNullable<typeof ConfigurationDocument.Encoded["maintenance"]>[number]> = []
    const zone = serverTimeZone(rows.setting)
    for (const row of rows.maintenance) {
      const named = rows.monitor_maintenance.filter((link) => num(link, "maintenance_id") === idOf(row))
      const keys = keysOf(named.map((link) => num(link, "monitor_id") ?? 0))
      if (keys.length > maxKeys) {
        skipped.push(
          skip(recordName("maintenance", row, text(row, "title")), `it names the first ${maxKeys} of its monitors`)
        )
      }
      const outcome = yield* kumaMaintenance({ row, components: keys.slice(0, maxKeys), serverTimeZone: zone, now })
      maintenance.push(...outcome.entries)
      skipped.push(...outcome.skipped)
    }

    const webhooks: Array<NonNullable<typeof ConfigurationDocument.Encoded["webhooks"]>[number]> = []
    for (const row of rows.notification) {
      const users = rows.monitor_notification.filter((link) => num(link, "notification_id") === idOf(row))
      const outcome = yield* kumaNotification(row, keysOf(users.map((link) => num(link, "monitor_id") ?? 0)))
      if (outcome.webhook !== null) webhooks.push(outcome.webhook)
      skipped.push(...outcome.skipped)
    }

    for (const row of rows.tag) {
      const uses = rows.monitor_tag.filter((link) => num(link, "tag_id") === idOf(row)).length
      skipped.push(
        skip(
          recordName("tag", row, text(row, "name")),
          `tags have no counterpart here (it is on ${uses} monitor${uses === 1 ? "" : "s"})`
        )
      )
    }
    for (const [table, reason] of Object.entries(countedTables)) {
      const count = data.counts[table as keyof typeof countedTables]
      if (count > 0) skipped.push(skip(`${table} (${count} row${count === 1 ? "" : "s"})`, reason))
    }

    // An empty kind is left out rather than sent empty: the bundle adds to the service, it does not list all it holds.
    const some = <A>(name: string, entries: ReadonlyArray<A>) => entries.length === 0 ? {} : { [name]: entries }
    const encoded = {
      configuration: {
        version: 1,
        ...some("groups", layout.groups),
        ...some("components", components),
        ...some("monitors", monitors),
        ...some("pages", layout.pages),
        ...some("webhooks", webhooks),
        ...some("maintenance", maintenance)
      },
      ...(Object.keys(componentStatuses).length === 0 ? {} : { componentStatuses }),
      ...some("incidents", incidents)
    }
    const bundle = yield* Schema.decodeUnknownEffect(ImportBundle)(encoded).pipe(
      Effect.mapError((error) =>
        new ImportSourceError({ message: `what it holds does not fit one import: ${error.message}` })
      )
    )
    return { bundle, skipped }
  })

/**
 * Where SQLite opens `path`. A database in WAL mode gets a `-shm` file written beside it even when
 * it is only read; one whose write-ahead log is absent or empty (a stopped Kuma's, a copy) holds
 * everything in its file, so it is opened immutable and nothing is written beside it. One with a
 * log (a running Kuma's) is opened as usual, to read the writes still in the log.
 */
const location = (path: string): string | URL => {
  if ((statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0) > 0) return path
  const url = pathToFileURL(resolve(path))
  url.searchParams.set("immutable", "1")
  return url
}

/** Reads the Uptime Kuma database at `path` (read-only) as a bundle and what it leaves out. */
export const readUptimeKuma = Effect.fn("readUptimeKuma")(function*(path: string) {
  const now = yield* Clock.currentTimeMillis
  return yield* Effect.acquireUseRelease(
    Effect.try({
      try: () => new DatabaseSync(location(path), { readOnly: true }),
      catch: (error) => fault(path, `cannot be opened (${reasonOf(error)})`)
    }),
    (database) =>
      readDatabase(path, database).pipe(
        Effect.flatMap((data) => bundleOf(data, now)),
        Effect.mapError((error) => error.message.startsWith(`${path}: `) ? error : fault(path, error.message))
      ),
    (database) => Effect.sync(() => database.close())
  )
}) satisfies (path: string) => Effect.Effect<ImportRead, ImportSourceError>
