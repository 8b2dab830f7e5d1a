import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"

import { Component, ComponentId, CreateComponent, SetComponentStatus, UpdateComponent } from "../domain/Component.js"
import { NotFound } from "../domain/Errors.js"
import { adminPageBounds, pageQueryFields } from "../domain/Page.js"
import { RequiredRole } from "../domain/Role.js"
import { endpointDocs, groupDocs, pagedList } from "./Docs.js"
import { Authentication } from "./Security.js"

const ComponentPath = Schema.Struct({ id: ComponentId })

const statusEvent = "A status that actually changes writes `component.status_changed` (`data: { id, name, " +
  "previousStatus, status }`) to the outbox in the same transaction. A status set by hand is the operator's: " +
  "monitors leave it alone until it is `operational` again."

export class ComponentsApi extends HttpApiGroup.make("components")
  .add(
    HttpApiEndpoint.get("list", "/", { query: pageQueryFields(adminPageBounds), success: Schema.Array(Component.json) })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "List components",
        "Every component, public and private, ordered by `displayOrder`, then name.",
        pagedList(adminPageBounds)
      ))
  )
  .add(
    HttpApiEndpoint.get("get", "/:id", { params: ComponentPath, success: Component.json, error: NotFound })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "Read a component",
        "One component as the list shows it, with its `ETag` for `If-Match`. An unknown id is 404."
      ))
  )
  .add(
    HttpApiEndpoint.post("create", "/", {
      payload: CreateComponent,
      success: Component.json.pipe(HttpApiSchema.status(201)),
      error: NotFound
    })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Create a component",
        "Only `name` is required (1–200 characters after trimming). Defaults: `description` `\"\"` (at most " +
          "2000 characters), `status` `operational`, `isPublic` true, `groupId` null (ungrouped; else a component " +
          "group's id, an unknown one is **404** as an unknown `componentId` is for a monitor), and `displayOrder` " +
          "one more than the largest existing, so a new component goes last (at most 2147483647, where it ties). " +
          "Answers **201** with the component."
      ))
  )
  .add(
    HttpApiEndpoint.put("update", "/:id", {
      params: ComponentPath,
      payload: UpdateComponent,
      success: Component.json,
      error: NotFound
    })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Update a component",
        "A partial update: only the fields sent change, with the same rules as on creation; `{}` changes " +
          "nothing. An unknown id is 404, and so is an unknown `groupId`; `groupId: null` ungroups it.",
        statusEvent
      ))
  )
  .add(
    HttpApiEndpoint.delete("remove", "/:id", {
      params: ComponentPath,
      success: HttpApiSchema.NoContent,
      error: NotFound
    })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Delete a component",
        "Answers **204**, then 404 for the same id. The component's monitors are deleted with it, and the " +
          "incidents and maintenance windows that named it no longer do; they keep their visibility, so a private " +
          "one stays private."
      ))
  )
  .add(
    HttpApiEndpoint.patch("setStatus", "/:id/status", {
      params: ComponentPath,
      payload: SetComponentStatus,
      success: Component.json,
      error: NotFound
    })
      .annotate(RequiredRole, "editor")
      .annotateMerge(endpointDocs(
        "Set a component's status",
        "Sets `status` (`operational`, `degraded`, `partial_outage`, `major_outage` or `maintenance`) and " +
          "answers the component. An unknown id is 404.",
        statusEvent
      ))
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/components")
  .annotateMerge(groupDocs(
    "The components whose status the page shows (admin; an API key or a session is required, else 401).",
    "Private components (`isPublic: false`) are managed here but never appear on the public side. Changing " +
      "`isPublic` decides again whether the incidents and maintenance windows naming the component are public. " +
      "Every write answers once the public snapshot of its instance includes it."
  ))
{}
