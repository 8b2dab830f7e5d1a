import { Effect, Option } from "effect"

import { PublicComponent, worstStatus } from "../../domain/Component.js"
import { PublicComponentGroup } from "../../domain/ComponentGroup.js"
import type { IncidentStatus } from "../../domain/Incident.js"
import { Incident, PublicIncident, PublicIncidentDetail, PublicPostmortem } from "../../domain/Incident.js"
import { PublicMaintenance } from "../../domain/Maintenance.js"
import { StatusSummary } from "../../domain/Status.js"
import { uptimeBarDays } from "../../domain/Uptime.js"
import { ComponentGroupsRepo } from "../../persistence/ComponentGroupsRepo.js"
import { ComponentsRepo } from "../../persistence/ComponentsRepo.js"
import { IncidentsRepo } from "../../persistence/IncidentsRepo.js"
import { MaintenanceRepo } from "../../persistence/MaintenanceRepo.js"
import { OrganizationRepo } from "../../persistence/OrganizationRepo.js"
import { maxItems as feedItems } from "./Feeds.js"

/**
 * How many of the newest resolved incidents the state holds besides the open ones: with them, the
 * first `heldResolved` of any incident list (all, or one status) are in memory, which covers the
 * default page (20), the largest page (100) from the start, the status page's recent history
 * and the first history pages. Anything further is read on demand.
 */
export const heldResolved = 100

/** What the public status page shows of the organization. */
export interface PublicOrganization {
  readonly name: string
  readonly logoUrl: string | null
  readonly brandColor: string
  readonly timezone: string
}

export interface PublicState {
  readonly organizationName: string
  readonly organization: PublicOrganization
  readonly summary: StatusSummary
  readonly components: ReadonlyArray<PublicComponent>
  /** When each public component was created (epoch ms): its uptime bar starts there. */
  readonly componentCreatedAt: ReadonlyMap<string, number>
  /**
   * Public incidents held in memory, newest first, with their timelines: every open one, the
   * `heldResolved` newest resolved ones and the most recently updated ones (the feeds'). A
   * bounded set: older incidents are read from the database on demand.
   */
  readonly incidents: ReadonlyArray<PublicIncidentDetail>
  /** Whether `incidents` are all the public incidents there are (a short history). */
  readonly complete: boolean
  /** Public incidents open at some time within the uptime bars' days, without timelines. */
  readonly barIncidents: ReadonlyArray<PublicIncident>
  /**
   * Public windows that are not cancelled, latest start first: the feeds' items and the
   * `/maintenance/:id` pages. Every such window, so an id not here names no public window.
   */
  readonly maintenance: ReadonlyArray<PublicMaintenance>
}

/** Every public incident's id: which ids name one, and where the lists end. */
export interface IncidentIndex {
  readonly ids: ReadonlySet<string>
  /** How many of them are resolved (lists of another status are held whole). */
  readonly resolved: number
}

export interface IncidentsPage {
  readonly offset: number
  readonly limit: number
  readonly status?: IncidentStatus | undefined
}

/** Whether the state holds every incident of `page` (see `heldResolved`). */
export const holdsPage = (state: PublicState, page: IncidentsPage) =>
  state.complete ||
  (page.status !== undefined && page.status !== "resolved") ||
  page.offset + page.limit <= heldResolved

/**
 * The repository's public incident rows already name only public components. They were decoded
 * from the database, so the constructors skip validating them again (it dominated a rebuild).
 */
const toPublic = (row: Incident) =>
  new PublicIncidentDetail({
    id: row.id,
    title: row.title,
    status: row.status,
    severity: row.severity,
    message: row.message,
    componentIds: row.componentIds,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    resolvedAt: row.resolvedAt,
    updates: row.updates,
    // The public rows hold a postmortem only when it is published.
    postmortem: row.postmortem?.published === true && row.postmortem.publishedAt
      ? new PublicPostmortem({ body: row.postmortem.body, publishedAt: row.postmortem.publishedAt }, true)
      : null
  }, true)
const withoutTimeline = ({ postmortem: _postmortem, updates: _, ...incident }: PublicIncidentDetail) =>
  new PublicIncident(incident, true)

/**
 * What the public reads: public components, the overall status derived from them, and the
 * incidents and windows stored as public (naming only their public components). The state is
 * bounded (recent incidents); `incident` and `incidentsPage` read older ones, `incidentIndex`
 * lists them all.
 */
export class PublicStatus extends Effect.Service<PublicStatus>()("PublicStatus", {
  effect: Effect.gen(function*() {
    const components = yield* ComponentsRepo
    const groups = yield* ComponentGroupsRepo
    const incidents = yield* IncidentsRepo
    const windows = yield* MaintenanceRepo
    const organization = yield* OrganizationRepo

    const state = Effect.gen(function*() {
      const [componentRows, groupRows, incidentRows, barRows, windowRows, org] = yield* Effect.all(
        [
          components.findPublic(),
          groups.findPublic(),
          incidents.findRecentPublic({ resolved: heldResolved, updated: feedItems }),
          incidents.findPublicOpenWithin(uptimeBarDays + 1),
          windows.findPublic(),
          organization.find()
        ],
        { concurrency: 1 }
      )
      const publicIds = new Set<string>(componentRows.map((row) => row.id))
      const publicOnly = (ids: ReadonlyArray<string>) => ids.filter((id) => publicIds.has(id))

      // A component in a private group is ungrouped here: the group is not shown.
      const publicGroupIds = new Set<string>(groupRows.map((row) => row.id))
      const publicComponents = componentRows.map((row) =>
        new PublicComponent({
          id: row.id,
          name: row.name,
          description: row.description,
          status: row.status,
          displayOrder: row.displayOrder,
          groupId: row.groupId !== null && publicGroupIds.has(row.groupId) ? row.groupId : null
        })
      )
      // A group without a public component is not shown.
      const publicGroups = groupRows.flatMap((row) => {
        const members = publicComponents.filter((component) => component.groupId === row.id)
        return members.length === 0 ? [] : [
          new PublicComponentGroup({
            id: row.id,
            name: row.name,
            status: worstStatus(members.map((component) => component.status)),
            componentIds: members.map((component) => component.id)
          })
        ]
      })
      const publicIncidents = incidentRows.map(toPublic)
      const publicWindows = windowRows.map((row) =>
        new PublicMaintenance({
          id: row.id,
          title: row.title,
          description: row.description,
          status: row.status,
          scheduledStart: row.scheduledStart,
          scheduledEnd: row.scheduledEnd,
          componentIds: publicOnly(row.componentIds),
          recurrence: row.recurrence,
          seriesId: row.seriesId,
          createdAt: row.createdAt,
          updatedAt: row.updatedAt
        })
      )
      const upcoming = publicWindows
        .filter((window) => window.status === "scheduled" || window.status === "in_progress")
        .toSorted((a, b) => a.scheduledStart.epochMillis - b.scheduledStart.epochMillis)
      const summary = new StatusSummary({
        status: worstStatus(publicComponents.map((component) => component.status)),
        components: publicComponents,
        groups: publicGroups,
        activeIncidents: publicIncidents.filter((incident) => incident.status !== "resolved").map(withoutTimeline),
        upcomingMaintenance: upcoming
      })
      return {
        organizationName: Option.match(org, { onNone: () => "Status", onSome: (o) => o.name }),
        organization: Option.match(org, {
          onNone: (): PublicOrganization => ({ name: "Status", logoUrl: null, brandColor: "#2563eb", timezone: "UTC" }),
          onSome: ({ brandColor, logoUrl, name, timezone }): PublicOrganization => ({
            name,
            logoUrl,
            brandColor,
            timezone
          })
        }),
        summary,
        components: publicComponents,
        componentCreatedAt: new Map(componentRows.map((row) => [row.id, row.createdAt.epochMillis])),
        incidents: publicIncidents,
        // Fewer resolved than asked for: there are no others (every open one is held anyway).
        complete: publicIncidents.filter((incident) => incident.status === "resolved").length < heldResolved,
        barIncidents: barRows.map((row) => withoutTimeline(toPublic(row))),
        maintenance: publicWindows
      } satisfies PublicState
    })

    return {
      state,
      /** A public incident, read from the database. */
      incident: Effect.fn("PublicStatus.incident")((id: string) =>
        Effect.map(incidents.findPublicById(id), Option.map(toPublic))
      ),
      /** Every public incident's id and status (a scan of the history: on demand, not per rebuild). */
      incidentIndex: Effect.map(incidents.findPublicIndex(), (rows): IncidentIndex => ({
        ids: new Set(rows.map((row) => row.id)),
        resolved: rows.filter((row) => row.status === "resolved").length
      })).pipe(Effect.withSpan("PublicStatus.incidentIndex")),
      /** A page of public incidents, newest first, read from the database. */
      incidentsPage: Effect.fn("PublicStatus.incidentsPage")((page: IncidentsPage) =>
        Effect.map(incidents.findPublicPage(page), (rows) => rows.map(toPublic))
      )
    } as const
  }),
  dependencies: [
    ComponentsRepo.Default,
    ComponentGroupsRepo.Default,
    IncidentsRepo.Default,
    MaintenanceRepo.Default,
    OrganizationRepo.Default
  ]
}) {}
