import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"

import { ApiKey, ApiKeyId, CreateApiKey, CreatedApiKey } from "../domain/Auth.js"
import { BadRequest, Conflict, NotFound } from "../domain/Errors.js"
import { adminPageBounds, pageQueryFields } from "../domain/Page.js"
import { RequiredRole } from "../domain/Role.js"
import { endpointDocs, groupDocs, pagedList } from "./Docs.js"
import { Authentication } from "./Security.js"

export class ApiKeysApi extends HttpApiGroup.make("apiKeys")
  .add(
    HttpApiEndpoint.get("list", "/", { query: pageQueryFields(adminPageBounds), success: Schema.Array(ApiKey.json) })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "List API keys",
        "Every key, oldest first, with `id`, `name`, `prefix` (its first 12 characters), `role`, `pageIds`, " +
          "`createdAt`, `lastUsedAt` and `expiresAt`. Never the key itself or its hash.",
        pagedList(adminPageBounds)
      ))
  )
  .add(
    HttpApiEndpoint.post("create", "/", {
      payload: CreateApiKey,
      success: CreatedApiKey.pipe(HttpApiSchema.status(201)),
      error: BadRequest
    })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Create an API key",
        "Takes `name` (1–200 characters), an optional `expiresAt`, a future ISO 8601 UTC timestamp ending " +
          "in `Z` (a past one is 400), an optional `role`, at most your own (yours when left out; higher is 400), " +
          "and optional `pageIds`, the status pages the key may change (every page when left out; an unknown id " +
          "is 400). The key acts with the lower of its role and its creator's role at the time of each request, " +
          "and stops working while its creator is disabled. Answers **201** with the key's record and `key`: `svc_` + 32 random " +
          "characters of `[A-Za-z0-9]`. This is the only time `key` is shown; only its SHA-256 is stored.",
        "Use it as `Authorization: Bearer svc_…`. An expired key answers 401 \"The API key has expired\"."
      ))
  )
  .add(
    HttpApiEndpoint.delete("remove", "/:id", {
      params: Schema.Struct({ id: ApiKeyId }),
      success: HttpApiSchema.NoContent,
      error: [NotFound, Conflict]
    })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Delete an API key",
        "Answers **204**; the key stops working at once. Deleting the key that authenticates the request is " +
          "**409** `Conflict` and the key keeps working: rotate by creating a new key, switching to it, and " +
          "deleting the old one with the new one. A key of a higher role than the caller's is **403**. An unknown " +
          "id is 404."
      ))
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/api-keys")
  .annotateMerge(groupDocs(
    "API keys for automation (admin; an API key or a session is required, else 401).",
    "A key is sent as `Authorization: Bearer svc_…`; its `lastUsedAt` moves on every authenticated request. " +
      "Keys can also be created from the command line (`npm run cli -- api-key create --name …`)."
  ))
{}
