import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"

import {
  ComponentGroup,
  ComponentGroupId,
  CreateComponentGroup,
  UpdateComponentGroup
} from "../domain/ComponentGroup.js"
import { NotFound } from "../domain/Errors.js"
import { adminPageBounds, pageQueryFields } from "../domain/Page.js"
import { RequiredRole } from "../domain/Role.js"
import { endpointDocs, groupDocs, pagedList } from "./Docs.js"
import { Authentication } from "./Security.js"

const GroupPath = Schema.Struct({ id: ComponentGroupId })

export class ComponentGroupsApi extends HttpApiGroup.make("componentGroups")
  .add(
    HttpApiEndpoint.get("list", "/", {
      query: pageQueryFields(adminPageBounds),
      success: Schema.Array(ComponentGroup.json)
    })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "List component groups",
        "Every group, public and private, ordered by `displayOrder`, then name.",
        pagedList(adminPageBounds)
      ))
  )
  .add(
    HttpApiEndpoint.get("get", "/:id", { params: GroupPath, success: ComponentGroup.json, error: NotFound })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "Read a component group",
        "One component group as the list shows it, with its `ETag` for `If-Match`. An unknown id is 404."
      ))
  )
  .add(
    HttpApiEndpoint.post("create", "/", {
      payload: CreateComponentGroup,
      success: ComponentGroup.json.pipe(HttpApiSchema.status(201))
    })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Create a component group",
        "Only `name` is required (1–200 characters after trimming). Defaults: `description` `\"\"` (at most " +
          "2000 characters), `isPublic` true, and `displayOrder` one more than the largest existing, so a new " +
          "group goes last (at most 2147483647, where it ties). Answers **201** with the group."
      ))
  )
  .add(
    HttpApiEndpoint.put("update", "/:id", {
      params: GroupPath,
      payload: UpdateComponentGroup,
      success: ComponentGroup.json,
      error: NotFound
    })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Update a component group",
        "A partial update: only the fields sent change, with the same rules as on creation; `{}` changes " +
          "nothing. An unknown id is 404."
      ))
  )
  .add(
    HttpApiEndpoint.delete("remove", "/:id", { params: GroupPath, success: HttpApiSchema.NoContent, error: NotFound })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Delete a component group",
        "Answers **204**, then 404 for the same id. Its components are not deleted: they become ungrouped " +
          "(`groupId` null)."
      ))
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/component-groups")
  .annotateMerge(groupDocs(
    "Component groups: headings the public page shows components under (admin; an API key or a session is " +
      "required, else 401).",
    "A component joins a group through its `groupId` (`POST`/`PUT /api/v1/admin/components`). The public summary " +
      "lists the public groups that hold a public component, with the worst status of those components; a private " +
      "group is not shown and its public components appear ungrouped. Every write answers once the public " +
      "snapshot of its instance includes it."
  ))
{}
