import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { ApiKey, ApiKeyId, CreateApiKey, CreatedApiKey } from "../domain/Auth.js"
import { BadRequest, Conflict, NotFound } from "../domain/Errors.js"
import { Authentication } from "./Security.js"

export class ApiKeysApi extends HttpApiGroup.make("apiKeys")
  .add(HttpApiEndpoint.get("list", "/").addSuccess(Schema.Array(ApiKey.json)))
  .add(
    HttpApiEndpoint.post("create", "/")
      .setPayload(CreateApiKey)
      .addSuccess(CreatedApiKey, { status: 201 })
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.del("remove", "/:id")
      .setPath(Schema.Struct({ id: ApiKeyId }))
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .addError(Conflict)
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/api-keys")
{}
