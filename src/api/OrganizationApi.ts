import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { NotFound } from "../domain/Errors.js"
import { Organization, OrganizationId, UpdateOrganization } from "../domain/Organization.js"
import { Authentication } from "./Security.js"

export class OrganizationApi extends HttpApiGroup.make("organization")
  .add(HttpApiEndpoint.get("get", "/").addSuccess(Organization.json))
  .add(
    HttpApiEndpoint.put("update", "/:id")
      .setPath(Schema.Struct({ id: OrganizationId }))
      .setPayload(UpdateOrganization)
      .addSuccess(Organization.json)
      .addError(NotFound)
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/org")
{}
