import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { BadRequest, Conflict, NotFound } from "../domain/Errors.js"
import { Authentication } from "./Security.js"
import { AddIncidentUpdate, CreateIncident, Incident, IncidentId, ResolveIncident, UpdateIncident } from "../domain/Incident.js"

const IncidentPath = Schema.Struct({ id: IncidentId })

export class IncidentsApi extends HttpApiGroup.make("incidents")
  .add(HttpApiEndpoint.get("list", "/").addSuccess(Schema.Array(Incident.json)))
  .add(
    HttpApiEndpoint.post("create", "/")
      .setPayload(CreateIncident)
      .addSuccess(Incident.json, { status: 201 })
      .addError(BadRequest)
  )
  .add(HttpApiEndpoint.get("get", "/:id").setPath(IncidentPath).addSuccess(Incident.json).addError(NotFound))
  .add(
    HttpApiEndpoint.put("update", "/:id")
      .setPath(IncidentPath)
      .setPayload(UpdateIncident)
      .addSuccess(Incident.json)
      .addError(NotFound)
      .addError(Conflict)
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.post("addUpdate", "/:id/updates")
      .setPath(IncidentPath)
      .setPayload(AddIncidentUpdate)
      .addSuccess(Incident.json, { status: 201 })
      .addError(NotFound)
      .addError(Conflict)
  )
  .add(
    // The body is optional: an empty body reaches the schema as null.
    HttpApiEndpoint.patch("resolve", "/:id/resolve")
      .setPath(IncidentPath)
      .setPayload(Schema.NullOr(ResolveIncident))
      .addSuccess(Incident.json)
      .addError(NotFound)
      .addError(Conflict)
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/incidents")
{}
