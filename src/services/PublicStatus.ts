import { Effect, Option } from "effect"
import { PublicComponent, worstStatus } from "../domain/Component.js"
import { IncidentUpdate, PublicIncident, PublicIncidentDetail } from "../domain/Incident.js"
import { PublicMaintenance } from "../domain/Maintenance.js"
import { StatusSummary } from "../domain/Status.js"
import { ComponentsRepo } from "../persistence/ComponentsRepo.js"
import { IncidentsRepo } from "../persistence/IncidentsRepo.js"
import { MaintenanceRepo } from "../persistence/MaintenanceRepo.js"
import { OrganizationRepo } from "../persistence/OrganizationRepo.js"

/** Everything the public may read, read from the database in one go. */
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
  /** Public incidents, newest first, with their timelines. */
  readonly incidents: ReadonlyArray<PublicIncidentDetail>
  /** Public windows that are not cancelled, latest start first (the feeds' maintenance items). */
  readonly maintenance: ReadonlyArray<PublicMaintenance>
}

/**
 * What the public reads: public components, the overall status derived from them, and the
 * incidents and windows that touch a public component or no component at all (naming only
 * their public components).
 */
export class PublicStatus extends Effect.Service<PublicStatus>()("PublicStatus", {
  effect: Effect.gen(function*() {
    const components = yield* ComponentsRepo
    const incidents = yield* IncidentsRepo
    const windows = yield* MaintenanceRepo
    const organization = yield* OrganizationRepo

    const state = Effect.gen(function*() {
      const [componentRows, incidentRows, windowRows, org] = yield* Effect.all(
        [components.findPublic(), incidents.findAll(), windows.findAll(), organization.find()],
        { concurrency: 1 }
      )
      const publicIds = new Set<string>(componentRows.map((row) => row.id))
      const visible = (ids: ReadonlyArray<string>) => ids.length === 0 || ids.some((id) => publicIds.has(id))
      const publicOnly = (ids: ReadonlyArray<string>) => ids.filter((id) => publicIds.has(id))

      const publicComponents = componentRows.map((row) =>
        new PublicComponent({
          id: row.id,
          name: row.name,
          description: row.description,
          status: row.status,
          displayOrder: row.displayOrder
        })
      )
      const publicIncidents = incidentRows.filter((row) => visible(row.componentIds)).map((row) =>
        new PublicIncidentDetail({
          id: row.id,
          title: row.title,
          status: row.status,
          severity: row.severity,
          message: row.message,
          componentIds: publicOnly(row.componentIds),
          createdAt: row.createdAt,
          updatedAt: row.updatedAt,
          resolvedAt: row.resolvedAt,
          updates: row.updates.map((update) => new IncidentUpdate(update))
        })
      )
      const publicWindows = windowRows.filter((row) => row.status !== "cancelled" && visible(row.componentIds)).map((row) =>
        new PublicMaintenance({
          id: row.id,
          title: row.title,
          description: row.description,
          status: row.status,
          scheduledStart: row.scheduledStart,
          scheduledEnd: row.scheduledEnd,
          componentIds: publicOnly(row.componentIds)
        })
      )
      const upcoming = publicWindows
        .filter((window) => window.status === "scheduled" || window.status === "in_progress")
        .toSorted((a, b) => a.scheduledStart.epochMillis - b.scheduledStart.epochMillis)
      const summary = new StatusSummary({
        status: worstStatus(publicComponents.map((component) => component.status)),
        components: publicComponents,
        activeIncidents: publicIncidents.filter((incident) => incident.status !== "resolved").map(({ updates: _, ...incident }) => new PublicIncident(incident)),
        upcomingMaintenance: upcoming
      })
      return {
        organizationName: Option.match(org, { onNone: () => "Status", onSome: (o) => o.name }),
        organization: Option.match(org, {
          onNone: (): PublicOrganization => ({ name: "Status", logoUrl: null, brandColor: "#2563eb", timezone: "UTC" }),
          onSome: ({ brandColor, logoUrl, name, timezone }): PublicOrganization => ({ name, logoUrl, brandColor, timezone })
        }),
        summary,
        components: publicComponents,
        incidents: publicIncidents,
        maintenance: publicWindows
      } satisfies PublicState
    })

    return { state } as const
  }),
  dependencies: [ComponentsRepo.Default, IncidentsRepo.Default, MaintenanceRepo.Default, OrganizationRepo.Default]
}) {}
