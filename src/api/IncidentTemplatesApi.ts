import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"

import { BadRequest, Conflict, NotFound } from "../domain/Errors.js"
import { IncidentTemplateId } from "../domain/Incident.js"
import { CreateIncidentTemplate, IncidentTemplate, UpdateIncidentTemplate } from "../domain/IncidentTemplate.js"
import { adminPageBounds, pageQueryFields } from "../domain/Page.js"
import { RequiredRole } from "../domain/Role.js"
import { endpointDocs, groupDocs, pagedList } from "./Docs.js"
import { Authentication } from "./Security.js"

const TemplatePath = Schema.Struct({ id: IncidentTemplateId })

const rules = "`name` 1–200 characters after trimming, unique regardless of case (another template's name is " +
  "**409** `Conflict`); `title` 1–200 and `message` 1–5000, as an incident's; `severity` `none`, `minor`, " +
  "`major` or `critical`; `status` `investigating`, `identified` or `monitoring`; `componentIds` at most 100, " +
  "duplicates ignored, an unknown one **400** `BadRequest` with an issue at `[\"componentIds\", index]`."

export class IncidentTemplatesApi extends HttpApiGroup.make("incidentTemplates")
  .add(
    HttpApiEndpoint.get("list", "/", {
      query: pageQueryFields(adminPageBounds),
      success: Schema.Array(IncidentTemplate.json)
    })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "List incident templates",
        "Every incident template, ordered by name (regardless of case).",
        pagedList(adminPageBounds)
      ))
  )
  .add(
    HttpApiEndpoint.get("get", "/:id", { params: TemplatePath, success: IncidentTemplate.json, error: NotFound })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "Read an incident template",
        "One incident template as the list shows it, with its `ETag` for `If-Match`. An unknown id is 404."
      ))
  )
  .add(
    HttpApiEndpoint.post("create", "/", {
      payload: CreateIncidentTemplate,
      success: IncidentTemplate.json.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, Conflict]
    })
      .annotate(RequiredRole, "editor")
      .annotateMerge(endpointDocs(
        "Create an incident template",
        "Requires `name`, `title` and `message`. Defaults: `severity` `minor`, `status` `investigating`, " +
          "`componentIds` none. Rules: " + rules,
        "Answers **201** with the template."
      ))
  )
  .add(
    HttpApiEndpoint.put("update", "/:id", {
      params: TemplatePath,
      payload: UpdateIncidentTemplate,
      success: IncidentTemplate.json,
      error: [NotFound, BadRequest, Conflict]
    })
      .annotate(RequiredRole, "editor")
      .annotateMerge(endpointDocs(
        "Update an incident template",
        "A partial update: only the fields sent change, with the rules of creation; `{}` changes nothing " +
          "(`updatedAt` included). An unknown id is 404."
      ))
  )
  .add(
    HttpApiEndpoint.delete("remove", "/:id", {
      params: TemplatePath,
      success: HttpApiSchema.NoContent,
      error: NotFound
    })
      .annotate(RequiredRole, "editor")
      .annotateMerge(endpointDocs(
        "Delete an incident template",
        "Answers **204**, then 404 for the same id. Incidents opened from it are not changed."
      ))
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/incident-templates")
  .annotateMerge(groupDocs(
    "Incident templates: prepared title, message, severity, status and components to open an incident from " +
      "(admin; an API key or a session is required, else 401).",
    "`POST /api/v1/admin/incidents` with `templateId` opens an incident from a template: the template fills in " +
      "every field the body leaves out. A component deleted later drops out of the templates naming it. " +
      "Templates are private: nothing public shows them, and changing one writes no event."
  ))
{}
