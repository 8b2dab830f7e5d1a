import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { BadRequest, NotFound } from "../domain/Errors.js"
import { CreateMonitor, Monitor, MonitorId, MonitorResultsQuery, MonitorRun, UpdateMonitor } from "../domain/Monitor.js"
import { Authentication } from "./Security.js"

const MonitorPath = Schema.Struct({ id: MonitorId })

export class MonitorsApi extends HttpApiGroup.make("monitors")
  .add(HttpApiEndpoint.get("list", "/").addSuccess(Schema.Array(Monitor.json)))
  .add(
    HttpApiEndpoint.post("create", "/")
      .setPayload(CreateMonitor)
      .addSuccess(Monitor.json, { status: 201 })
      .addError(BadRequest)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.put("update", "/:id")
      .setPath(MonitorPath)
      .setPayload(UpdateMonitor)
      .addSuccess(Monitor.json)
      .addError(BadRequest)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("results", "/:id/results")
      .setPath(MonitorPath)
      .setUrlParams(MonitorResultsQuery)
      .addSuccess(Schema.Array(MonitorRun))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.del("remove", "/:id")
      .setPath(MonitorPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/monitors")
{}
