import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { OrganizationProfile } from "../services/catalog/OrganizationProfile.js"

export const OrganizationHttp = HttpApiBuilder.group(Api, "organization", (handlers) =>
  Effect.gen(function*() {
    const organization = yield* OrganizationProfile
    return handlers
      .handle("get", () => organization.get())
      .handle("update", ({ params, payload }) => organization.update(params.id, payload))
  }))
