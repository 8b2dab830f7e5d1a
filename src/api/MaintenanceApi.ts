import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { BadRequest, Conflict, NotFound } from "../domain/Errors.js"
import { Authentication } from "./Security.js"
import { CreateMaintenance, Maintenance, MaintenanceId, UpdateMaintenance } from "../domain/Maintenance.js"

const MaintenancePath = Schema.Struct({ id: MaintenanceId })

export class MaintenanceApi extends HttpApiGroup.make("maintenance")
  .add(HttpApiEndpoint.get("list", "/").addSuccess(Schema.Array(Maintenance.json)))
  .add(
    HttpApiEndpoint.post("create", "/")
      .setPayload(CreateMaintenance)
      .addSuccess(Maintenance.json, { status: 201 })
      .addError(BadRequest)
  )
  .add(HttpApiEndpoint.get("get", "/:id").setPath(MaintenancePath).addSuccess(Maintenance.json).addError(NotFound))
  .add(
    HttpApiEndpoint.put("update", "/:id")
      .setPath(MaintenancePath)
      .setPayload(UpdateMaintenance)
      .addSuccess(Maintenance.json)
      .addError(NotFound)
      .addError(Conflict)
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.del("cancel", "/:id")
      .setPath(MaintenancePath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .addError(Conflict)
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/maintenance")
{}
