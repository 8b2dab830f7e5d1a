/**
 * The reading half of `status-page import statuspage <dir>` (docs/migrating.md, "From Atlassian
 * Statuspage"): an export of Statuspage's manage API (StatuspageExport.ts) in this service's
 * terms, an ImportBundle. Statuspage's ids become keys (`statuspage/component/8kbf7d35c070`), so
 * importing again finds what the last import made; what has no counterpart here is left out, each
 * with its reason. Nothing is sent: the command applies the bundle.
 */
import { DateTime, Effect, Option, Schema } from "effect"

import type { ComponentStatus } from "../../domain/Component.js"
import {
  type ComponentEntry,
  configurationVersion,
  type GroupEntry,
  type MaintenanceEntry,
  type PageEntry,
  type PageItemEntry
} from "../../domain/Configuration.js"
import type { ImportedIncident, ImportedSubscriber, ImportRead, SkippedRecord } from "../../domain/ImportBundle.js"
import { TimeZone } from "../../domain/Organization.js"
import { DomainName, Slug } from "../../domain/StatusPage.js"
import { EmailAddress } from "../../domain/Subscriber.js"
import type { ImportSourceError } from "./ImportSourceError.js"
import {
  componentStatuses,
  incidentStatuses,
  maintenanceToCome,
  named,
  otherModes,
  pageSettingsLeftOut,
  readExport,
  refused,
  severities,
  type SourceComponent,
  type SourceIncident,
  type SourceIncidentUpdate,
  type SourcePage,
  type SourceSubscriber,
  type StatuspageExport,
  statuspageFiles,
  statusSentence
} from "./StatuspageExport.js"

const keyOf = (kind: "component" | "group" | "incident" | "maintenance", id: string) => `statuspage/${kind}/${id}`
const utc = (value: string) => DateTime.makeUnsafe(value)

// ---------------------------------------------------------------------------------------------
// The reading

/** What is left out as the reading goes, and texts made to fit. */
const makeNotes = () => {
  const skipped: Array<SkippedRecord> = []
  const skip = (record: string, reason: string) => void skipped.push({ record, reason })
  /** `text` trimmed, and cut to `max` characters (ending in an ellipsis) when longer, which is noted. */
  const fit = (text: string, max: number, record: string, field: string) => {
    const trimmed = text.trim()
    if (trimmed.length <= max) return trimmed
    skip(`${record}: ${field}`, `longer than ${max} characters: cut to fit`)
    // Never half a surrogate pair: PostgreSQL stores none.
    return `${trimmed.slice(0, max - 1).replace(/[\uD800-\uDBFF]$/, "").trimEnd()}…`
  }
  /** A name (at most 200 characters here, 255 at Statuspage); a blank one is refused. */
  const name = (text: string, file: string, record: string) =>
    text.trim() === ""
      ? Effect.fail(refused(file, record, "name: must not be empty"))
      : Effect.succeed(fit(text, 200, record, "name"))
  return { skipped, skip, fit, name }
}
type Notes = ReturnType<typeof makeNotes>

/** The page's address here: its Statuspage subdomain, else its name, made a slug. */
const slugOf = (page: SourcePage): string => {
  for (const candidate of [page.subdomain, page.name, `statuspage-${page.id}`]) {
    const slug = (candidate ?? "").normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
      .replace(/[^a-z0-9]+/g, "-").replace(/^-+/, "").slice(0, 64).replace(/-+$/, "")
    if (Schema.is(Slug)(slug)) return slug
  }
  return "statuspage"
}

interface Group {
  /** The file it is named in (component-groups.json when in both). */
  readonly file: string
  readonly name: string
  readonly description: string | null | undefined
  readonly position: number | null | undefined
  readonly members: ReadonlyArray<string>
}

/**
 * The catalogue: groups, components and their statuses. A group is a component with `group: true`,
 * an entry of component-groups.json, or both under one id (its name and description then from the
 * latter, its place from the former, which orders groups and components alike).
 */
const catalogOf = (source: StatuspageExport, notes: Notes) =>
  Effect.gen(function*() {
    const file = statuspageFiles.components
    const groups = new Map<string, Group>()
    for (const group of source.components.filter((component) => component.group === true)) {
      groups.set(group.id, {
        file,
        name: group.name,
        description: group.description,
        position: group.position,
        members: []
      })
    }
    for (const group of source.groups) {
      const listed = groups.get(group.id)
      groups.set(group.id, {
        file: statuspageFiles.groups,
        name: group.name,
        description: group.description?.trim() ? group.description : listed?.description,
        position: listed?.position ?? (typeof group.position === "string" ? Number(group.position) : group.position),
        members: group.components ?? []
      })
    }
    const components = source.components.filter((component) => component.group !== true)
    const groupOf = (component: SourceComponent) =>
      component.group_id ?? [...groups].find(([, group]) => group.members.includes(component.id))?.[0] ?? null

    const groupEntries: Array<GroupEntry> = []
    for (const [id, group] of groups) {
      const record = named("group", { id, name: group.name })
      groupEntries.push({
        key: keyOf("group", id),
        name: yield* notes.name(group.name, group.file, record),
        ...(group.description?.trim()
          ? { description: notes.fit(group.description, 2000, record, "description") }
          : {}),
        ...(group.position == null ? {} : { displayOrder: group.position })
      })
    }

    const componentEntries: Array<ComponentEntry> = []
    const statuses: Record<string, ComponentStatus> = {}
    for (const component of components) {
      const record = named("component", component)
      const group = groupOf(component)
      if (group !== null && !groups.has(group)) {
        return yield* refused(
          file,
          record,
          `group_id ${group} names no group: no component with group: true, nor any entry of ${statuspageFiles.groups}, has that id`
        )
      }
      if (component.status) {
        const status = componentStatuses.get(component.status)
        if (status === undefined) {
          return yield* refused(file, record, `status ${JSON.stringify(component.status)} is not one of Statuspage's`)
        }
        statuses[keyOf("component", component.id)] = status
      }
      if (component.only_show_if_degraded === true) {
        notes.skip(`${record}: only_show_if_degraded`, "no counterpart: a public component is always shown here")
      }
      if (component.showcase === false) {
        notes.skip(`${record}: showcase`, "no counterpart: every component shows its uptime bar here")
      }
      componentEntries.push({
        key: keyOf("component", component.id),
        name: yield* notes.name(component.name, file, record),
        ...(component.description?.trim()
          ? { description: notes.fit(component.description, 2000, record, "description") }
          : {}),
        ...(component.position == null ? {} : { displayOrder: component.position }),
        group: group === null ? null : keyOf("group", group)
      })
    }

    // The page's layout: its groups and ungrouped components, in Statuspage's order.
    const items: Array<PageItemEntry> = [
      ...[...groups].map(([id, group]) => ({ type: "group" as const, id, position: group.position })),
      ...components.filter((component) => groupOf(component) === null).map((component) => ({
        type: "component" as const,
        id: component.id,
        position: component.position
      }))
    ].sort((a, b) => (a.position ?? Infinity) - (b.position ?? Infinity)).map(({ id, type }) => ({
      type,
      key: keyOf(type, id)
    }))

    /** The keys of the components `ids` name, a group standing for its members; another id is noted and left out. */
    const componentKeys = (ids: ReadonlyArray<string>, record: string) => {
      const keys = new Set<string>()
      for (const id of ids) {
        if (groups.has(id)) {
          for (const member of components) if (groupOf(member) === id) keys.add(keyOf("component", member.id))
        } else if (components.some((component) => component.id === id)) keys.add(keyOf("component", id))
        else notes.skip(`${record}: component ${id}`, `not in ${file}: left out of the ${record.split(" ")[0]}`)
      }
      return [...keys]
    }

    return { groupEntries, componentEntries, statuses, items, componentKeys, componentCount: components.length }
  })
type Catalog = Effect.Success<ReturnType<typeof catalogOf>>

/** The page, but for its layout (the catalogue's). */
const pageOf = (source: StatuspageExport, notes: Notes) =>
  Effect.gen(function*() {
    const record = named("page", source.page)
    const description = source.page.page_description?.trim() || source.page.headline?.trim()
    const timeZone = source.page.time_zone?.trim()
    const knownZone = timeZone !== undefined && Schema.is(TimeZone)(timeZone)
    if (timeZone && !knownZone) {
      notes.skip(`${record}: time_zone`, `${timeZone} is not an IANA time zone known here: the organization's applies`)
    }
    const domain = source.page.domain?.trim().toLowerCase()
    const validDomain = domain !== undefined && Schema.is(DomainName)(domain)
    if (domain && !validDomain) notes.skip(`${record}: domain`, `${domain} is not a host name`)
    for (const { applies, fields, reason } of pageSettingsLeftOut) {
      const present = Object.entries(source.pageSettings).filter(([field, value]) =>
        fields.some((wanted) => wanted.endsWith("*") ? field.startsWith(wanted.slice(0, -1)) : field === wanted) &&
        applies(value)
      )
      if (present.length > 0) notes.skip(`${record}: ${present.map(([field]) => field).join(", ")}`, reason)
    }
    const page: PageEntry = {
      slug: slugOf(source.page),
      title: yield* notes.name(source.page.name, statuspageFiles.page, record),
      ...(description ? { description: notes.fit(description, 2000, record, "description") } : {}),
      ...(knownZone ? { timeZone } : {}),
      ...(validDomain ? { domain } : {})
    }
    return page
  })

/** Updates oldest first, by the time Statuspage shows them (`display_at`, which an operator may set back). */
const oldestFirst = (updates: ReadonlyArray<SourceIncidentUpdate>) =>
  [...updates].sort((a, b) =>
    Date.parse(a.display_at ?? a.created_at) - Date.parse(b.display_at ?? b.created_at) ||
    Date.parse(a.created_at) - Date.parse(b.created_at)
  )

const incidentOf = (incident: SourceIncident, catalog: Catalog, notes: Notes) =>
  Effect.gen(function*() {
    const file = statuspageFiles.incidents
    const record = named("incident", incident)
    const updates = oldestFirst(incident.incident_updates ?? [])
    if (updates.length === 0) {
      return yield* refused(
        file,
        record,
        "has no incident_updates: an incident comes with its timeline, as the API lists it"
      )
    }
    const status = incidentStatuses.get(incident.status)
    if (status === undefined) {
      return yield* refused(file, record, `status ${JSON.stringify(incident.status)} is not an incident's`)
    }
    const impact = incident.impact_override ?? incident.impact ?? "none"
    const severity = severities.get(impact)
    if (severity === undefined) {
      return yield* refused(file, record, `impact ${JSON.stringify(impact)} is not one of Statuspage's`)
    }
    const timeline: Array<ImportedIncident["updates"][number]> = []
    for (const update of updates) {
      const updateStatus = incidentStatuses.get(update.status)
      if (updateStatus === undefined) {
        return yield* refused(
          file,
          `${record}, update ${update.id}`,
          `status ${JSON.stringify(update.status)} is not an incident's`
        )
      }
      timeline.push({
        status: updateStatus,
        message: update.body?.trim()
          ? notes.fit(update.body, 5000, `${record}, update ${update.id}`, "body")
          : statusSentence[updateStatus],
        createdAt: utc(update.display_at ?? update.created_at)
      })
    }
    // The timeline ends in the incident's status (one resolved without a last update ends in its resolution).
    const last = timeline[timeline.length - 1]!
    if (last.status !== status) {
      const at = utc(incident.resolved_at ?? incident.updated_at ?? incident.created_at)
      timeline.push({ status, message: statusSentence[status], createdAt: DateTime.max(at, last.createdAt) })
    }
    if (incident.postmortem_body?.trim()) {
      notes.skip(
        `${record}: postmortem_body`,
        "no counterpart in an import: write it as the incident's postmortem here"
      )
    }
    const imported: ImportedIncident = {
      key: keyOf("incident", incident.id),
      title: yield* notes.name(incident.name, file, record),
      severity,
      components: catalog.componentKeys(
        (incident.components ?? []).map(({ id }) => id),
        record
      ),
      updates: timeline
    }
    return imported
  })

/** A window still to come or in progress; undefined (noted) for one that is over. */
const maintenanceOf = (incident: SourceIncident, now: DateTime.Utc, catalog: Catalog, notes: Notes) =>
  Effect.gen(function*() {
    const file = statuspageFiles.incidents
    const record = named("maintenance", incident)
    if (incident.status === "completed") {
      notes.skip(record, "completed: only maintenance still to come or in progress is imported")
      return undefined
    }
    if (!maintenanceToCome.has(incident.status)) {
      return yield* refused(file, record, `status ${JSON.stringify(incident.status)} is not scheduled maintenance's`)
    }
    if (incident.scheduled_until == null) return yield* refused(file, record, "scheduled_until: is required")
    const end = utc(incident.scheduled_until)
    if (DateTime.isLessThanOrEqualTo(end, now)) {
      notes.skip(
        record,
        `ended ${DateTime.formatIso(end)} though still ${incident.status}: only maintenance to come is imported`
      )
      return undefined
    }
    const first = oldestFirst(incident.incident_updates ?? [])[0]?.body
    const components = catalog.componentKeys((incident.components ?? []).map(({ id }) => id), record)
    const window: MaintenanceEntry = {
      key: keyOf("maintenance", incident.id),
      title: yield* notes.name(incident.name, file, record),
      ...(first?.trim() ? { description: notes.fit(first, 5000, record, "description") } : {}),
      scheduledStart: utc(incident.scheduled_for!),
      scheduledEnd: end,
      ...(components.length > 0 ? { components } : {})
    }
    return window
  })

const subscribersOf = (
  list: ReadonlyArray<SourceSubscriber>,
  page: string,
  catalog: Catalog,
  notes: Notes
): Array<ImportedSubscriber> => {
  const imported: Array<ImportedSubscriber> = []
  const byEmail = new Map<string, string>()
  for (const subscriber of list) {
    const record = `subscriber ${subscriber.id} (${subscriber.mode ?? "no mode"})`
    const email = Option.getOrUndefined(Schema.decodeUnknownOption(EmailAddress)(subscriber.email ?? ""))
    const mailable = subscriber.mode === "email" && subscriber.quarantined_at == null
    const keys = mailable && subscriber.components?.length
      ? catalog.componentKeys(subscriber.components, record)
      : undefined
    // Following every component is following the page: components added later reach them too.
    const every = keys === undefined || keys.length === catalog.componentCount
    const leftOut = subscriber.mode !== "email"
      ? `${otherModes[subscriber.mode ?? ""] ?? "no counterpart"}: only e-mail subscribers are imported`
      : subscriber.quarantined_at != null
      ? `quarantined at the source since ${subscriber.quarantined_at} (mail to them failed): not imported`
      : email === undefined
      ? "no e-mail address that mail can be sent to: not imported"
      : byEmail.has(email)
      ? `the same address as subscriber ${byEmail.get(email)}: imported once`
      : keys?.length === 0
      ? "follows none of the components imported: not imported"
      : !every && keys.length > 100
      ? "follows more than 100 components but not all: ours follow at most 100, or the whole page"
      : undefined
    if (leftOut !== undefined) {
      notes.skip(record, leftOut)
      continue
    }
    // No reason to leave them out: their address is a valid one.
    byEmail.set(email!, subscriber.id)
    imported.push({ email: email!, page, components: every ? null : keys, subscribedAt: utc(subscriber.created_at) })
  }
  return imported
}

/**
 * Reads the export in `dir`: page.json and components.json are required; component-groups.json,
 * incidents.json and subscribers.json may be missing (none). Subscribers are read only when asked:
 * importing them is the operator's explicit choice (`--import-subscribers`).
 */
export const readStatuspage = Effect.fn("StatuspageSource.read")(function*(
  dir: string,
  options: { readonly subscribers: boolean }
) {
  const source = yield* readExport(dir, options)
  const notes = makeNotes()
  const settings = yield* pageOf(source, notes)
  const catalog = yield* catalogOf(source, notes)
  const page: PageEntry = { ...settings, items: catalog.items }
  // Realtime incidents and scheduled maintenance are one list, told apart by `scheduled_for`.
  const now = yield* DateTime.now
  const incidents: Array<ImportedIncident> = []
  const maintenance: Array<MaintenanceEntry> = []
  for (const incident of source.incidents) {
    if (incident.scheduled_for == null) incidents.push(yield* incidentOf(incident, catalog, notes))
    else {
      const window = yield* maintenanceOf(incident, now, catalog, notes)
      if (window !== undefined) maintenance.push(window)
    }
  }
  const read: ImportRead = {
    bundle: {
      configuration: {
        version: configurationVersion,
        ...(catalog.groupEntries.length > 0 ? { groups: catalog.groupEntries } : {}),
        components: catalog.componentEntries,
        pages: [page],
        ...(maintenance.length > 0 ? { maintenance } : {})
      },
      componentStatuses: catalog.statuses,
      ...(incidents.length > 0 ? { incidents } : {}),
      ...(source.subscribers === undefined
        ? {}
        : { subscribers: subscribersOf(source.subscribers, page.slug, catalog, notes) })
    },
    skipped: notes.skipped
  }
  return read
}) satisfies (dir: string, options: { readonly subscribers: boolean }) => Effect.Effect<ImportRead, ImportSourceError>
