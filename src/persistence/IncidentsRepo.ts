import { Context, Effect, Layer } from "effect"

import type { ComponentId } from "../domain/Component.js"
import type {
  IncidentAutomation,
  IncidentId,
  IncidentSeverity,
  IncidentStatus,
  UpdateIncident
} from "../domain/Incident.js"
import { Incident } from "../domain/Incident.js"
import type { PageRequest } from "../domain/Page.js"
import { componentIdsColumn, publicComponentIdsColumn, replaceComponents } from "./ComponentLinks.js"
import { orUnavailable } from "./DatabaseErrors.js"
import { type Keyset, readPage } from "./Keyset.js"
import { RetryingSqlClient } from "./RetryingSqlClient.js"
import { definedFields, rowsOf } from "./Rows.js"

/** ISO 8601 UTC with milliseconds, as JSON-aggregated timeline entries carry their time. */
export const isoUtc = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

/** Incidents newest first. */
const incidentsInOrder: Keyset = {
  list: "incidents",
  keys: [{ sql: "created_at", type: "timestamptz", descending: true }, { sql: "id", type: "text", descending: true }]
}

export class IncidentsRepo extends Context.Service<IncidentsRepo>()("IncidentsRepo", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const incidents = rowsOf(Incident)

    const timeline = `coalesce((select json_agg(json_build_object('id', u.id, 'status', u.status, 'message', u.message,
                                                    'createdAt', ${isoUtc("u.created_at")}) order by u.seq)
                  from incident_updates u where u.incident_id = i.id), '[]')`
    const latestMessage =
      `(select u.message from incident_updates u where u.incident_id = i.id order by u.seq desc limit 1)`

    /** The postmortem, if any (`published`: only a published one), as JSON. */
    const postmortem = (published: boolean) =>
      `(select json_build_object('body', p.body, 'published', p.published,
                                 'publishedAt', ${isoUtc("p.published_at")}, 'updatedAt', ${isoUtc("p.updated_at")})
        from incident_postmortems p where p.incident_id = i.id${published ? " and p.published" : ""})`

    /** An incident with its component ids, timeline (oldest first), latest message and postmortem. */
    const withTimeline = sql.literal(`
      select i.*,
        ${componentIdsColumn("incident", "i")},
        ${timeline} as updates,
        ${latestMessage} as message,
        ${postmortem(false)} as postmortem
      from incidents i`)

    /**
     * What the public sees of incidents: those stored as public (`is_public`: published, and
     * chosen so, see Visibility), naming only their public components.
     */
    const isPublic = "i.is_public"
    /** Public incidents from `from` (which binds `i`), with their timeline or without it (`updates` empty). */
    const publicIncidents = (updates: string, from = "incidents i") =>
      sql.literal(`
      select i.*,
        ${publicComponentIdsColumn("incident", "i")},
        ${updates} as updates,
        ${latestMessage} as message,
        ${postmortem(true)} as postmortem
      from ${from}
      where ${isPublic}`)
    const publicWithTimeline = publicIncidents(timeline)
    const publicWithoutTimeline = publicIncidents("'[]'::json")
    const publicIds = `select i.id from incidents i where ${isPublic}`
    const newestFirst = sql.literal("order by i.created_at desc, i.id desc")

    /** The ids of the recent set (see findRecentPublic); each part is an index range, not a scan of the history. */
    const recentIds = (resolved: number, updated: number) =>
      `(
        select i.id from incidents i where i.status <> 'resolved'
        union select id from (${publicIds} and i.status = 'resolved' order by i.created_at desc, i.id desc limit ${resolved}) r
        union select id from (${publicIds} order by i.updated_at desc, i.id desc limit ${updated}) u
      ) recent join incidents i on i.id = recent.id`

    return {
      findPage: (page: PageRequest) =>
        readPage(
          sql,
          incidentsInOrder,
          page,
          (p) => sql`select *, ${p.pageKey} from (${withTimeline}) i where ${p.after} ${p.orderBy} ${p.limit}`,
          incidents.all
        ),

      findById: (id: IncidentId) => incidents.first(sql`${withTimeline} where i.id = ${id}`),

      /**
       * The public incidents worth holding in memory, newest first: every open one, the
       * `resolved` newest resolved ones and the `updated` most recently updated ones. Holding the
       * newest resolved ones as well as all open ones means the first `resolved` of any status's
       * list (and of the whole list) are all here: every incident outside sorts after them.
       */
      findRecentPublic: (limits: { readonly resolved: number; readonly updated: number }) =>
        incidents.all(
          sql`${
            publicIncidents(timeline, recentIds(Math.trunc(limits.resolved), Math.trunc(limits.updated)))
          } ${newestFirst}`
        ),

      /** A page of public incidents, newest first, optionally of one status. */
      findPublicPage: (
        page: { readonly offset: number; readonly limit: number; readonly status?: IncidentStatus | undefined }
      ) =>
        incidents.all(
          sql`${publicWithTimeline} ${page.status === undefined ? sql`` : sql`and i.status = ${page.status}`}
          ${newestFirst} offset ${page.offset} limit ${page.limit}`
        ),

      findPublicById: (id: string) => incidents.first(sql`${publicWithTimeline} and i.id = ${id}`),

      /**
       * The id, status and public components of every public incident, newest first: an index that
       * tells unknown ids and the lists' ends from memory, and which incidents each page shows.
       */
      findPublicIndex: () =>
        orUnavailable(
          sql<{ id: string; status: IncidentStatus; componentIds: ReadonlyArray<string> }>`
            select i.id, i.status, ${sql.literal(publicComponentIdsColumn("incident", "i"))}
            from incidents i where ${sql.literal(isPublic)} ${newestFirst}`
        ),

      /** Public incidents open at some time in the last `days` days, without their timelines (the uptime bars' titles). */
      findPublicOpenWithin: (days: number) =>
        incidents.all(
          sql`${publicWithoutTimeline} and (i.status <> 'resolved' or i.resolved_at >= now() - make_interval(days => ${days}))
          ${newestFirst}`
        ),

      /** Locks the incident row for the rest of the transaction; returns its status. */
      lockStatus: (id: IncidentId) =>
        orUnavailable(sql<{ status: IncidentStatus }>`select status from incidents where id = ${id} for update`).pipe(
          Effect.map((rows) => rows[0]?.status)
        ),

      /** Locks the incident row; returns its status and automation. */
      lockAutomation: (id: IncidentId) =>
        orUnavailable(
          sql<{ status: IncidentStatus; automation: IncidentAutomation | null }>`
            select status, automation from incidents where id = ${id} for update`
        ).pipe(Effect.map((rows) => rows[0])),

      /**
       * Private until Visibility decides, in the same transaction. With `monitor`, the
       * incident is that monitor's, opened for its outage since `downSince`; the unique index of
       * migration 0026 refuses a second open one (a unique violation: the caller's race to lose).
       */
      insert: (
        input: {
          title: string
          status: IncidentStatus
          severity: IncidentSeverity
          published: boolean
          monitor?: { readonly id: string; readonly downSince: Date }
        }
      ) =>
        orUnavailable(sql<{ id: IncidentId }>`
          insert into incidents (title, status, severity, chosen_public, published, source, monitor_id, automation,
                                 monitor_down_since)
          values (${input.title}, ${input.status}, ${input.severity}, false, ${input.published},
                  ${input.monitor === undefined ? "manual" : "monitor"}, ${input.monitor?.id ?? null},
                  ${input.monitor === undefined ? null : "active"}, ${input.monitor?.downSince ?? null})
          returning id`).pipe(Effect.map((rows) => rows[0]!.id)),

      /** Publishes a draft: the public sees it as its stored visibility says (Visibility). */
      publish: (id: IncidentId) =>
        orUnavailable(sql`update incidents set published = true, updated_at = now() where id = ${id}`),

      /** An operator took the incident over: the automation no longer moves its status or resolves it. */
      handOver: (id: IncidentId) =>
        orUnavailable(sql`update incidents set automation = 'handed_over' where id = ${id} and automation = 'active'`),

      /** Sets the defined fields (none: only `updated_at`, e.g. when the components changed). */
      update: (id: IncidentId, changes: Omit<UpdateIncident, "componentIds">) => {
        const fields = definedFields(changes)
        return orUnavailable(
          Object.keys(fields).length === 0
            ? sql`update incidents set updated_at = now() where id = ${id}`
            : sql`update incidents set ${sql.update(fields)}, updated_at = now() where id = ${id}`
        )
      },

      touch: (id: IncidentId, status: IncidentStatus) =>
        orUnavailable(sql`
          update incidents set status = ${status}, updated_at = now(),
            resolved_at = case when ${status} = 'resolved' then now() else resolved_at end
          where id = ${id}`),

      /** Names the incident's components; its visibility is Visibility's. */
      setComponents: (id: IncidentId, componentIds: ReadonlyArray<ComponentId>) =>
        replaceComponents(sql, "incident", id, componentIds),

      /** Writes the postmortem; `published_at` is set by the first publication and kept afterwards. */
      setPostmortem: (id: IncidentId, body: string, published: boolean) =>
        orUnavailable(sql`
          insert into incident_postmortems (incident_id, body, published, published_at)
          values (${id}, ${body}, ${published}, case when ${published} then now() end)
          on conflict (incident_id) do update set body = excluded.body, published = excluded.published,
            published_at = coalesce(incident_postmortems.published_at, excluded.published_at), updated_at = now()`),

      addUpdate: (id: IncidentId, status: IncidentStatus, message: string) =>
        orUnavailable(
          sql`insert into incident_updates (incident_id, status, message) values (${id}, ${status}, ${message})`
        )
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
