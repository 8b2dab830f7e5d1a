/**
 * Our public state in the shape of Atlassian Statuspage's public API (`/api/v2/*.json`), so that
 * tools and widgets written for Statuspage read our pages (docs/statuspage-compatibility.md has
 * the mapping and what has no counterpart). Pure: one page's view of one snapshot in, plain JSON
 * values out; StatuspageResponses encodes them once per snapshot.
 */
import { DateTime } from "effect"

import type { ComponentStatus, PublicComponent } from "../domain/Component.js"
import type { PublicComponentGroup } from "../domain/ComponentGroup.js"
import type { IncidentSeverity, IncidentStatus, PublicIncidentDetail } from "../domain/Incident.js"
import type { MaintenanceStatus, PublicMaintenance } from "../domain/Maintenance.js"
import { pageAddress } from "../domain/StatusPage.js"
import type { SitePage } from "./state/Site.js"

export type StatuspageComponentStatus =
  | "operational"
  | "degraded_performance"
  | "partial_outage"
  | "major_outage"
  | "under_maintenance"

export type StatuspageIndicator = "none" | "minor" | "major" | "critical"

/** Our component statuses under Statuspage's names: the same five, two renamed. */
export const componentStatus: Record<ComponentStatus, StatuspageComponentStatus> = {
  operational: "operational",
  degraded: "degraded_performance",
  partial_outage: "partial_outage",
  major_outage: "major_outage",
  maintenance: "under_maintenance"
}

const indicatorRank: Record<StatuspageIndicator, number> = { none: 0, minor: 1, major: 2, critical: 3 }

/** What Statuspage says for each indicator an incident's impact raises the page to. */
const impactDescription: Record<Exclude<StatuspageIndicator, "none">, string> = {
  minor: "Minor Service Outage",
  major: "Partial System Outage",
  critical: "Major System Outage"
}

/**
 * The page's rollup, as Statuspage blends it: from the components (degraded is minor, a partial
 * outage minor, a major outage major, and critical when every component is in one), raised to the
 * impact of the worst unresolved incident. Statuspage's published indicators are only these four:
 * maintenance alone is `none`, described as such.
 */
export const rollup = (
  components: ReadonlyArray<PublicComponent>,
  openImpacts: ReadonlyArray<IncidentSeverity>
): { readonly indicator: StatuspageIndicator; readonly description: string } => {
  const statuses = new Set(components.map((component) => component.status))
  const fromComponents = statuses.has("major_outage")
    ? components.every((component) => component.status === "major_outage")
      ? { indicator: "critical" as const, description: "Major System Outage" }
      : { indicator: "major" as const, description: "Partial System Outage" }
    : statuses.has("partial_outage")
    ? { indicator: "minor" as const, description: "Minor Service Outage" }
    : statuses.has("degraded")
    ? { indicator: "minor" as const, description: "Partially Degraded Service" }
    : statuses.has("maintenance")
    ? { indicator: "none" as const, description: "Service Under Maintenance" }
    : { indicator: "none" as const, description: "All Systems Operational" }
  const worstImpact = openImpacts.reduce<StatuspageIndicator>(
    (worst, impact) => indicatorRank[impact] > indicatorRank[worst] ? impact : worst,
    "none"
  )
  return worstImpact !== "none" && indicatorRank[worstImpact] > indicatorRank[fromComponents.indicator]
    ? { indicator: worstImpact, description: impactDescription[worstImpact] }
    : fromComponents
}

const iso = (time: DateTime.Utc) => DateTime.formatIso(time)
const isoMillis = (millis: number) => new Date(millis).toISOString()

/** What the documents of one page need beyond its view of the state. */
export interface PageContext {
  readonly page: SitePage
  readonly publicUrl: string
  /** When the snapshot was read: the page's `updated_at` when it shows nothing dated. */
  readonly readAt: DateTime.Utc
}

/** Statuspage's documents of one page, each a JSON value; built at the first request for one of them. */
export const statuspageDocuments = ({ page, publicUrl, readAt }: PageContext) => {
  const state = page.state()
  const address = pageAddress(publicUrl, page)
  const rows = new Map(state.parts.components.map((row) => [row.id as string, row]))
  const groupRows = new Map(state.parts.groups.map((row) => [row.id as string, row]))
  const groups = new Map(state.summary.groups.map((group) => [group.id, group]))

  const componentTimes = (id: string) => {
    const row = rows.get(id)
    const created = state.componentCreatedAt.get(id)
    return {
      created_at: created === undefined ? iso(readAt) : isoMillis(created),
      updated_at: row === undefined ? iso(readAt) : iso(row.updatedAt)
    }
  }

  const componentEntry = (component: PublicComponent, position: number) => {
    const times = componentTimes(component.id)
    return {
      id: component.id,
      name: component.name,
      status: componentStatus[component.status],
      ...times,
      position,
      description: component.description === "" ? null : component.description,
      // Every component of ours shows its uptime bar on the page.
      showcase: true,
      start_date: times.created_at.slice(0, 10),
      group_id: component.groupId,
      page_id: page.id,
      group: false,
      only_show_if_degraded: false
    }
  }

  const groupEntry = (group: PublicComponentGroup, position: number) => {
    const row = groupRows.get(group.id)
    return {
      id: group.id,
      name: group.name,
      status: componentStatus[group.status],
      created_at: row === undefined ? iso(readAt) : iso(row.createdAt),
      updated_at: row === undefined ? iso(readAt) : iso(row.updatedAt),
      position,
      description: row === undefined || row.description === "" ? null : row.description,
      showcase: false,
      start_date: null,
      group_id: null,
      page_id: page.id,
      group: true,
      only_show_if_degraded: false,
      components: group.componentIds
    }
  }

  // Statuspage lists groups among the components, each before its members; positions count both.
  const components: Array<ReturnType<typeof componentEntry> | ReturnType<typeof groupEntry>> = []
  const shownGroups = new Set<string>()
  const byId = new Map<string, ReturnType<typeof componentEntry>>()
  for (const component of state.components) {
    const group = component.groupId === null ? undefined : groups.get(component.groupId)
    if (group !== undefined && !shownGroups.has(group.id)) {
      shownGroups.add(group.id)
      components.push(groupEntry(group, components.length + 1))
    }
    const entry = componentEntry(component, components.length + 1)
    byId.set(component.id, entry)
    components.push(entry)
  }
  const componentsOf = (ids: ReadonlyArray<string>) => ids.flatMap((id) => byId.get(id) ?? [])

  /** Ours and theirs are the same four, and `postmortem` once a postmortem is published. */
  const incidentStatus = (incident: PublicIncidentDetail): IncidentStatus | "postmortem" =>
    incident.status === "resolved" && incident.postmortem !== null ? "postmortem" : incident.status

  const incidentEntry = (incident: PublicIncidentDetail) => {
    const monitoring = incident.updates.find((update) => update.status === "monitoring")
    return {
      id: incident.id,
      name: incident.title,
      status: incidentStatus(incident),
      created_at: iso(incident.createdAt),
      updated_at: iso(incident.updatedAt),
      monitoring_at: monitoring === undefined ? null : iso(monitoring.createdAt),
      resolved_at: incident.resolvedAt === null ? null : iso(incident.resolvedAt),
      impact: incident.severity,
      shortlink: `${address}/incidents/${encodeURIComponent(incident.id)}`,
      started_at: iso(incident.createdAt),
      page_id: page.id,
      // Newest first, as Statuspage lists them; ours are kept oldest first.
      incident_updates: incident.updates.toReversed().map((update) => ({
        id: update.id,
        status: update.status,
        body: update.message,
        incident_id: incident.id,
        created_at: iso(update.createdAt),
        updated_at: iso(update.createdAt),
        display_at: iso(update.createdAt),
        affected_components: null
      })),
      components: componentsOf(incident.componentIds)
    }
  }

  /** Ours lack Statuspage's `verifying`; cancelled windows are never public reads. */
  const maintenanceStatus = (status: MaintenanceStatus) => status === "cancelled" ? "completed" : status

  const maintenanceEntry = (window: PublicMaintenance) => {
    const status = maintenanceStatus(window.status)
    return {
      id: window.id,
      name: window.title,
      status,
      created_at: iso(window.createdAt),
      updated_at: iso(window.updatedAt),
      monitoring_at: null,
      resolved_at: status === "completed" ? iso(window.updatedAt) : null,
      impact: "maintenance" as const,
      shortlink: `${address}/maintenance/${encodeURIComponent(window.id)}`,
      started_at: iso(window.scheduledStart),
      page_id: page.id,
      scheduled_for: iso(window.scheduledStart),
      scheduled_until: iso(window.scheduledEnd),
      // Our windows have no timeline: their description is their one update, in their current status.
      incident_updates: [{
        id: `${window.id}-${status}`,
        status,
        body: window.description,
        incident_id: window.id,
        created_at: iso(window.updatedAt),
        updated_at: iso(window.updatedAt),
        display_at: iso(window.updatedAt),
        affected_components: null
      }],
      components: componentsOf(window.componentIds)
    }
  }

  const unresolved = state.incidents.filter((incident) => incident.status !== "resolved")
  // The page changed last when the latest of what it shows did.
  const changedAt = [
    ...state.components.map((component) => rows.get(component.id)?.updatedAt.epochMilliseconds ?? 0),
    ...state.summary.groups.map((group) => groupRows.get(group.id)?.updatedAt.epochMilliseconds ?? 0),
    ...state.incidents.map((incident) => incident.updatedAt.epochMilliseconds),
    ...state.maintenance.map((window) => window.updatedAt.epochMilliseconds)
  ].reduce((latest, millis) => Math.max(latest, millis), 0)
  const header = {
    id: page.id,
    name: state.organization.name,
    url: address,
    time_zone: state.organization.timezone,
    updated_at: changedAt === 0 ? iso(readAt) : isoMillis(changedAt)
  }
  const status = rollup(state.components, unresolved.map((incident) => incident.severity))
  const maintenance = state.maintenance.map(maintenanceEntry)
  const upcoming = maintenance.filter((window) => window.status === "scheduled")
    .toSorted((a, b) => a.scheduled_for.localeCompare(b.scheduled_for))
  const active = maintenance.filter((window) => window.status === "in_progress")
    .toSorted((a, b) => a.scheduled_for.localeCompare(b.scheduled_for))

  return {
    "/summary.json": () => ({
      page: header,
      components,
      incidents: unresolved.map(incidentEntry),
      // Running first, then upcoming, soonest first (our summary's `upcomingMaintenance`).
      scheduled_maintenances: [...active, ...upcoming],
      status
    }),
    "/status.json": () => ({ page: header, status }),
    "/components.json": () => ({ page: header, components }),
    // Statuspage lists the 50 most recent; the snapshot holds at least that many.
    "/incidents.json": () => ({ page: header, incidents: state.incidents.slice(0, 50).map(incidentEntry) }),
    "/incidents/unresolved.json": () => ({ page: header, incidents: unresolved.map(incidentEntry) }),
    // Latest start first, as the snapshot holds them.
    "/scheduled-maintenances.json": () => ({ page: header, scheduled_maintenances: maintenance.slice(0, 50) }),
    "/scheduled-maintenances/upcoming.json": () => ({ page: header, scheduled_maintenances: upcoming }),
    "/scheduled-maintenances/active.json": () => ({ page: header, scheduled_maintenances: active })
  } as const
}

/** The documents' paths below a page's `/api/v2`. */
export const statuspagePaths = [
  "/summary.json",
  "/status.json",
  "/components.json",
  "/incidents.json",
  "/incidents/unresolved.json",
  "/scheduled-maintenances.json",
  "/scheduled-maintenances/upcoming.json",
  "/scheduled-maintenances/active.json"
] as const
export type StatuspagePath = typeof statuspagePaths[number]
