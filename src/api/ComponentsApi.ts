import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { Component, ComponentId, CreateComponent, SetComponentStatus, UpdateComponent } from "../domain/Component.js"
import { NotFound } from "../domain/Errors.js"
import { Authentication } from "./Security.js"

const ComponentPath = Schema.Struct({ id: ComponentId })

export class ComponentsApi extends HttpApiGroup.make("components")
  .add(HttpApiEndpoint.get("list", "/").addSuccess(Schema.Array(Component.json)))
  .add(
    HttpApiEndpoint.post("create", "/")
      .setPayload(CreateComponent)
      .addSuccess(Component.json, { status: 201 })
  )
  .add(
    HttpApiEndpoint.put("update", "/:id")
      .setPath(ComponentPath)
      .setPayload(UpdateComponent)
      .addSuccess(Component.json)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.del("remove", "/:id")
      .setPath(ComponentPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.patch("setStatus", "/:id/status")
      .setPath(ComponentPath)
      .setPayload(SetComponentStatus)
      .addSuccess(Component.json)
      .addError(NotFound)
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/components")
{}
