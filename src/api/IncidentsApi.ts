import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"

import { BadRequest, Conflict, NotFound } from "../domain/Errors.js"
import {
  AddIncidentUpdate,
  CreateIncident,
  Incident,
  IncidentId,
  ResolveIncident,
  SetPostmortem,
  UpdateIncident
} from "../domain/Incident.js"
import { adminPageBounds, pageQueryFields } from "../domain/Page.js"
import { RequiredRole } from "../domain/Role.js"
import { endpointDocs, groupDocs, pagedList } from "./Docs.js"
import { Authentication } from "./Security.js"

const IncidentPath = Schema.Struct({ id: IncidentId })

export class IncidentsApi extends HttpApiGroup.make("incidents")
  .add(
    HttpApiEndpoint.get("list", "/", { query: pageQueryFields(adminPageBounds), success: Schema.Array(Incident.json) })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "List incidents",
        "Every incident, open and resolved, public and private, newest first, each with its whole timeline.",
        pagedList(adminPageBounds)
      ))
  )
  .add(
    HttpApiEndpoint.post("create", "/", {
      payload: CreateIncident,
      success: Incident.json.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, NotFound]
    })
      .annotate(RequiredRole, "editor")
      .annotateMerge(endpointDocs(
        "Open an incident",
        "Requires `title` (1–200 characters) and `message` (1–5000, the first timeline entry). Defaults: " +
          "`status` `investigating` (creation accepts `investigating`, `identified`, `monitoring`), `severity` " +
          "`minor` (`none`, `minor`, `major`, `critical`), `componentIds` none (at most 100; duplicates ignored). " +
          "An unknown component id is **400** `BadRequest` with an issue at `[\"componentIds\", index]`. " +
          "With `templateId` (an incident template's id), the template's `title`, `message`, `status`, " +
          "`severity` and `componentIds` fill in every field the body leaves out; an unknown template is **404** " +
          "`NotFound`. A `title` or `message` that neither the body nor a template gives is **400** `BadRequest` " +
          "with an issue at `[\"title\"]` or `[\"message\"]`. `componentStatuses` (`{ [componentId]: status }`, " +
          "at most 100) sets those components' statuses in the same transaction, one `component.status_changed` " +
          "each, and adds them to the incident's components; an unknown one is **400** with an issue at " +
          "`[\"componentStatuses\", id]`. `published: false` opens a draft, seen only in the admin API and dashboard.",
        "Answers **201** with the incident and writes `incident.created` to the outbox (`data`: the incident " +
          "without its timeline); a draft writes no event until it is published."
      ))
  )
  .add(
    HttpApiEndpoint.get("get", "/:id", { params: IncidentPath, success: Incident.json, error: NotFound })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "Read an incident",
        "The incident with `componentIds`, `message` (the latest entry), `updates` (the timeline, oldest " +
          "first) and `resolvedAt`. An unknown id is 404."
      ))
  )
  .add(
    HttpApiEndpoint.put("update", "/:id", {
      params: IncidentPath,
      payload: UpdateIncident,
      success: Incident.json,
      error: [NotFound, Conflict, BadRequest]
    })
      .annotate(RequiredRole, "editor")
      .annotateMerge(endpointDocs(
        "Correct an incident",
        "A partial update of `title`, `status` (one of the three open ones), `severity` and `componentIds` " +
          "(an unknown component id is 400). The timeline only grows through updates (`POST …/updates`). `{}` " +
          "changes nothing and emits nothing; any other change writes `incident.updated` to the outbox. " +
          "`componentStatuses` sets component statuses as on creation and adds those components.",
        "A resolved incident is final: a body naming a `status` is **409** `Conflict`, but its title, severity " +
          "and components can still be corrected. A change to an incident a monitor opened hands it over to " +
          "the operators (`automation: \"handed_over\"`): the automation no longer moves its status or resolves it."
      ))
  )
  .add(
    HttpApiEndpoint.post("addUpdate", "/:id/updates", {
      params: IncidentPath,
      payload: AddIncidentUpdate,
      success: Incident.json.pipe(HttpApiSchema.status(201)),
      error: [NotFound, Conflict, BadRequest]
    })
      .annotate(RequiredRole, "editor")
      .annotateMerge(endpointDocs(
        "Post a timeline update",
        "Adds `{ status, message }` (message 1–5000 characters) to the timeline, sets the incident's status, " +
          "and answers **201** with the incident. Status `resolved` resolves it (sets `resolvedAt`, writes " +
          "`incident.resolved`); any other status writes `incident.updated`. `componentStatuses` sets component " +
          "statuses as on creation; `restoreComponents: true` (with status `resolved` only, and not with " +
          "`componentStatuses`, else 400) restores the components as resolving does.",
        "A resolved incident takes no more updates: **409** `Conflict`. An unknown id is 404. An update hands " +
          "an automatic incident over to the operators."
      ))
  )
  .add(
    // The body is optional: an empty body reaches the schema as null.
    HttpApiEndpoint.patch("resolve", "/:id/resolve", {
      params: IncidentPath,
      payload: [ResolveIncident, Schema.Null],
      success: Incident.json,
      error: [NotFound, Conflict]
    })
      .annotate(RequiredRole, "editor")
      .annotateMerge(endpointDocs(
        "Resolve an incident",
        "Takes an optional body `{ \"message\"?: string, \"restoreComponents\"?: boolean }` (default message " +
          "\"This incident has been resolved.\"), adds it to the timeline with status `resolved`, sets " +
          "`resolvedAt`, and writes `incident.resolved` to the outbox. With `restoreComponents: true` each of the " +
          "incident's components returns to `operational`, or to what its monitors find, and one a maintenance " +
          "window in progress covers returns to `maintenance`, with one `component.status_changed` per change.",
        "Resolving an incident that is already resolved is **409** `Conflict`; an unknown id is 404."
      ))
  )
  .add(
    HttpApiEndpoint.post("publish", "/:id/publish", { params: IncidentPath, success: Incident.json, error: NotFound })
      .annotate(RequiredRole, "editor")
      .annotateMerge(endpointDocs(
        "Publish a draft incident",
        "Makes a draft public (as its components allow) and writes `incident.created` then, its `data` " +
          "carrying the timeline so far (`updates`); every later change writes its events as usual. " +
          "Publishing a published incident changes nothing and writes no event. An unknown id is 404."
      ))
  )
  .add(
    HttpApiEndpoint.put("setPostmortem", "/:id/postmortem", {
      params: IncidentPath,
      payload: SetPostmortem,
      success: Incident.json,
      error: [NotFound, Conflict, BadRequest]
    })
      .annotate(RequiredRole, "editor")
      .annotateMerge(endpointDocs(
        "Write the postmortem",
        "Sets a resolved incident's postmortem to `{ body, published }`: `body` is Markdown (1–50,000 characters " +
          "after trimming), written over any earlier one; `published` false keeps it a draft that only the admin " +
          "API and the dashboard show. Answers the incident, whose `postmortem` is `{ body, published, " +
          "publishedAt, updatedAt }` (`publishedAt`: the first publication, kept by edits and by unpublishing).",
        "An incident that is not resolved is **409** `Conflict`; an unknown id is 404. Publishing (a draft or no " +
          "postmortem before) writes `incident.updated` with `postmortemPublished: true` to the outbox; edits, " +
          "drafts and unpublishing write no event. Once published, the public incident detail, page and feeds " +
          "show it."
      ))
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/incidents")
  .annotateMerge(groupDocs(
    "Incidents and their timelines (admin; an API key or a session is required, else 401).",
    "An incident's visibility is decided when it is created and whenever its `componentIds` are set: public " +
      "when it names no component or a public one. Changing a component's `isPublic` decides again for the " +
      "incidents naming it; deleting a component leaves their visibility alone. Every change writes its " +
      "event (`incident.created`, `incident.updated`, `incident.resolved`, with `data` = the incident without " +
      "its timeline) to the outbox in the change's own transaction; the dispatcher delivers it to webhooks and, " +
      "for public incidents, mails verified subscribers. Every write answers once its instance's public " +
      "snapshot includes it."
  ))
{}
