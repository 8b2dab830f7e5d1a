import { Clock, Context, Effect, Layer, Option } from "effect"

import type { Component } from "../../domain/Component.js"
import { PublicComponent, worstStatus } from "../../domain/Component.js"
import type { ComponentGroup } from "../../domain/ComponentGroup.js"
import { PublicComponentGroup } from "../../domain/ComponentGroup.js"
import type { IncidentStatus } from "../../domain/Incident.js"
import { Incident, PublicIncident, PublicIncidentDetail, PublicPostmortem } from "../../domain/Incident.js"
import type { Maintenance } from "../../domain/Maintenance.js"
import { PublicMaintenance } from "../../domain/Maintenance.js"
import type { Organization } from "../../domain/Organization.js"
import { StatusSummary } from "../../domain/Status.js"
import type { PageDefinition } from "../../domain/StatusPage.js"
import { uptimeBarDays } from "../../domain/Uptime.js"
import { ComponentGroupsRepo } from "../../persistence/ComponentGroupsRepo.js"
import { ComponentsRepo } from "../../persistence/ComponentsRepo.js"
import { IncidentsRepo } from "../../persistence/IncidentsRepo.js"
import { MaintenanceRepo } from "../../persistence/MaintenanceRepo.js"
import { OrganizationRepo } from "../../persistence/OrganizationRepo.js"
import { StatusPagesRepo } from "../../persistence/StatusPagesRepo.js"
import { type Touched, touchesAnyComponent } from "../../services/StateChanges.js"

/**
 * How many of the newest resolved incidents the state holds besides the open ones: with them, the
 * first `heldResolved` of any incident list (all, or one status) are in memory, which covers the
 * default page (20), the largest page (100) from the start, the status page's recent history
 * and the first history pages. Anything further is read on demand.
 */
export const heldResolved = 100

/**
 * Items in a feed (render/Feeds.ts); the public snapshot holds at least this many most recently
 * updated incidents. Defined with the state, which is bounded by it, so the state needs nothing
 * of the rendering.
 */
export const feedItems = 50

/** What the public status page shows of the organization. */
export interface PublicOrganization {
  readonly name: string
  readonly logoUrl: string | null
  readonly brandColor: string
  readonly timezone: string
}

/**
 * Public incidents held in memory, newest first, with their timelines: every open one, the
 * `heldResolved` newest resolved ones and the most recently updated ones (the feeds'), or more
 * (changed incidents are added until the set is read again whole). A bounded set: older
 * incidents are read from the database on demand.
 */
export interface HeldIncidents {
  readonly details: ReadonlyArray<PublicIncidentDetail>
  /** Whether `details` are all the public incidents there are (a short history). */
  readonly complete: boolean
  /** Public incidents open at some time within the uptime bars' days, without timelines. */
  readonly bars: ReadonlyArray<PublicIncident>
}

/** What the public state is made of, as read: a change reads again only the parts it touched. */
export interface PublicParts {
  readonly components: ReadonlyArray<Component>
  readonly groups: ReadonlyArray<ComponentGroup>
  readonly incidents: HeldIncidents
  readonly windows: ReadonlyArray<Maintenance>
  readonly organization: Option.Option<Organization>
  /** The status pages, read with the organization's profile (a change of either touches `organization`). */
  readonly pages: ReadonlyArray<PageDefinition>
}

export interface PublicState {
  /** What it was made of (`assemble`). */
  readonly parts: PublicParts
  readonly organizationName: string
  readonly organization: PublicOrganization
  readonly summary: StatusSummary
  readonly components: ReadonlyArray<PublicComponent>
  /** When each public component was created (epoch ms): its uptime bar starts there. */
  readonly componentCreatedAt: ReadonlyMap<string, number>
  /** The held incidents' details (HeldIncidents). */
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
  /** Every public incident, newest first, with its public components: which pages show it. */
  readonly entries: ReadonlyArray<IncidentIndexEntry>
}

export interface IncidentIndexEntry {
  readonly id: string
  readonly status: IncidentStatus
  readonly componentIds: ReadonlyArray<string>
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

/** Constructor options for values decoded from the database: their checks are not run again. */
const trusted = { disableChecks: true } as const

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
      ? new PublicPostmortem({ body: row.postmortem.body, publishedAt: row.postmortem.publishedAt }, trusted)
      : null
  }, trusted)
const withoutTimeline = ({ postmortem: _postmortem, updates: _, ...incident }: PublicIncidentDetail) =>
  new PublicIncident(incident, trusted)

/**
 * The public state made of `parts`: what is public of them, and what follows from it. The parts
 * were decoded from the database, so the constructors skip validating them again (a write waits
 * for this).
 */
export const assemble = (parts: PublicParts): PublicState => {
  const { components: componentRows, groups: groupRows, incidents, organization: org, windows: windowRows } = parts
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
    }, trusted)
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
      }, trusted)
    ]
  })
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
    }, trusted)
  )
  const upcoming = publicWindows
    .filter((window) => window.status === "scheduled" || window.status === "in_progress")
    .toSorted((a, b) => a.scheduledStart.epochMilliseconds - b.scheduledStart.epochMilliseconds)
  const summary = new StatusSummary({
    status: worstStatus(publicComponents.map((component) => component.status)),
    components: publicComponents,
    groups: publicGroups,
    activeIncidents: incidents.details.filter((incident) => incident.status !== "resolved").map(withoutTimeline),
    upcomingMaintenance: upcoming
  }, trusted)
  return {
    parts,
    organizationName: Option.match(org, { onNone: () => "Status", onSome: (o) => o.name }),
    organization: Option.match(org, {
      onNone: (): PublicOrganization => ({ name: "Status", logoUrl: null, brandColor: "#2563eb", timezone: "UTC" }),
      onSome: ({ brandColor, logoUrl, name, timezone }): PublicOrganization => ({ name, logoUrl, brandColor, timezone })
    }),
    summary,
    components: publicComponents,
    componentCreatedAt: new Map(componentRows.map((row) => [row.id, row.createdAt.epochMilliseconds])),
    incidents: incidents.details,
    complete: incidents.complete,
    barIncidents: incidents.bars,
    maintenance: publicWindows
  }
}

const dayMillis = 24 * 3600 * 1000

/** Whether an incident belongs among the uptime bars' incidents (findPublicOpenWithin's rule). */
const inBars = (incident: PublicIncident, now: number) =>
  incident.resolvedAt === null || incident.resolvedAt.epochMilliseconds >= now - (uptimeBarDays + 1) * dayMillis

/**
 * `list` with `incident` in it: in its place if held (its creation never moves), else where
 * the database's order (newest first, then the greater id) puts it.
 */
const placed = <A extends PublicIncident>(list: ReadonlyArray<A>, incident: A): ReadonlyArray<A> => {
  const at = list.findIndex((held) => held.id === incident.id)
  if (at >= 0) return list.with(at, incident)
  const created = incident.createdAt.epochMilliseconds
  const before = list.findIndex((held) =>
    held.createdAt.epochMilliseconds < created ||
    (held.createdAt.epochMilliseconds === created && held.id < incident.id)
  )
  return before < 0 ? [...list, incident] : list.toSpliced(before, 0, incident)
}

/** The `n`-th greatest of `values`; below every value when there are fewer. */
const nthGreatest = (values: ReadonlyArray<number>, n: number) =>
  values.length < n ? -Infinity : values.toSorted((a, b) => b - a)[n - 1]!

/**
 * `details` without the resolved incidents that cannot be among the `heldResolved` newest
 * resolved ones nor the `feedItems` most recently updated: those older, to the millisecond, than
 * as many held ones. Since the held set holds all of those, its own n-th newest is the n-th
 * there is; an incident in the same millisecond (the database orders by microseconds) is kept.
 */
const withinBounds = (details: ReadonlyArray<PublicIncidentDetail>) => {
  const resolved = details.filter((detail) => detail.status === "resolved")
  const created = nthGreatest(resolved.map((detail) => detail.createdAt.epochMilliseconds), heldResolved)
  const updated = nthGreatest(details.map((detail) => detail.updatedAt.epochMilliseconds), feedItems)
  return details.filter((detail) =>
    detail.status !== "resolved" || detail.createdAt.epochMilliseconds >= created ||
    detail.updatedAt.epochMilliseconds >= updated
  )
}

/**
 * The held incidents after some changed: each as read again (none: no longer public), put in
 * its place; then those that can no longer belong are let go (the set is then no longer every
 * public incident). Every other incident that was held stays held, so the set still holds every
 * open one, the newest resolved ones and the most recently updated ones. Undefined when it must
 * be read again whole: an incident left the public while some are not held (one of those may
 * now belong in memory).
 */
export const patchHeld = (
  held: HeldIncidents,
  changed: ReadonlyArray<readonly [id: string, incident: Option.Option<PublicIncidentDetail>]>,
  now: number
): HeldIncidents | undefined => {
  let { details } = held
  let bars: ReadonlyArray<PublicIncident> = held.bars.filter((bar) => inBars(bar, now))
  for (const [id, incident] of changed) {
    bars = bars.filter((bar) => bar.id !== id)
    if (Option.isNone(incident)) {
      if (!details.some((detail) => detail.id === id)) continue
      if (!held.complete) return undefined
      details = details.filter((detail) => detail.id !== id)
      continue
    }
    details = placed(details, incident.value)
    if (inBars(incident.value, now)) bars = placed(bars, withoutTimeline(incident.value))
  }
  const kept = withinBounds(details)
  return { details: kept, complete: held.complete && kept.length === details.length, bars }
}

/**
 * Whether the components with `ids` keep their places after they changed, `changed` being those
 * of them read again that are public: none came, went, or has a new display order or name (the
 * order is display order, name, id).
 */
export const componentsKeepOrder = (
  previous: ReadonlyArray<Component>,
  ids: ReadonlyArray<string>,
  changed: ReadonlyArray<Component>
): boolean => {
  const before = new Map(previous.map((component) => [component.id as string, component]))
  const after = new Map(changed.map((component) => [component.id as string, component]))
  return ids.every((id) => {
    const was = before.get(id)
    const is = after.get(id)
    return was === undefined || is === undefined
      ? was === is
      : was.displayOrder === is.displayOrder && was.name === is.name
  })
}

/**
 * The public components after some changed: `changed` replaces what `previous` held of them, in
 * the places `order` gives (the public ids as the database orders them), or in their old places
 * without it. Undefined when `order` names a component neither held nor read again (one another
 * change made public, not read yet): then they are all read again.
 */
export const patchComponents = (
  previous: ReadonlyArray<Component>,
  changed: ReadonlyArray<Component>,
  order?: ReadonlyArray<string>
): ReadonlyArray<Component> | undefined => {
  const byId = new Map(previous.map((component) => [component.id as string, component]))
  for (const component of changed) byId.set(component.id, component)
  if (order === undefined) return previous.map((component) => byId.get(component.id)!)
  const placed: Array<Component> = []
  for (const id of order) {
    const component = byId.get(id)
    if (component === undefined) return undefined
    placed.push(component)
  }
  return placed
}

/**
 * What the public reads: public components, the overall status derived from them, and the
 * incidents and windows stored as public (naming only their public components). The state is
 * bounded (recent incidents); `incident` and `incidentsPage` read older ones, `incidentIndex`
 * lists them all.
 */
export class PublicStatus extends Context.Service<PublicStatus>()("PublicStatus", {
  make: Effect.gen(function*() {
    const components = yield* ComponentsRepo
    const groups = yield* ComponentGroupsRepo
    const incidents = yield* IncidentsRepo
    const windows = yield* MaintenanceRepo
    const organization = yield* OrganizationRepo
    const pages = yield* StatusPagesRepo

    const heldIncidents = Effect.gen(function*() {
      const rows = yield* incidents.findRecentPublic({ resolved: heldResolved, updated: feedItems })
      const barRows = yield* incidents.findPublicOpenWithin(uptimeBarDays + 1)
      const details = rows.map(toPublic)
      return {
        details,
        // Fewer resolved than asked for: there are no others (every open one is held anyway).
        complete: details.filter((incident) => incident.status === "resolved").length < heldResolved,
        bars: barRows.map((row) => withoutTimeline(toPublic(row)))
      } satisfies HeldIncidents
    })

    /** The held incidents after those with `ids` changed: each read again, or all when that will not do. */
    const heldAfter = (held: HeldIncidents, ids: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const changed = yield* Effect.forEach(
          ids,
          (id) => Effect.map(incidents.findPublicById(id), (row) => [id, Option.map(row, toPublic)] as const),
          { concurrency: 4 }
        )
        return patchHeld(held, changed, yield* Clock.currentTimeMillis) ?? (yield* heldIncidents)
      })

    /** The public components after a change that named `touched` of them (`true`: all of them). */
    const componentsAfter = (previous: ReadonlyArray<Component>, touched: Touched["components"]) => {
      if (touched === undefined || touched === false) return Effect.succeed(previous)
      if (touched === true) return components.findPublic()
      return Effect.gen(function*() {
        const changed = yield* components.findPublicByIds(touched)
        if (componentsKeepOrder(previous, touched, changed)) return patchComponents(previous, changed)!
        return patchComponents(previous, changed, yield* components.findPublicIds()) ??
          (yield* components.findPublic())
      })
    }

    /** Every part, read now (one query after the other). */
    const readAll = Effect.gen(function*() {
      return {
        components: yield* components.findPublic(),
        groups: yield* groups.findPublic(),
        incidents: yield* heldIncidents,
        windows: yield* windows.findPublic(),
        organization: yield* organization.find(),
        pages: yield* pages.findAll()
      } satisfies PublicParts
    })

    return {
      /**
       * The parts as they are now: everything when there is no `previous`, else `previous` with
       * the parts `touched` read again (only the changed incidents, when it names them).
       */
      read: (previous: PublicParts | undefined, touched: Touched) => {
        if (previous === undefined) return readAll
        const { incidents: changed } = touched
        const again = <A, E>(part: boolean | undefined, read: Effect.Effect<A, E>, kept: A) =>
          part === true ? read : Effect.succeed(kept)
        // A few queries at most, side by side: a write waits for them.
        return Effect.all({
          components: componentsAfter(previous.components, touched.components),
          groups: again(touchesAnyComponent(touched), groups.findPublic(), previous.groups),
          incidents: changed === undefined
            ? Effect.succeed(previous.incidents)
            : changed === "all"
            ? heldIncidents
            : heldAfter(previous.incidents, changed),
          windows: again(touched.maintenance, windows.findPublic(), previous.windows),
          organization: again(touched.organization, organization.find(), previous.organization),
          pages: again(touched.organization, pages.findAll(), previous.pages)
        }, { concurrency: "unbounded" }) satisfies Effect.Effect<PublicParts, unknown>
      },
      /** A public incident, read from the database. */
      incident: Effect.fn("PublicStatus.incident")((id: string) =>
        Effect.map(incidents.findPublicById(id), Option.map(toPublic))
      ),
      /** Every public incident's id and status (a scan of the history: on demand, not per rebuild). */
      incidentIndex: Effect.map(incidents.findPublicIndex(), (rows): IncidentIndex => ({
        ids: new Set(rows.map((row) => row.id)),
        resolved: rows.filter((row) => row.status === "resolved").length,
        entries: rows
      })).pipe(Effect.withSpan("PublicStatus.incidentIndex")),
      /** A page of public incidents, newest first, read from the database. */
      incidentsPage: Effect.fn("PublicStatus.incidentsPage")((page: IncidentsPage) =>
        Effect.map(incidents.findPublicPage(page), (rows) => rows.map(toPublic))
      )
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([
      ComponentsRepo.layer,
      ComponentGroupsRepo.layer,
      IncidentsRepo.layer,
      MaintenanceRepo.layer,
      OrganizationRepo.layer,
      StatusPagesRepo.layer
    ])
  )
}
