import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"

import { BadRequest, Conflict, NotFound } from "../domain/Errors.js"
import {
  CancelMaintenanceQuery,
  CreateMaintenance,
  Maintenance,
  MaintenanceId,
  UpdateMaintenance
} from "../domain/Maintenance.js"
import { adminPageBounds, pageQueryFields } from "../domain/Page.js"
import { RequiredRole } from "../domain/Role.js"
import { endpointDocs, groupDocs, pagedList } from "./Docs.js"
import { Authentication } from "./Security.js"

const MaintenancePath = Schema.Struct({ id: MaintenanceId })

export class MaintenanceApi extends HttpApiGroup.make("maintenance")
  .add(
    HttpApiEndpoint.get("list", "/", {
      query: pageQueryFields(adminPageBounds),
      success: Schema.Array(Maintenance.json)
    })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "List maintenance windows",
        "Every window, whatever its status (cancelled ones stay listed for operators), latest " +
          "`scheduledStart` first.",
        pagedList(adminPageBounds)
      ))
  )
  .add(
    HttpApiEndpoint.post("create", "/", {
      payload: CreateMaintenance,
      success: Maintenance.json.pipe(HttpApiSchema.status(201)),
      error: BadRequest
    })
      .annotate(RequiredRole, "editor")
      .annotateMerge(endpointDocs(
        "Schedule a maintenance window",
        "Requires `title` (1–200 characters), `scheduledStart` and `scheduledEnd`: ISO 8601 UTC ending in `Z`, " +
          "such as `2030-01-31T09:00:00Z` (offsets, dates without a time and impossible dates are 400). " +
          "`scheduledEnd` must be after `scheduledStart`, else 400 `BadRequest` with an issue at " +
          "`[\"scheduledEnd\"]`. `description` defaults to `\"\"` (at most 5000 characters); `componentIds` to " +
          "none (at most 100, duplicates ignored; an unknown id is 400 at `[\"componentIds\", index]`).",
        "`recurrence` (default `null`) repeats the window: `{ frequency: \"daily\" | \"weekly\" | \"monthly\", " +
          "interval: 1–52, until?: timestamp, count?: 1–1000 }`. `count` is the number of occurrences, the first " +
          "included; no occurrence starts after `until` (which must not be before `scheduledStart`, else 400 at " +
          "`[\"recurrence\", \"until\"]`). Occurrences keep the first window's wall-clock start and duration in the " +
          "organization's `timezone` (a weekly 02:00 window stays at 02:00 local across a daylight-saving change; " +
          "monthly on the 31st falls on a shorter month's last day). Each occurrence is a window of its own, with " +
          "`seriesId` the first occurrence's id; the next one is created, with its `maintenance.scheduled`, when " +
          "the previous one starts.",
        "Answers **201** with the window, status `scheduled`, and writes `maintenance.scheduled` to the outbox."
      ))
  )
  .add(
    HttpApiEndpoint.get("get", "/:id", { params: MaintenancePath, success: Maintenance.json, error: NotFound })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(
        endpointDocs("Read a maintenance window", "The window with its `componentIds`. An unknown id is 404.")
      )
  )
  .add(
    HttpApiEndpoint.put("update", "/:id", {
      params: MaintenancePath,
      payload: UpdateMaintenance,
      success: Maintenance.json,
      error: [NotFound, Conflict, BadRequest]
    })
      .annotate(RequiredRole, "editor")
      .annotateMerge(endpointDocs(
        "Change a maintenance window",
        "A partial update with the rules of creation; `scheduledEnd` must still be after `scheduledStart` " +
          "once the change is applied (else 400).",
        "A series' `recurrence` cannot change (400 at `[\"recurrence\"]`): cancel the rest of the series with " +
          "`DELETE ?series=true` and schedule a new one. Changing one occurrence leaves the others alone. " +
          "A running (`in_progress`) window can change its end, title and description, not its start or its " +
          "components (**409** `Conflict`). A completed or cancelled window cannot change (**409**). Updates emit " +
          "no event. An unknown id is 404."
      ))
  )
  .add(
    HttpApiEndpoint.delete("cancel", "/:id", {
      params: MaintenancePath,
      query: CancelMaintenanceQuery,
      success: HttpApiSchema.NoContent,
      error: [NotFound, Conflict, BadRequest]
    })
      .annotate(RequiredRole, "editor")
      .annotateMerge(endpointDocs(
        "Cancel a maintenance window",
        "Sets the window's status to `cancelled` and answers **204**; the window stays listed for operators. " +
          "Cancelling a window that has not started emits no event. Cancelling a running window ends it at once: " +
          "its components get back the status they had (unless an operator changed it meanwhile or another " +
          "running window still covers them) and `maintenance.completed` is written with `status: " +
          "\"cancelled\"`.",
        "Cancelling one occurrence of a series before it starts creates the series' next occurrence at once " +
          "(with its `maintenance.scheduled`), so the series goes on. `?series=true` cancels the occurrence and " +
          "every later one that has not finished (a running one ends as above), and the series creates no more; " +
          "on a one-off window it is a plain cancel. `series` other than `true` or `false` is 400.",
        "A completed or already cancelled window is **409** `Conflict`; an unknown id is 404."
      ))
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/maintenance")
  .annotateMerge(groupDocs(
    "Scheduled maintenance windows (admin; an API key or a session is required, else 401).",
    "Statuses: `scheduled`, `in_progress`, `completed`, `cancelled`. The maintenance clock (the `scheduler` " +
      "role) checks every second: past `scheduledStart` a window is `in_progress` and its components show " +
      "`maintenance` (`maintenance.started`); past `scheduledEnd` it is `completed` and each component gets back " +
      "the status it had, unless an operator changed it during the window or another running window still " +
      "covers it (`maintenance.completed`). Status changes of components write `component.status_changed`. " +
      "A scheduled window starting within the organization's `maintenanceReminderHours` gets one " +
      "`maintenance.reminder` (none when it was scheduled already that close; again when its start moves).",
    "Maintenance events carry `data: { id, title, status, scheduledStart, scheduledEnd, componentIds }`. A " +
      "window's visibility is decided as an incident's: when it is created and whenever its `componentIds` " +
      "are set (public when it names no component or a public one), and again when a component it names is " +
      "shown or hidden; deleting a component leaves it alone."
  ))
{}
